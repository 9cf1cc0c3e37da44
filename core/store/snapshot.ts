// The restore snapshot: sessions and windows (names, folder, size, workspace, and the attributes
// other services register), written atomically on every change and read when a daemon starts
// after a crash or kill-server. Each window comes back with a new shell; a process cannot be.
import type { Bus, Disposable } from '../bus.js';
import type { Logger } from '../log.js';
import type { Model, Session } from '../model/model.js';
import type { Window } from '../model/window.js';
import type { TabsRecord } from '../model/tabs.js';
import { readJson, writeJsonAtomic } from './atomic.js';
import { SNAPSHOT_DEBOUNCE_MS } from '../limits.js';
import { existsSync, statSync } from 'node:fs';

const VERSION = 1;
/** How often the folder of each pane is re-read for the snapshot (a `cd` raises no event). */
const CWD_REFRESH_MS = 15_000;

export interface AttrCodec<T> {
  /** The value to persist, or undefined to persist nothing for this object. */
  save(target: T): unknown;
  restore(target: T, value: unknown): void;
}

interface WindowRecord {
  id: string;
  name: string;
  workspace: number;
  cwd: string;
  cols: number;
  rows: number;
  attrs?: Record<string, unknown>;
}

interface SessionRecord {
  id: string;
  name: string;
  cwd: string;
  term?: string;
  active_workspace: number;
  /** The workspaces as tabs: numbers, names, the numbers given out (core/model/tabs.ts). */
  tabs?: TabsRecord;
  attrs?: Record<string, unknown>;
  windows: WindowRecord[];
}

interface SnapshotFile {
  version: number;
  saved_at: string;
  sessions: SessionRecord[];
}

export class SnapshotStore implements Disposable {
  private readonly windowAttrs = new Map<string, AttrCodec<Window>>();
  private readonly sessionAttrs = new Map<string, AttrCodec<Session>>();
  private timer: NodeJS.Timeout | null = null;
  private refresh: NodeJS.Timeout | null = null;
  private lastWritten = '';
  private sub: Disposable | null = null;
  private enabled = false;

  constructor(
    private readonly file: string,
    private readonly model: Model,
    private readonly bus: Bus,
    private readonly log: Logger,
  ) {}

  registerWindowAttr(key: string, codec: AttrCodec<Window>): void {
    this.windowAttrs.set(key, codec);
  }

  registerSessionAttr(key: string, codec: AttrCodec<Session>): void {
    this.sessionAttrs.set(key, codec);
  }

  /** Starts saving on every model change. */
  start(): void {
    this.enabled = true;
    this.sub = this.bus.subscribe((ev) => {
      if (ev.type.startsWith('session-') || ev.type.startsWith('window-') || ev.type.startsWith('workspace')) {
        if (ev.type !== 'window-retitled') this.markDirty();
      }
    });
    this.refresh = setInterval(() => this.markDirty(), CWD_REFRESH_MS);
    this.refresh.unref();
    this.markDirty();
  }

