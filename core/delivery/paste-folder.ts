// The paste folder (spec: Large pastes): beside the daemon's socket, the person's alone (0700),
// one file per paste block of a large message (0600), written when the message is typed so a
// message that waited in the queue never points at a file that is gone. Files are kept 24 hours,
// then swept, and every one is removed when the daemon stops.
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Disposable } from '../bus.js';
import type { Logger } from '../log.js';
import { ensurePrivateDir } from '../config/paths.js';
import { sanitizePaste } from '../pty/paste.js';
import { PASTE_FILE_KEEP_MS, PASTE_SWEEP_MS } from '../limits.js';

const FILE_PREFIX = 'tuios-paste-';

/** `tuios-paste-reply-20261016-101500-3fa2c1.txt`: the kind, when (local time), a random tail. */
export function pasteFileName(kind: string, at: Date, tail: string, ext = 'txt'): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const day = `${at.getFullYear()}${p(at.getMonth() + 1)}${p(at.getDate())}`;
  const time = `${p(at.getHours())}${p(at.getMinutes())}${p(at.getSeconds())}`;
  return `${FILE_PREFIX}${kind}-${day}-${time}-${tail}.${ext}`;
}

export class PasteFolder implements Disposable {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    readonly dir: string,
    private readonly log: Logger,
  ) {}

  /** Starts the sweep (once now, for files a stopped daemon could not remove, then hourly). */
  start(): this {
    this.sweep(Date.now());
    this.timer = setInterval(() => this.sweep(Date.now()), PASTE_SWEEP_MS);
    this.timer.unref();
    return this;
  }

  /** Writes one block; answers its path. Control characters go, as from any paste. */
  write(text: string, kind = 'reply'): string {
    ensurePrivateDir(this.dir);
    const path = join(this.dir, pasteFileName(kind, new Date(), randomBytes(3).toString('hex')));
    writeFileSync(path, sanitizePaste(text), { mode: 0o600, flag: 'wx' });
    return path;
  }

  /** Writes one image of a reply (spec: Images), named for its format; answers its path. */
  writeImage(data: Uint8Array, format: string): string {
    ensurePrivateDir(this.dir);
    const path = join(this.dir, pasteFileName('image', new Date(), randomBytes(3).toString('hex'), format === 'jpeg' ? 'jpg' : format));
    writeFileSync(path, data, { mode: 0o600, flag: 'wx' });
    return path;
  }

  /** Removes the paste files older than `keepMs` (all of them with 0). */
  sweep(now: number, keepMs = PASTE_FILE_KEEP_MS): number {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return 0; // no folder yet: nothing was pasted
    }
    let removed = 0;
    for (const name of names) {
      if (!name.startsWith(FILE_PREFIX)) continue;
      const path = join(this.dir, name);
      try {
        if (keepMs > 0 && now - statSync(path).mtimeMs < keepMs) continue;
        rmSync(path, { force: true });
        removed++;
      } catch (e) {
        this.log.warn('paste file not removed', { name, error: String(e) });
      }
    }
    return removed;
  }

  dispose(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.sweep(Date.now(), 0);
  }
}
