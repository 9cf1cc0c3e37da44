// Sessions, numbered workspaces and windows: the plain structure of the multiplexer. The model
// owns creation, lookup, renaming and closing, and publishes an event for every change. Spawning
// a process is delegated, so the model stays testable without PTYs.
import type { Bus } from '../bus.js';
import type { Logger } from '../log.js';
import { newId, newToken, FULL_ID_RE, ID_PREFIX_RE } from '../ids.js';
import { TuiosError } from '../errors.js';
import { Window, type WindowInit } from './window.js';
import type { ExitStatus } from '../pty/window-process.js';
import { MAX_SESSIONS, MAX_WINDOWS, WORKSPACES } from '../limits.js';
import { WorkspaceTabs, renumber } from './tabs.js';
import type { WorkspaceLayout } from './layout.js';

export class Session {
  readonly id: string;
  name: string;
  readonly createdAt = Date.now();
  readonly order: number;
  lastActiveAt = Date.now();
  activeWorkspace = 1;
  /** The folder new windows start in when none is given. */
  cwd: string;
  /** TERM of the client that made the session. */
  term: string | undefined;
  /** The focused window per workspace number. */
  readonly focused = new Map<number, string>();
  /** The tiling of each workspace (core/model/layout.ts): session state every client shares. */
  readonly layouts = new Map<number, WorkspaceLayout>();
  readonly attrs = new Map<string, unknown>();
  /** The workspaces as herdr's tabs: their tab numbers and names (tabs.ts). */
  readonly tabs = new WorkspaceTabs();

  constructor(id: string, name: string, order: number, cwd: string, term: string | undefined) {
    this.id = id;
    this.name = name;
    this.order = order;
    this.cwd = cwd;
    this.term = term;
  }
}

export interface NewWindowSpec {
  name?: string;
  argv?: string[];
  cwd?: string;
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
  workspace?: number;
  /** Reuse this id (restore). */
  id?: string;
  /** Grants given at start (core/security/grants); none: the config's default. */
  grants?: string[];
  /** A linked host to run the process on (new-window --host); the window lives here. */
  host?: string;
}

/** What the model needs from the outside to give a window a process. */
export interface PaneStarter {
  /** Fills defaults (shell, size, scrollback) and starts the process; throws a TuiosError to refuse. */
  prepare(session: Session, spec: NewWindowSpec): Omit<WindowInit, 'id' | 'sessionId' | 'order' | 'paneToken' | 'workspace'> & { env: Record<string, string> };
  start(w: Window, session: Session, env: Record<string, string>): void;
}

export interface SessionEvent {
  session_id: string;
  name: string;
}

declare module '../bus.js' {
  interface EventMap {
    'session-created': SessionEvent;
    'session-closed': SessionEvent;
    'session-renamed': SessionEvent & { old_name: string };
    'window-created': { window_id: string; session_id: string; name: string };
    'window-closed': { window_id: string; session_id: string; name: string };
    'window-exit': { window_id: string; session_id: string; exit_code: number | null; signal: number | null };
    'window-retitled': { window_id: string; session_id: string; title: string };
    'window-renamed': { window_id: string; session_id: string; name: string; old_name: string };
    'window-resized': { window_id: string; session_id: string; cols: number; rows: number };
    'window-focused': { window_id: string; session_id: string; workspace: number };
    'workspace-switched': { session_id: string; workspace: number };
    'workspace-renamed': { session_id: string; workspace: number; tab: number; name: string | null; old_name: string | null };
    /** Workspaces that changed number, old to new; each tab kept its number and name. */
    'workspaces-reordered': { session_id: string; moves: Array<{ from: number; to: number; tab: number }> };
    'window-moved': { window_id: string; session_id: string; workspace: number; from_session_id: string; from_workspace: number };
  }
}

/** window-retitled goes out at most this often per window (a spinner's frames are coalesced). */
export const RETITLE_INTERVAL_MS = 500;

