// The daemon log: one JSON object per line, levels, rotated by size. Never pane text or secrets:
// callers log ids, codes and sizes, and `redact` masks anything shaped like a credential.
import { appendFileSync, statSync, renameSync, existsSync, unlinkSync, mkdirSync, chmodSync } from 'node:fs';
import { dirname } from 'node:path';
import { LOG_KEEP_FILES, LOG_MAX_BYTES } from './limits.js';

export type Level = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

const SECRETISH = /((?:token|secret|password|passwd|api[_-]?key|nonce)["']?\s*[:=]\s*)("[^"]*"|'[^']*'|\S+)/gi;

/** Masks values that look like credentials inside a free-text string. */
export function redact(text: string): string {
  return text.replace(SECRETISH, '$1***');
}

export class FileLogger implements Logger {
  private bytes = 0;
  constructor(
    private readonly file: string | null,
    private readonly min: Level = 'info',
    private readonly base: Record<string, unknown> = {},
    private readonly echo: ((line: string) => void) | null = null,
  ) {
    if (file) {
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      try {
        this.bytes = statSync(file).size;
      } catch {
        this.bytes = 0;
      }
    }
  }

  child(fields: Record<string, unknown>): Logger {
    const parent = this;
    const merged = { ...this.base, ...fields };
    return {
      debug: (m, f) => parent.write('debug', m, { ...merged, ...f }),
      info: (m, f) => parent.write('info', m, { ...merged, ...f }),
      warn: (m, f) => parent.write('warn', m, { ...merged, ...f }),
      error: (m, f) => parent.write('error', m, { ...merged, ...f }),
      child: (more) => parent.child({ ...merged, ...more }),
    };
  }

  debug(m: string, f?: Record<string, unknown>): void { this.write('debug', m, { ...this.base, ...f }); }
  info(m: string, f?: Record<string, unknown>): void { this.write('info', m, { ...this.base, ...f }); }
  warn(m: string, f?: Record<string, unknown>): void { this.write('warn', m, { ...this.base, ...f }); }
  error(m: string, f?: Record<string, unknown>): void { this.write('error', m, { ...this.base, ...f }); }

  private write(level: Level, msg: string, fields: Record<string, unknown>): void {
    if (RANK[level] < RANK[this.min]) return;
    const line = JSON.stringify({ ts: new Date().toISOString(), level, msg: redact(msg), ...fields }) + '\n';
    if (this.echo && RANK[level] >= RANK.warn) this.echo(line);
    if (!this.file) return;
    try {
      if (this.bytes + line.length > LOG_MAX_BYTES) this.rotate();
      appendFileSync(this.file, line, { mode: 0o600 });
      this.bytes += Buffer.byteLength(line);
    } catch {
      // A full disk must not take the daemon down; the log is best effort.
    }
  }

  private rotate(): void {
    if (!this.file) return;
    for (let i = LOG_KEEP_FILES; i >= 1; i--) {
      const from = i === 1 ? this.file : `${this.file}.${i - 1}`;
      const to = `${this.file}.${i}`;
      if (i === LOG_KEEP_FILES && existsSync(to)) unlinkSync(to);
      if (existsSync(from)) renameSync(from, to);
    }
    this.bytes = 0;
    try {
      appendFileSync(this.file, '', { mode: 0o600 });
      chmodSync(this.file, 0o600);
    } catch {
      // best effort, as above
    }
  }
}

/** A logger that drops everything: for pure modules under unit test. */
export const nullLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return nullLogger;
  },
};