  /** Schedules a save; bursts coalesce into one write. */
  markDirty(): void {
    if (!this.enabled || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.saveNow();
    }, SNAPSHOT_DEBOUNCE_MS);
  }

  /** Writes a save that is waiting, now (a verb is about to say its change is made). */
  flush(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = null;
    this.saveNow();
  }

  saveNow(): void {
    const snap = this.build();
    const text = JSON.stringify(snap.sessions);
    if (text === this.lastWritten) return;
    try {
      writeJsonAtomic(this.file, snap);
      this.lastWritten = text;
    } catch (e) {
      this.log.warn('snapshot not written', { error: String(e) });
    }
  }

  private build(): SnapshotFile {
    const sessions: SessionRecord[] = [];
    for (const s of this.model.sessions.values()) {
      // A window whose process runs on a linked host is not restored: that process ends with the link.
      const windows: WindowRecord[] = this.model.windowsOf(s).filter((w) => !w.host).map((w) => {
        const rec: WindowRecord = { id: w.id, name: w.name, workspace: w.workspace, cwd: w.currentCwd(), cols: w.cols, rows: w.rows };
        const attrs = collect(this.windowAttrs, w);
        if (attrs) rec.attrs = attrs;
        return rec;
      });
      const rec: SessionRecord = { id: s.id, name: s.name, cwd: s.cwd, active_workspace: s.activeWorkspace, tabs: s.tabs.toRecord(), windows };
      if (s.term) rec.term = s.term;
      const attrs = collect(this.sessionAttrs, s);
      if (attrs) rec.attrs = attrs;
      sessions.push(rec);
    }
    return { version: VERSION, saved_at: new Date().toISOString(), sessions };
  }

  /**
   * Brings the saved sessions back, each window with a new shell. A record that cannot be used
   * (bad shape, a folder that is gone) is logged and skipped; the rest still comes back.
   */
  restore(fallbackCwd: string): { sessions: number; windows: number } {
    let raw: unknown;
    try {
      raw = readJson(this.file);
    } catch (e) {
      this.log.warn('snapshot does not parse; starting empty', { error: String(e) });
      return { sessions: 0, windows: 0 };
    }
    if (!raw) return { sessions: 0, windows: 0 };
    const snap = raw as Partial<SnapshotFile>;
    if (snap.version !== VERSION || !Array.isArray(snap.sessions)) {
      this.log.warn('snapshot has an unknown version; starting empty', { version: snap.version });
      return { sessions: 0, windows: 0 };
    }
    let ns = 0;
    let nw = 0;
    for (const rec of snap.sessions) {
      try {
        if (!rec || typeof rec.name !== 'string' || !Array.isArray(rec.windows)) continue;
        const s = this.model.createSession({ id: rec.id, name: rec.name, cwd: usableDir(rec.cwd, fallbackCwd), term: rec.term });
        ns++;
        for (const [key, value] of Object.entries(rec.attrs ?? {})) this.sessionAttrs.get(key)?.restore(s, value);
        // The tabs come back first, held while the windows arrive one by one, so each window
        // starts with its tab's number (HERDR_TAB_ID) and no tab is given up meanwhile.
        s.tabs.load(rec.tabs);
        s.tabs.held = true;
        for (const wr of rec.windows) {
          try {
            const w = this.model.createWindow(s, {
              id: wr.id,
              name: wr.name,
              cwd: usableDir(wr.cwd, s.cwd),
              cols: wr.cols,
              rows: wr.rows,
              workspace: wr.workspace,
              // Grants are in force before the new process starts (its environment names them).
              grants: Array.isArray(wr.attrs?.grants) ? (wr.attrs!.grants as unknown[]).map(String) : undefined,
            });
            for (const [key, value] of Object.entries(wr.attrs ?? {})) this.windowAttrs.get(key)?.restore(w, value);
            nw++;
          } catch (e) {
            this.log.warn('window not restored', { session: rec.name, error: String(e) });
          }
        }
        if (rec.active_workspace >= 1 && rec.active_workspace <= 9) s.activeWorkspace = rec.active_workspace;
        s.tabs.held = false;
        this.model.syncTabs(s);
        if (this.model.windowsOf(s).length === 0) this.model.killSession(s);
      } catch (e) {
        this.log.warn('session not restored', { error: String(e) });
      }
    }
    return { sessions: ns, windows: nw };
  }

  dispose(): void {
    this.sub?.dispose();
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
      this.saveNow();
    }
    if (this.refresh) clearInterval(this.refresh);
    this.enabled = false;
  }
}

function collect<T>(codecs: Map<string, AttrCodec<T>>, target: T): Record<string, unknown> | null {
  let out: Record<string, unknown> | null = null;
  for (const [key, codec] of codecs) {
    const v = codec.save(target);
    if (v === undefined) continue;
    (out ??= {})[key] = v;
  }
  return out;
}

function usableDir(dir: unknown, fallback: string): string {
  if (typeof dir !== 'string' || !dir.startsWith('/')) return fallback;
  try {
    if (existsSync(dir) && statSync(dir).isDirectory()) return dir;
  } catch {
    // fall through
  }
  return fallback;
}