interface RetitleState {
  /** The title the last event carried. */
  published: string | null;
  /** When it went out. */
  at: number;
  /** The latest title, waiting for the interval to pass. */
  pending: string | null;
  timer: NodeJS.Timeout | null;
}

export class Model {
  readonly sessions = new Map<string, Session>();
  readonly windows = new Map<string, Window>();
  private order = 0;

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
    private readonly starter: PaneStarter,
    private readonly defaultCwd: string,
  ) {}

  // ---- sessions ----

  createSession(opts: { name?: string; cwd?: string; term?: string; id?: string }): Session {
    if (this.sessions.size >= MAX_SESSIONS) {
      throw new TuiosError('limit_reached', `This daemon already holds ${MAX_SESSIONS} sessions.`, 'Close sessions you no longer need with kill-session.');
    }
    const name = opts.name ?? this.nextSessionName();
    checkName(name, 'session');
    if (this.sessionByName(name)) {
      throw new TuiosError('name_taken', `A session named "${name}" already exists.`, 'Pick another name, or attach to that session.');
    }
    const s = new Session(opts.id ?? newId(), name, ++this.order, opts.cwd ?? this.defaultCwd, opts.term);
    this.sessions.set(s.id, s);
    this.bus.publish('session-created', { session_id: s.id, name: s.name });
    return s;
  }

  renameSession(s: Session, name: string): void {
    checkName(name, 'session');
    const other = this.sessionByName(name);
    if (other && other !== s) {
      throw new TuiosError('name_taken', `A session named "${name}" already exists.`, 'Pick another name.');
    }
    const old = s.name;
    if (old === name) return;
    s.name = name;
    this.bus.publish('session-renamed', { session_id: s.id, name, old_name: old });
  }

  killSession(s: Session): void {
    for (const w of this.windowsOf(s)) this.closeWindow(w, { keepSession: true });
    this.sessions.delete(s.id);
    this.bus.publish('session-closed', { session_id: s.id, name: s.name });
  }

  sessionByName(name: string): Session | undefined {
    for (const s of this.sessions.values()) if (s.name === name) return s;
    return undefined;
  }

  /** A session by id, id prefix or name. */
  findSession(ref: string): Session {
    const byId = this.sessions.get(ref);
    if (byId) return byId;
    const byName = this.sessionByName(ref);
    if (byName) return byName;
    if (ID_PREFIX_RE.test(ref)) {
      const hits = [...this.sessions.values()].filter((s) => s.id.startsWith(ref));
      if (hits.length === 1) return hits[0]!;
      if (hits.length > 1) {
        throw new TuiosError('ambiguous_target', `The id prefix ${ref} matches ${hits.length} sessions.`, 'Give more digits of the id.');
      }
    }
    throw new TuiosError('session_not_found', `There is no session "${ref}".`, 'List them with: tuios list-sessions');
  }

  /** The session used when a caller names none: the most recently active one. */
  mostRecentSession(): Session | undefined {
    let best: Session | undefined;
    for (const s of this.sessions.values()) if (!best || s.lastActiveAt >= best.lastActiveAt) best = s;
    return best;
  }

  touch(s: Session): void {
    s.lastActiveAt = Date.now();
  }

  private nextSessionName(): string {
    for (let i = 0; ; i++) if (!this.sessionByName(String(i))) return String(i);
  }

  // ---- windows ----

  windowsOf(s: Session): Window[] {
    return [...this.windows.values()].filter((w) => w.sessionId === s.id).sort((a, b) => a.order - b.order);
  }

  sessionOf(w: Window): Session {
    const s = this.sessions.get(w.sessionId);
    if (!s) throw new TuiosError('session_not_found', `The window ${w.shortId} has no session.`);
    return s;
  }

  createWindow(s: Session, spec: NewWindowSpec): Window {
    if (this.windows.size >= MAX_WINDOWS) {
      throw new TuiosError('limit_reached', `This daemon already holds ${MAX_WINDOWS} windows.`, 'Close windows you no longer need with close-window.');
    }
    if (spec.name !== undefined) checkName(spec.name, 'window');
    const prepared = this.starter.prepare(s, spec);
    const workspace = spec.workspace ?? s.activeWorkspace;
    checkWorkspace(workspace);
    const id = spec.id && FULL_ID_RE.test(spec.id) && !this.windows.has(spec.id) ? spec.id : newId();
    const { env, ...init } = prepared;
    const w = new Window({ ...init, id, sessionId: s.id, workspace, order: ++this.order, paneToken: newToken() });
    // Grants are in force before the pane's process starts.
    if (spec.grants) w.attrs.set('grants', spec.grants);
    // The workspace is a tab before the process starts: HERDR_TAB_ID names its number.
    this.syncTabs(s, workspace);
    this.starter.start(w, s, env);
    this.windows.set(w.id, w);
    if (!s.focused.has(workspace)) s.focused.set(workspace, w.id);
    this.bus.publish('window-created', { window_id: w.id, session_id: s.id, name: w.name });
    return w;
  }

  /** Called by the starter when a window's process exits. The window stays until closed. */
  windowExited(w: Window, st: ExitStatus): void {
    if (w.closed) return;
    this.bus.publish('window-exit', { window_id: w.id, session_id: w.sessionId, exit_code: st.code, signal: st.signal });
  }

  /**
   * A window's title changed. Titles that turn a spinner (Codex and Claude Code redraw theirs
   * about ten times a second) would flood subscribers and linked peers with one event per frame,
   * so retitles are coalesced per window: at most one event per `retitleIntervalMs`, always the
   * latest title, and the last one is never lost (a trailing event carries it). A title equal to
   * the last one published goes out as nothing. What the detector reads is the window's own title
   * (Window.title, the emulator's), which is current whatever went out.
   */
  windowRetitled(w: Window, title: string): void {
    if (w.closed) return;
    let st = this.retitles.get(w.id);
    if (!st) this.retitles.set(w.id, (st = { published: null, at: 0, pending: null, timer: null }));
    if (st.timer) {
      st.pending = title;
      return;
    }
    if (title === st.published) return;
    const now = Date.now();
    const wait = st.at + this.retitleIntervalMs - now;
    if (wait <= 0) return this.publishRetitle(w, st, title, now);
    st.pending = title;
    st.timer = setTimeout(() => {
      st.timer = null;
      const t = st.pending;
      st.pending = null;
      if (t !== null && t !== st.published && !w.closed) this.publishRetitle(w, st, t, Date.now());
    }, wait);
    st.timer.unref?.();
  }

  /** The least time between two window-retitled events of one window (ms). */
  retitleIntervalMs = RETITLE_INTERVAL_MS;
  private readonly retitles = new Map<string, RetitleState>();

  private publishRetitle(w: Window, st: RetitleState, title: string, now: number): void {
    st.published = title;
    st.at = now;
    this.bus.publish('window-retitled', { window_id: w.id, session_id: w.sessionId, title });
  }

  private forgetRetitles(id: string): void {
    const st = this.retitles.get(id);
    if (st?.timer) clearTimeout(st.timer);
    this.retitles.delete(id);
  }

  renameWindow(w: Window, name: string): void {
    checkName(name, 'window');
    const old = w.name;
    if (old === name) return;
    w.name = name;
    this.bus.publish('window-renamed', { window_id: w.id, session_id: w.sessionId, name, old_name: old });
  }

  resizeWindow(w: Window, cols: number, rows: number): void {
    if (w.cols === cols && w.rows === rows) return;
    w.resize(cols, rows);
    this.bus.publish('window-resized', { window_id: w.id, session_id: w.sessionId, cols, rows });
  }

  focusWindow(w: Window): void {
    const s = this.sessionOf(w);
    s.focused.set(w.workspace, w.id);
    this.bus.publish('window-focused', { window_id: w.id, session_id: s.id, workspace: w.workspace });
  }

  switchWorkspace(s: Session, n: number): void {
    checkWorkspace(n);
    if (s.activeWorkspace === n) return;
    s.activeWorkspace = n;
    this.syncTabs(s);
    this.bus.publish('workspace-switched', { session_id: s.id, workspace: n });
  }

  // ---- workspaces as tabs: names, order, moving windows (spec: How tuios maps onto herdr) ----

  /** The workspaces that hold a window; `plus` counts as holding one (a window being made). */
  occupiedWorkspaces(s: Session, plus?: number): Set<number> {
    const set = new Set(this.windowsOf(s).map((w) => w.workspace));
    if (plus !== undefined) set.add(plus);
    return set;
  }

  syncTabs(s: Session, plus?: number): void {
    s.tabs.sync(this.occupiedWorkspaces(s, plus), s.activeWorkspace);
  }

  /** Names a workspace (a tab); null or '' clears the name. */
  setWorkspaceName(s: Session, workspace: number, name: string | null): void {
    checkWorkspace(workspace);
    const next = name === '' ? null : name;
    if (next !== null) checkName(next, 'window');
    const old = s.tabs.nameOf(workspace);
    if (old === next) return;
    s.tabs.setName(workspace, next);
    this.syncTabs(s);
    this.bus.publish('workspace-renamed', { session_id: s.id, workspace, tab: s.tabs.numberOf(workspace) ?? workspace, name: next, old_name: old });
  }

  /**
   * Puts a session's tabs in a new order (their tab numbers, every tab once): the tabs take the
   * workspace numbers they hold between them. Windows, focus, layouts and the shown workspace go
   * with their workspace; every tab keeps its number and name.
   */
  reorderWorkspaces(s: Session, order: number[]): Array<{ from: number; to: number; tab: number }> {
    const moves = s.tabs.reorder(order);
    if (moves.size === 0) return [];
    for (const w of this.windowsOf(s)) {
      const to = moves.get(w.workspace);
      if (to !== undefined) w.workspace = to;
    }
    renumber(s.focused, moves);
    renumber(s.layouts, moves);
    s.activeWorkspace = moves.get(s.activeWorkspace) ?? s.activeWorkspace;
    const told = [...moves].map(([from, to]) => ({ from, to, tab: s.tabs.numberOf(to)! }));
    this.bus.publish('workspaces-reordered', { session_id: s.id, moves: told });
    return told;
  }

  /**
   * Moves a window to a workspace of its session or of another, its process running on. A
   * workspace it leaves empty stops being a tab; a session it leaves empty closes, as when its
   * last window closes. The caller refuses what cannot move (a window on another machine).
   */
  moveWindow(w: Window, to: Session, workspace: number): void {
    checkWorkspace(workspace);
    const from = this.sessionOf(w);
    const fromWs = w.workspace;
    if (from === to && fromWs === workspace) return;
    w.sessionId = to.id;
    w.workspace = workspace;
    // Focus: the source workspace focuses another of its windows; the target keeps its own.
    if (from.focused.get(fromWs) === w.id) {
      const next = this.windowsOf(from).find((o) => o.workspace === fromWs);
      if (next) from.focused.set(fromWs, next.id);
      else from.focused.delete(fromWs);
    }
    if (!to.focused.has(workspace)) to.focused.set(workspace, w.id);
    if (!this.windowsOf(from).some((o) => o.workspace === fromWs)) from.tabs.emptied(fromWs);
    this.syncTabs(from);
    if (to !== from) this.syncTabs(to);
    this.bus.publish('window-moved', { window_id: w.id, session_id: to.id, workspace, from_session_id: from.id, from_workspace: fromWs });
    if (from !== to && this.windowsOf(from).length === 0) {
      this.sessions.delete(from.id);
      this.bus.publish('session-closed', { session_id: from.id, name: from.name });
    }
  }

  /** Closes a window; the last window of a session takes the session with it, as in tmux. */
  closeWindow(w: Window, opts: { keepSession?: boolean } = {}): void {
    if (!this.windows.has(w.id)) return;
    this.windows.delete(w.id);
    const s = this.sessions.get(w.sessionId);
    if (s) {
      for (const [ws, id] of s.focused) {
        if (id !== w.id) continue;
        const next = this.windowsOf(s).find((o) => o.workspace === ws);
        if (next) s.focused.set(ws, next.id);
        else s.focused.delete(ws);
      }
      // A tab whose last pane closes goes, and its workspace loses its name.
      if (!this.windowsOf(s).some((o) => o.workspace === w.workspace)) s.tabs.emptied(w.workspace);
      this.syncTabs(s);
    }
    w.dispose();
    this.forgetRetitles(w.id);
    this.bus.publish('window-closed', { window_id: w.id, session_id: w.sessionId, name: w.name });
    if (s && !opts.keepSession && this.windowsOf(s).length === 0) {
      this.sessions.delete(s.id);
      this.bus.publish('session-closed', { session_id: s.id, name: s.name });
    }
  }

  /**
   * A window by full id, id prefix (6+ hex digits), `SESSION:NAME`, or name. A name is looked up
   * in `scope` when given, else across every session; two matches are an error, never a guess.
   */
  findWindow(ref: string, scope?: Session): Window {
    const exact = this.windows.get(ref);
    if (exact) return exact;
    if (ID_PREFIX_RE.test(ref)) {
      const hits = [...this.windows.values()].filter((w) => w.id.startsWith(ref));
      if (hits.length === 1) return hits[0]!;
      if (hits.length > 1) {
        throw new TuiosError('ambiguous_target', `The id prefix ${ref} matches ${hits.length} windows.`, 'Give more digits of the id.');
      }
    }
    let name = ref;
    let where = scope;
    const colon = ref.indexOf(':');
    if (colon > 0 && ref.indexOf(':', colon + 1) < 0) {
      where = this.findSession(ref.slice(0, colon));
      name = ref.slice(colon + 1);
    }
    const pool = where ? this.windowsOf(where) : [...this.windows.values()];
    const hits = pool.filter((w) => w.name === name);
    if (hits.length === 1) return hits[0]!;
    if (hits.length > 1) {
      throw new TuiosError('ambiguous_target', `${hits.length} windows are named "${name}".`, 'Name the session with -s, or use the window id from list-windows.');
    }
    throw new TuiosError('window_not_found', `There is no window "${ref}"${where ? ` in session ${where.name}` : ''}.`, 'List them with: tuios list-windows');
  }

  /** The focused window of a session's active workspace, else its first window. */
  focusedWindow(s: Session): Window | undefined {
    const id = s.focused.get(s.activeWorkspace);
    const w = id ? this.windows.get(id) : undefined;
    return w ?? this.windowsOf(s).find((o) => o.workspace === s.activeWorkspace) ?? this.windowsOf(s)[0];
  }

  dispose(): void {
    for (const w of this.windows.values()) w.dispose();
    this.windows.clear();
    this.sessions.clear();
    this.log.debug('model disposed');
  }
}

export function checkWorkspace(n: number): void {
  if (!(Number.isInteger(n) && n >= 1 && n <= WORKSPACES)) {
    throw new TuiosError('invalid_params', `Workspace ${n} does not exist; workspaces are numbered 1 to ${WORKSPACES}.`, undefined, { field: 'workspace' });
  }
}

export function checkName(name: string, what: 'session' | 'window'): void {
  if (name.length === 0) throw new TuiosError('invalid_params', `A ${what} name cannot be empty.`, undefined, { field: 'name' });
  if (Buffer.byteLength(name) > 128) {
    throw new TuiosError('invalid_params', `A ${what} name is at most 128 bytes.`, undefined, { field: 'name' });
  }
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(name)) {
    throw new TuiosError('invalid_params', `A ${what} name cannot hold control characters.`, undefined, { field: 'name' });
  }
  if (what === 'session' && name.includes(':')) {
    throw new TuiosError('invalid_params', 'A session name cannot hold ":", which separates a host, a session and a window.', undefined, { field: 'name' });
  }
}
