// One TUI instance per attached client, running inside the daemon and drawing into a byte
// stream. It composes a frame (tiles, rail, status line, overlays) into the canvas and sends
// what changed, at most one frame per FRAME_INTERVAL_MS and none while the client is behind.
// Keys reach the focused pane unchanged unless they are ours (the prefix, Alt+arrows).
// Every entry point is guarded: a TUI that throws closes its own client, never the daemon.
import type { Services } from '../core/daemon/services.js';
import type { Window } from '../core/model/window.js';
import type { Session } from '../core/model/model.js';
import type { BusEvent } from '../core/bus.js';
import type { TuiOptions } from '../core/verbs/tui.js';
import { enforce, readableSessions, readsEverySession } from '../core/security/access.js';
import { MIN_COLS } from '../core/limits.js';
import { openStreamTerminal, type StreamTerminal } from './terminal.js';
import { Canvas, attr, roleAttr, A_BOLD, A_INVERSE, PLAIN } from './canvas.js';
import { KeyReader, type Token } from './keys.js';
import { dispatchKey } from './key-table.js';
import { CONFIRM_KEYS, GLOBAL_KEYS, PREFIX_KEYS, type AppKeyState, type AppKeyTarget } from './app-keys.js';
import { LocalSource, type ScreenSource } from './source.js';
import { layoutOf, reconcile, tile, neighbour, splitLeaf, placeLeaf, type Direction, type Dir } from './layout.js';
import { contentRect, drawContent, drawFrame } from './tiles.js';
import { drawRail, type RailSession } from './rail.js';
import { agentRows, hostAgentRow, hostRailRow, needsYouRow, type AgentRow } from './rows.js';
import { RemotePaneView } from './remote-pane.js';
import { stateMark } from './marks.js';
import { Dock } from './alerts.js';
import { Acts } from './acts.js';
import { NO_MODES, encodeMouse, modeChange, modesFrom, type ClientModes } from './client-modes.js';
import type { Overlay, TuiHost } from './overlay.js';
import { HelpOverlay } from './help.js';
import { SessionSwitcher } from './switcher.js';
import { AgentsView, newAgentsViewMemory } from './agents-view.js';
import { MailboxView, newMailboxMemory } from './mailbox.js';
import { sessionMark } from './session-mark.js';
import { readAgentsSeen, rememberAgentsSeen } from './rail-state.js';
import { clean, fit, textWidth } from './text.js';
import { RowMemo, type Rect } from './pane-draw.js';
import { AGE_TICK_MS, ECHO_FRAME_GAP_MS, ECHO_WINDOW_MS, FRAME_INTERVAL_MS, MAX_CLIENT_BACKLOG_BYTES, MAX_INPUT_BYTES, RAIL_MIN_TERMINAL_COLS, RAIL_WIDTH, WALK_AGAIN_MS } from './limits.js';

/** The word an alert names a state by: the kind of block for an approval or a question. */
function alertState(state: string, kind: string | null | undefined): string {
  return state === 'needs_input' && (kind === 'approval' || kind === 'question') ? kind : state;
}
/** The session attribute naming the client whose tiles size the panes. */
const SIZE_OWNER = 'tui.size-owner';
const ENTER_SCREEN = '\x1b[?1049h\x1b[H\x1b[2J\x1b[?25l';
const LEAVE_SCREEN = '\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?9l\x1b[?1006l\x1b[?2004l\x1b[?1l\x1b>\x1b[0m\x1b[?25h\x1b[?1049l';
/** Bus events that change nothing this client draws. */
/** Frame stats: CPU is sampled on one frame in this many and counted for all of them. */
const CPU_SAMPLE_EVERY = 8;
/** What onToken returns for a key that only went to the focused pane. */
const TO_PANE = 'to-pane' as const;
const QUIET_EVENTS = new Set(['notification', 'window-output']);

export interface FrameStats {
  frames: number;
  cells: number;
  bytes: number;
  /** CPU the process spent while frames were composed and sent, in ms (all its threads). */
  cpuMs: number;
  /** Wall time of composing and sending frames, in ms (the frame is synchronous). */
  wallMs: number;
  /** Frames that drew pane output alone (see panesOnly). */
  paneFrames: number;
}

export class Tui implements TuiHost {
  readonly svc: Services;
  readonly acts: Acts;
  readonly dock: Dock;
  readonly ascii: boolean;
  sessionId: string;
  agentsSeen: boolean;
  readonly stats: FrameStats = { frames: 0, cells: 0, bytes: 0, cpuMs: 0, wallMs: 0, paneFrames: 0 };

  private cols: number;
  private rows: number;
  private readonly term: StreamTerminal;
  private readonly canvas: Canvas;
  private readonly keys = new KeyReader();
  private out: string[] = [];
  private readonly sources = new Map<string, LocalSource>();
  private readonly watched = new Map<string, { dispose(): void }>();
  private readonly paneDrawn = new Map<string, string>();
  /** Each tile's border as last drawn (see drawTiles): an unchanged one is not drawn again. */
  private readonly borderDrawn = new Map<string, string>();
  private readonly rowMemos = new Map<string, { epoch: number; memo: RowMemo }>();
  private epoch = 0;
  private overlay: Overlay | null = null;
  private prefix = false;
  private confirm: { text: string; yes: () => void } | null = null;
  private modes: ClientModes = NO_MODES;
  private cursorShown: string | null = null;
  private frameTimer: { cancel(): void } | null = null;
  private lastFrameAt = 0;
  /** When a key last went to a pane, until its echo's frame is drawn (0: no echo awaited). */
  private keyAt = 0;
  /** When the last frame drawn out of the pacing for an echo was. */
  private lastEchoAt = 0;
  /** Something but pane output asked for a frame since the last full one (see panesOnly). */
  private structureChanged = true;
  /** What the last full frame was drawn from (see panesOnly). */
  private drawnFrom: { session: Session; workspace: number; layout: object; zoomed: string | null; focused: string | null; second: number } | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly subs: Array<{ dispose(): void }> = [];
  private rowsCache: AgentRow[] | null = null;
  private hostRowsCache: AgentRow[] | null = null;
  private readonly agentsMemory = newAgentsViewMemory();
  private readonly mailMemory = newMailboxMemory();
  private readonly seenSent = new Map<string, number>();
  private walk: { kind: 'o' | 'O'; ids: string[]; at: number } | null = null;
  private tiles = new Map<string, Rect>();
  private closed = false;
  private readonly visibleFn: (id: string) => boolean;

  constructor(private readonly o: TuiOptions) {
    this.svc = o.svc;
    this.sessionId = o.sessionId;
    this.cols = o.cols;
    this.rows = o.rows;
    this.ascii = o.ascii || o.svc.config.current.appearance?.glyphs === 'ascii';
    this.acts = new Acts(o.svc, o.caller, o.client.nonce);
    this.visibleFn = readableSessions(o.svc, o.caller);
    this.agentsSeen = readAgentsSeen(o.svc);
    this.dock = new Dock(() => this.ascii, {
      changed: () => this.redraw(),
      notify: (seq) => {
        this.out.push(seq);
        this.redraw();
      },
    });
    this.term = openStreamTerminal(o.cols, o.rows, (s) => this.out.push(s));
    this.canvas = new Canvas(this.term.term, o.cols, o.rows);
    this.out.push(ENTER_SCREEN);
    this.claimSizes();
    this.subs.push(this.svc.bus.subscribe((ev) => this.guard('event', () => this.onEvent(ev))));
    if (!o.client.nonce) this.dock.say('Attached from inside a pane: this client cannot answer or dismiss as you.');
    this.redraw();
  }

  // ---- guarded entry points ----

  /** Runs `fn`; a throw closes this client (logged), and nothing else. */
  guard(where: string, fn: () => void): void {
    if (this.closed) return;
    try {
      fn();
    } catch (e) {
      this.svc.log.error('tui failed; closing its client', { where, client: this.o.client.id, error: e instanceof Error ? e.stack : String(e) });
      this.close('the client hit an internal error (see the daemon log)');
    }
  }

  input(bytes: Buffer): void {
    this.guard('input', () => {
      this.claimSizes();
      // Keys that only went to the pane change nothing here until it answers, and its output
      // asks for the frame: a frame now would only delay the echo.
      let changed = false;
      let toPane = false;
      for (let i = 0; i < bytes.length; i += MAX_INPUT_BYTES) {
        for (const tok of this.keys.push(bytes.subarray(i, i + MAX_INPUT_BYTES))) {
          if (this.onToken(tok) !== TO_PANE) changed = true;
          else toPane = true;
        }
      }
      if (toPane) this.keyAt = Date.now();
      if (changed) this.redraw();
    });
  }

  resize(cols: number, rows: number): void {
    this.guard('resize', () => {
      if (cols === this.cols && rows === this.rows) return;
      this.cols = cols;
      this.rows = rows;
      this.claimSizes();
      this.term.resize(cols, rows);
      this.canvas.resize(cols, rows);
      this.out.push('\x1b[H\x1b[2J');
      this.invalidate();
      this.redraw();
    });
  }

  close(reason: string): void {
    if (this.closed) return;
    try {
      this.flush(LEAVE_SCREEN);
    } catch (e) {
      // The stream that failed may fail again: the client closes all the same.
      this.svc.log.debug('tui could not leave the screen', { client: this.o.client.id, error: String(e) });
    }
    this.dispose();
    this.o.onClose(reason);
  }

  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.frameTimer?.cancel();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const s of this.subs) s.dispose();
    for (const s of this.watched.values()) s.dispose();
    this.watched.clear();
    for (const s of this.sources.values()) s.dispose();
    this.sources.clear();
    this.overlay?.dispose?.();
    this.dock.dispose();
    this.term.dispose();
  }

  // ---- the host side overlays see ----

  visible(sessionId: string): boolean {
    return this.visibleFn(sessionId);
  }

  /** Work that finishes later (a verb call): a failure in it closes this client, as a throw does. */
  track(work: unknown): void {
    if (!(work instanceof Promise)) return;
    work.catch((e: unknown) => this.guard('async', () => {
      throw e;
    }));
  }

  later(ms: number, fn: () => void): void {
    if (this.closed) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.guard('timer', fn);
    }, ms);
    t.unref();
    this.timers.add(t);
  }

  /** A frame soon: at once when due, else when the pacing allows. `output`: asked by a pane's
   *  output, which is parsed already, so a due frame runs as soon as this callback returns. */
  redraw(output = false): void {
    if (this.closed) return;
    if (!output) this.structureChanged = true;
    const now = Date.now();
    // The first output after a key that went to the pane is taken as its echo, and drawn now
    // rather than when the pacing would allow: a key typed within FRAME_INTERVAL_MS of the last
    // frame (a person typing at 30 keys a second) would otherwise wait for the timer. One such
    // frame per key, and no closer than ECHO_FRAME_GAP_MS, so a flood still gets the cap.
    const echo = output && this.keyAt > 0 && now - this.keyAt <= ECHO_WINDOW_MS && now - this.lastEchoAt >= ECHO_FRAME_GAP_MS;
    if (this.frameTimer && !echo) return;
    this.frameTimer?.cancel();
    this.frameTimer = null;
    if (echo) {
      this.keyAt = 0;
      this.lastEchoAt = now;
    }
    const wait = echo ? 0 : Math.max(0, this.lastFrameAt + FRAME_INTERVAL_MS - now);
    const run = () => {
      this.frameTimer = null;
      this.guard('frame', () => this.frame());
    };
    // A typed key's echo: another turn of the event loop would only delay it.
    if (wait === 0 && output) {
      let live = true;
      queueMicrotask(() => {
        if (live) run();
      });
      this.frameTimer = { cancel: () => (live = false) };
      return;
    }
    // Due now: after this turn's other events (they share the frame), without a timer's extra
    // millisecond, which a typed key's echo would wait for.
    if (wait === 0) {
      const im = setImmediate(run);
      this.frameTimer = { cancel: () => clearImmediate(im) };
    } else {
      const t = setTimeout(run, wait);
      t.unref();
      this.frameTimer = { cancel: () => clearTimeout(t) };
    }
  }

  closeOverlay(): void {
    this.overlay?.dispose?.();
    this.overlay = null;
    this.invalidate();
    this.redraw();
  }

  private openOverlay(o: Overlay): void {
    this.overlay?.dispose?.();
    this.overlay = o;
    this.invalidate();
    this.redraw();
  }

  openHelp(section?: 'agents'): void {
    this.openOverlay(new HelpOverlay(this, section === 'agents'));
  }

  openAgents(select?: string, opts: { mail?: boolean } = {}): void {
    const hostItems = () => (this.svc.remote && readsEverySession(this.svc, this.o.caller) ? this.svc.remote.itemRows() : []);
    this.openOverlay(new AgentsView(this, this.agentsMemory, () => [...this.agentRows(), ...this.hostRows()], { select, hostItems, mail: opts.mail }));
  }

  openMailbox(opts: { thread?: number; reply?: boolean; fromAgents?: boolean } = {}): void {
    this.openOverlay(new MailboxView(this, this.mailMemory, () => this.agentRows(), { thread: opts.thread, reply: opts.reply, back: opts.fromAgents ? () => this.openAgents() : undefined }));
  }

  openRemotePane(row: AgentRow): void {
    if (!row.host || !this.svc.remote) return this.dock.say('This row has no pane to go to.');
    // The replica takes the pane's own size from the stream; until then, the screen's.
    this.openOverlay(new RemotePaneView(this, row, { cols: this.cols, rows: Math.max(1, this.rows - 2) }));
  }

  goToWindow(w: Window, opts: { zoom?: boolean } = {}): void {
    if (w.closed) return;
    if (w.sessionId !== this.sessionId && !this.switchSession(w.sessionId)) return;
    const s = this.session();
    if (!s) return;
    this.svc.model.switchWorkspace(s, w.workspace);
    this.focus(w);
    if (opts.zoom) layoutOf(s, w.workspace).zoomed = w.id;
    this.invalidate();
    this.redraw();
  }

  switchSession(id: string): boolean {
    if (id === this.sessionId) return true;
    const s = this.svc.model.sessions.get(id);
    if (!s || !this.visible(id)) return false;
    if (this.o.client.inside) {
      try {
        const own = this.svc.callerPane(this.o.caller);
        if (own && own.sessionId === id) throw new Error('its own session');
        enforce(this.svc, this.o.caller, { verb: 'attach', access: 'write', target: null, sessionId: id });
      } catch (e) {
        this.dock.say(`Not shown: ${e instanceof Error ? e.message : String(e)}`);
        return false;
      }
    }
    this.sessionId = id;
    this.o.client.sessionId = id;
    this.claimSizes();
    this.svc.model.touch(s);
    this.invalidate();
    this.redraw();
    return true;
  }

  // ---- events ----

  private onEvent(ev: BusEvent): void {
    if (QUIET_EVENTS.has(ev.type)) return;
    this.rowsCache = null;
    this.hostRowsCache = null;
    switch (ev.type) {
      case 'session-closed':
        if (ev.session_id === this.sessionId) return this.close('the session ended');
        break;
      case 'agent-state':
        this.onAgentState(ev);
        break;
      case 'attention':
        if (ev.op === 'open') this.onArrival(ev.item);
        break;
      case 'host-agent-state':
        this.onHostAgentState(ev);
        break;
    }
    this.redraw();
  }

  private onAgentState(ev: BusEvent<'agent-state'>): void {
    if (ev.state !== 'none' || ev.harness) this.seeAgents();
    if (ev.session_id !== this.sessionId || ev.state === ev.old_state) return;
    const focused = this.focusedWindow();
    const looking = !this.overlay && focused?.id === ev.window_id;
    if (!(ev.state === 'needs_input' || ev.state === 'errored' || (ev.state === 'done' && ev.old_state === 'working'))) return;
    if (looking) return;
    this.dock.alert({ windowId: ev.window_id, session: clean(this.session()?.name ?? ''), who: clean(ev.harness ?? ev.name), state: alertState(ev.state, ev.kind), what: clean(ev.message), needsYou: ev.state !== 'done' });
  }

  /** A linked host's agent that starts to need you: the same dock message, naming the machine; none from a down link. */
  private onHostAgentState(ev: BusEvent<'host-agent-state'>): void {
    if (ev.gone || ev.state === ev.old_state || (ev.state !== 'needs_input' && ev.state !== 'errored')) return;
    if (!readsEverySession(this.svc, this.o.caller)) return;
    const row = this.svc.remote?.agentRows().find((r) => r.host === ev.host && r.window_id === ev.window_id);
    if (!row || row.down) return;
    this.dock.alert({ windowId: null, session: clean(`${ev.host}:${ev.session}`), who: clean(ev.harness ?? ev.name), state: alertState(ev.state, ev.kind), what: clean(ev.message), needsYou: true });
  }

  /** Inbox arrivals: other sessions' items (this session's states alert from the state sync), and asks and mail here. */
  private onArrival(item: BusEvent<'attention'>['item']): void {
    this.seeAgents();
    if (item.session_id && !this.visible(item.session_id)) return;
    const ours = item.session_id === this.sessionId;
    if (ours && item.kind !== 'ask' && item.kind !== 'mail') return;
    if (!['approval', 'question', 'ask', 'mail', 'errored', 'done', 'plan'].includes(item.kind)) return;
    this.dock.alert({ windowId: item.window_id, session: clean(item.session ?? 'tuios'), who: clean(item.harness ?? item.name ?? 'an agent'), state: item.kind, what: clean(item.summary), needsYou: item.kind !== 'done' });
  }

  private seeAgents(): void {
    if (this.agentsSeen) return;
    this.agentsSeen = true;
    rememberAgentsSeen(this.svc);
  }

  agentRows(): AgentRow[] {
    this.rowsCache ??= agentRows(this.svc, (id) => this.visible(id));
    return this.rowsCache;
  }

  /** Linked hosts' agents, for a client that may read every session here (as list-agents --all-hosts). */
  private hostRows(): AgentRow[] {
    if (!this.svc.remote || !readsEverySession(this.svc, this.o.caller)) return [];
    this.hostRowsCache ??= this.svc.remote.agentRows().map((r, i) => hostAgentRow(r, i));
    return this.hostRowsCache;
  }

  // ---- keys ----

  /** Handles one key, paste or mouse report; TO_PANE when all it did was write to the pane. */
  private onToken(tok: Token): typeof TO_PANE | void {
    const st: AppKeyState = { overlay: this.overlay !== null, agentsSeen: this.agentsSeen };
    if (this.confirm) {
      const c = this.confirm;
      this.confirm = null;
      dispatchKey(CONFIRM_KEYS, null, { yes: c.yes, no: () => this.dock.say('Nothing was closed.') }, tok);
      return;
    }
    if (this.prefix) {
      this.prefix = false;
      if (tok.t === 'key') dispatchKey(PREFIX_KEYS, st, this.keyTarget, tok);
      return;
    }
    if (dispatchKey(GLOBAL_KEYS, st, this.keyTarget, tok).ran) return;
    if (this.overlay) return this.overlay.key(tok);
    const w = this.focusedWindow();
    if (!w) return;
    if (tok.t === 'mouse') return this.onMouse(tok, w);
    if (tok.t === 'paste') {
      w.write(this.source(w).modes().bracketedPaste ? tok.raw : tok.text);
      return TO_PANE;
    }
    w.write(tok.raw);
    return TO_PANE;
  }

  /** What the TUI's own keys act on (app-keys.ts). */
  private readonly keyTarget: AppKeyTarget = {
    moveFocus: (d) => this.moveFocus(d),
    switchWorkspace: (n) => this.switchWorkspace(n),
    stepWorkspace: (d) => this.stepWorkspace(d),
    openWindow: (split) => this.track(this.newWindow(split)),
    askClose: () => this.askClose(),
    toggleZoom: () => this.toggleZoom(),
    openSwitcher: () => this.openOverlay(new SessionSwitcher(this)),
    openHelp: () => this.openHelp(),
    detach: () => this.close('detached'),
    closeOverlay: () => this.closeOverlay(),
    openAgents: (select, opts) => this.openAgents(select, opts),
    walkNeedsYou: () => this.walkNeedsYou(),
    walkFinished: () => this.walkFinished(),
    armPrefix: () => {
      this.prefix = true;
    },
    sendPrefix: (tok) => {
      if (this.overlay?.paneModes) return this.overlay.key(tok);
      this.focusedWindow()?.write('\x02');
    },
    // A key the prefix does not bind reaches the pane as it always did (a linked host's too).
    unbound: (tok) => {
      if (this.overlay?.paneModes) this.overlay.key(tok);
      else if (!this.overlay) this.focusedWindow()?.write(tok.raw);
    },
  };

  private onMouse(tok: Extract<Token, { t: 'mouse' }>, w: Window): void {
    for (const [id, r] of this.tiles) {
      const c = contentRect(r);
      if (tok.x < c.x || tok.y < c.y || tok.x >= c.x + c.w || tok.y >= c.y + c.h) continue;
      if (id !== w.id) {
        // A press in another pane focuses it; the press is not passed on.
        const other = this.svc.model.windows.get(id);
        if (other && !tok.release && tok.button < 64) this.focus(other);
        return;
      }
      const m = this.source(w).modes();
      if (m.mouse === 'none') return;
      const seq = encodeMouse(tok.button, tok.x - c.x, tok.y - c.y, tok.release, m.mouseSgr);
      if (seq) w.write(seq);
      return;
    }
  }

  // ---- acts on the layout ----

  private session(): Session | undefined {
    return this.svc.model.sessions.get(this.sessionId);
  }

  focusedWindow(): Window | undefined {
    const s = this.session();
    if (!s) return undefined;
    const l = layoutOf(s, s.activeWorkspace);
    if (l.zoomed) {
      const z = this.svc.model.windows.get(l.zoomed);
      if (z) return z;
    }
    const w = this.svc.model.focusedWindow(s);
    return w && w.workspace === s.activeWorkspace ? w : undefined;
  }

  private focus(w: Window): void {
    this.svc.model.focusWindow(w);
    const s = this.session();
    const l = s ? layoutOf(s, w.workspace) : null;
    if (l?.zoomed && l.zoomed !== w.id) l.zoomed = null;
    this.markSeen(w);
    this.invalidate();
  }

  /** Looking at a pane that finished a turn is what marks it seen (and closes its Done item). */
  private markSeen(w: Window): void {
    // Focusing a pane whose prompt a hook holds ends the hold: the person answers it there.
    if (this.svc.holds.heldFor(w.id) && this.acts.canActAsPerson) void this.acts.call('release-approval', { window: w.id }, true);
    const info = this.svc.agents.info(w);
    if (!info.finished_unread || !this.acts.canActAsPerson) return;
    const seq = Number(info.completion_seq ?? 0);
    if (this.seenSent.get(w.id) === seq) return;
    this.seenSent.set(w.id, seq);
    // Quiet: the person did not ask for it, so a failure shows nothing.
    void this.acts.call('focus-window', { window: w.id }, true);
  }

  private moveFocus(d: Direction): void {
    const w = this.focusedWindow();
    if (!w) return;
    const next = neighbour(this.tiles, w.id, d);
    const target = next ? this.svc.model.windows.get(next) : undefined;
    if (target) this.focus(target);
  }

  private async newWindow(split: Dir | null): Promise<void> {
    const s = this.session();
    if (!s) return;
    const ws = s.activeWorkspace;
    const from = this.focusedWindow();
    const r = await this.acts.call<{ id: string }>('new-window', { session: s.id, workspace: ws });
    if (this.closed) return;
    if (!r.ok) return this.dock.say(`No new window: ${r.message}`);
    const w = this.svc.model.windows.get(r.value.id);
    if (!w) return;
    const l = layoutOf(s, ws);
    l.zoomed = null;
    l.root = split && from ? splitLeaf(l.root, from.id, w.id, split) : placeLeaf(l.root, w.id, this.bodyRect());
    this.focus(w);
    this.redraw();
  }

  private askClose(): void {
    const w = this.focusedWindow();
    if (!w) return;
    this.confirm = {
      text: `Close ${clean(w.name)} and end its program? y/n`,
      yes: () => {
        void this.acts.call('close-window', { window: w.id }).then((r) => {
          if (!r.ok) this.dock.say(`Not closed: ${r.message}`);
          this.redraw();
        });
      },
    };
  }

  private toggleZoom(): void {
    const s = this.session();
    const w = this.focusedWindow();
    if (!s || !w) return;
    const l = layoutOf(s, s.activeWorkspace);
    l.zoomed = l.zoomed ? null : w.id;
    this.invalidate();
  }

  private switchWorkspace(n: number): void {
    const s = this.session();
    if (!s) return;
    this.svc.model.switchWorkspace(s, n);
    this.invalidate();
  }

  private stepWorkspace(d: number): void {
    const s = this.session();
    if (!s) return;
    const used = [...new Set(this.svc.model.windowsOf(s).map((w) => w.workspace))].sort((a, b) => a - b);
    if (!used.includes(s.activeWorkspace)) used.push(s.activeWorkspace);
    used.sort((a, b) => a - b);
    const i = used.indexOf(s.activeWorkspace);
    this.switchWorkspace(used[(i + d + used.length) % used.length]!);
  }

  /** ctrl+b o: the oldest item that needs you; again, the next (an ask opens the agents view). */
  private walkNeedsYou(): void {
    const items = this.svc.inbox.list().filter((i) => ['approval', 'question', 'plan', 'ask', 'mail', 'errored', 'resume'].includes(i.kind) && (!i.session_id || this.visible(i.session_id)));
    // A linked host's agent that needs you is visited too, its pane opened here; a down host's is skipped.
    const hosts = this.hostRows().filter((r) => !r.down && needsYouRow(r));
    const stops = [...items.map((i) => ({ id: String(i.id), at: i.opened_at, item: i as typeof i | null, row: null as AgentRow | null })), ...hosts.map((r) => ({ id: r.id, at: r.stateSince, item: null, row: r }))].sort((a, b) => a.at - b.at);
    if (stops.length === 0) return this.dock.say('Nothing needs you.');
    const ids = stops.map((s) => s.id);
    const prev = this.walk?.kind === 'o' ? this.walk.ids : [];
    const nextIdx = prev.length ? (ids.indexOf(prev[prev.length - 1]!) + 1) % ids.length : 0;
    const stop = stops[nextIdx]!;
    this.walk = { kind: 'o', ids: [...prev, stop.id], at: Date.now() };
    if (stop.row) return this.openRemotePane(stop.row);
    const item = stop.item!;
    const w = item.window_id ? this.svc.model.windows.get(item.window_id) : undefined;
    if (item.kind === 'ask' || !w) return this.openAgents(w ? w.id : `item:${item.id}`);
    this.closeOverlay();
    this.goToWindow(w);
  }

  /** ctrl+b O: the newest finished turn not seen; again within 5 s, the next older one. */
  private walkFinished(): void {
    const rows = this.agentRows().filter((r) => r.finishedUnread).sort((a, b) => b.stateSince - a.stateSince);
    if (rows.length === 0) return this.dock.say('No finished turn waits to be seen.');
    const now = Date.now();
    const again = this.walk?.kind === 'O' && now - this.walk.at <= WALK_AGAIN_MS && this.walk.ids[0] === rows[0]!.id;
    const done = again ? this.walk!.ids : [];
    const row = rows.find((r) => !done.includes(r.id)) ?? rows[0]!;
    this.walk = { kind: 'O', ids: again ? [...done, row.id] : [row.id], at: now };
    this.closeOverlay();
    if (row.w) this.goToWindow(row.w);
  }

  // ---- frames ----

  private source(w: Window): ScreenSource {
    let s = this.sources.get(w.id);
    if (!s) {
      s = new LocalSource(w);
      this.sources.set(w.id, s);
    }
    return s;
  }

  /** The next frame repaints every pane (an overlay came or went, the layout or size changed). */
  private invalidate(): void {
    this.epoch++;
  }

  private frame(): void {
    if (this.closed) return;
    // A client that is behind gets no new frame until it has read; the next one covers both.
    if (this.o.pendingBytes() > MAX_CLIENT_BACKLOG_BYTES) {
      this.later(FRAME_INTERVAL_MS, () => this.redraw());
      return;
    }
    // CPU is read on one frame in CPU_SAMPLE_EVERY (getrusage costs a tenth of a small frame).
    const t0 = this.stats.frames % CPU_SAMPLE_EVERY === 0 ? process.cpuUsage() : null;
    const w0 = performance.now();
    const previousFrameAt = this.lastFrameAt;
    const bytes0 = this.stats.bytes;
    this.lastFrameAt = Date.now();
    const now = this.lastFrameAt;
    const s = this.session();
    if (!s) return this.close('the session ended');
    const cv = this.canvas;
    const full = !this.panesOnly(s, now);
    let focused: Window | undefined;
    let cursor: { x: number; y: number } | null = null;
    if (!full) {
      this.stats.paneFrames++;
      focused = this.drawnFrom!.focused === null ? undefined : this.svc.model.windows.get(this.drawnFrom!.focused);
      for (const [id, r] of this.tiles) {
        const w = this.svc.model.windows.get(id);
        if (w) this.drawPane(w, r);
      }
      if (focused) cursor = this.paneCursor(focused);
    } else {
      this.structureChanged = false;
      if (!this.agentsSeen && (this.agentRows().length > 0 || this.svc.inbox.list().length > 0)) this.seeAgents();
      const railW = this.railWidth();
      const railOn = railW > 0;
      const body = this.bodyRect();
      const ws = s.activeWorkspace;
      const layout = layoutOf(s, ws);
      const inWs = this.svc.model.windowsOf(s).filter((w) => w.workspace === ws);
      if (reconcile(layout, inWs.map((w) => w.id), body)) this.invalidate();
      this.tiles = layout.zoomed ? new Map([[layout.zoomed, body]]) : tile(layout.root, body);
      this.fitPanes();
      this.watch();
      focused = this.focusedWindow();
      if (focused && this.overlay === null) this.markSeen(focused);

      if (this.overlay?.fullScreen) {
        cursor = this.overlay.draw(cv, { x: 0, y: 0, w: this.cols, h: this.rows - 1 }, now);
      } else {
        this.drawTiles(focused, body);
        if (railOn) this.drawRailIfChanged(s, focused, { x: 0, y: 0, w: railW, h: this.rows - 1 }, now);
        if (this.overlay) cursor = this.overlay.draw(cv, body, now);
        else if (focused) cursor = this.paneCursor(focused);
      }
      this.drawStatus(s, now);
      this.drawnFrom = { session: s, workspace: ws, layout, zoomed: layout.zoomed, focused: focused?.id ?? null, second: Math.floor(now / 1000) };
    }
    const cells = cv.draw();
    this.placeCursor(cursor, cells > 0);
    const paneModes = this.overlay?.paneModes?.();
    const want = paneModes ? modesFrom(paneModes) : this.overlay ? { ...NO_MODES, bracketedPaste: true } : modesFrom(focused ? this.source(focused).modes() : null);
    const change = modeChange(this.modes, want);
    if (change) this.out.push(change);
    this.modes = want;
    this.bellPending = false;
    this.stats.frames++;
    this.stats.cells += cells;
    this.flush();
    // The pacing bounds what frames cost the client: a frame that sent nothing (a key that only
    // went to the pane) does not hold back the next one, which draws that key's echo at once.
    if (this.stats.bytes === bytes0) this.lastFrameAt = previousFrameAt;
    if (t0) {
      const dt = process.cpuUsage(t0);
      this.stats.cpuMs += ((dt.user + dt.system) / 1000) * CPU_SAMPLE_EVERY;
    }
    this.stats.wallMs += performance.now() - w0;
    if (!full) return;
    const dock = this.dock.current(now);
    if (dock && this.dockWake !== dock.until) {
      this.dockWake = dock.until;
      this.later(Math.max(50, dock.until - now), () => this.redraw());
    }
    // The ages on agent rows move on once a minute; while a row waits on you its wait moves on
    // when its figure does (every second under a minute). Nothing else polls.
    if (this.agentsSeen) this.scheduleAgeTick(now);
  }

  /**
   * The next redraw for the ages: when the soonest shown wait changes its figure, else in a
   * minute. A tick that is due sooner than the one pending replaces it; the rail redraws on it
   * because its key holds the second (drawRailIfChanged), and the rows are read again only on the
   * minute tick.
   */
  private scheduleAgeTick(now: number): void {
    let due = now + AGE_TICK_MS;
    let minute = true;
    for (const r of this.agentRows()) {
      if (!needsYouRow(r)) continue;
      const waited = Math.max(0, now - r.stateSince);
      const step = waited < 60_000 ? 1000 : waited < 3_600_000 ? 60_000 : 0;
      if (step === 0) continue;
      const at = now + step - (waited % step);
      if (at < due) {
        due = at;
        minute = false;
      }
    }
    if (this.ageTickAt !== 0 && this.ageTickAt <= due) return;
    this.ageTickAt = due;
    const gen = ++this.ageTickGen;
    this.later(Math.max(20, due - now), () => {
      if (gen !== this.ageTickGen) return;
      this.ageTickAt = 0;
      this.ageDrawn++;
      this.structureChanged = true;
      if (minute) {
        this.rowsCache = null;
        this.hostRowsCache = null;
      }
      this.redraw();
    });
  }

  private flush(extra = ''): void {
    if (extra) this.out.push(extra);
    if (this.out.length === 0) return;
    const data = this.out.join('');
    this.out = [];
    this.stats.bytes += Buffer.byteLength(data);
    this.o.write(data);
  }

  private railWidth(): number {
    return this.svc.config.current.appearance?.sidebar?.enabled !== false && this.cols >= RAIL_MIN_TERMINAL_COLS ? RAIL_WIDTH : 0;
  }

  /** Where the tiles go: right of the rail, above the status line. */
  private bodyRect(): Rect {
    const railW = this.railWidth();
    return { x: railW, y: 0, w: this.cols - railW, h: this.rows - 1 };
  }

  /**
   * The client that sizes a session's panes: the one the person used last (attached, resized or
   * typed). Two clients of different sizes would otherwise resize every pane on every frame.
   */
  private claimSizes(): void {
    this.session()?.attrs.set(SIZE_OWNER, this.o.client.id);
  }

  private ownsSizes(s: Session): boolean {
    const owner = s.attrs.get(SIZE_OWNER);
    if (owner === this.o.client.id) return true;
    if (typeof owner === 'number' && this.svc.person.list().some((c) => c.id === owner)) return false;
    s.attrs.set(SIZE_OWNER, this.o.client.id);
    return true;
  }

  /** Each pane takes its tile's inside (resize-window, so the program redraws to fit). */
  private fitPanes(): void {
    const s = this.session();
    if (!s || !this.ownsSizes(s)) return;
    for (const [id, r] of this.tiles) {
      const w = this.svc.model.windows.get(id);
      if (!w || w.closed) continue;
      const c = contentRect(r);
      const cols = Math.max(MIN_COLS, c.w);
      const rows = Math.max(1, c.h);
      if (w.cols !== cols || w.rows !== rows) this.svc.model.resizeWindow(w, cols, rows);
    }
  }

  /** A frame follows the output of the panes on screen, and only those. */
  private watch(): void {
    for (const [id, d] of this.watched) {
      if (!this.tiles.has(id)) {
        d.dispose();
        this.watched.delete(id);
        this.sources.get(id)?.dispose();
        this.sources.delete(id);
        this.paneDrawn.delete(id);
        this.borderDrawn.delete(id);
        this.rowMemos.delete(id);
      }
    }
    for (const id of this.tiles.keys()) {
      if (this.watched.has(id)) continue;
      const w = this.svc.model.windows.get(id);
      if (!w) continue;
      // Under the agents view no pane is drawn, so their output asks for no frame.
      const out = w.onOutput(() => {
        if (!this.overlay?.fullScreen) this.redraw(true);
      });
      // A pane's bell rings the person's terminal, as in tmux (one per frame at most).
      const bell = w.addScreenHooks({ onBell: () => this.ring() });
      this.watched.set(id, { dispose: () => (out.dispose(), bell.dispose()) });
    }
  }

  private bellPending = false;
  /** When the pending age tick fires (0: none pending), and its generation (a sooner one replaces it). */
  private ageTickAt = 0;
  private ageTickGen = 0;
  /** Age ticks so far: in the rail's key, so a tick always draws the rail with its new figures. */
  private ageDrawn = 0;
  /** The dock message end a redraw is already set for. */
  private dockWake = 0;

  private ring(): void {
    if (this.bellPending) return;
    this.bellPending = true;
    this.out.push('\x07');
    this.redraw();
  }

  /** The rows a pane drew last, while nothing else can have drawn over them (no overlay, the
   *  same epoch); see RowMemo. */
  private rowMemo(id: string): RowMemo | undefined {
    if (this.overlay !== null) {
      this.rowMemos.delete(id);
      return undefined;
    }
    let m = this.rowMemos.get(id);
    if (!m || m.epoch !== this.epoch) {
      m = { epoch: this.epoch, memo: new RowMemo() };
      this.rowMemos.set(id, m);
    }
    return m.memo;
  }

  private drawTiles(focused: Window | undefined, body: Rect): void {
    const cv = this.canvas;
    if (this.tiles.size === 0) {
      cv.fill(body.x, body.y, body.w, body.h);
      const msg = `Workspace ${this.session()?.activeWorkspace ?? ''} is empty: ctrl+b c opens a window here.`;
      cv.text(body.x + Math.max(0, Math.floor((body.w - textWidth(msg)) / 2)), body.y + Math.floor(body.h / 2), fit(msg, body.w), roleAttr('muted'));
      return;
    }
    const l = this.session() ? layoutOf(this.session()!, this.session()!.activeWorkspace) : null;
    for (const [id, r] of this.tiles) {
      const w = this.svc.model.windows.get(id);
      if (!w) continue;
      const info = this.svc.agents.info(w);
      const mark = stateMark(String(info.state), !!info.finished_unread, this.ascii);
      const isFocused = w.id === focused?.id;
      const zoomed = l?.zoomed === w.id;
      // The border as it was drawn last in the same place is still on the canvas (nothing draws
      // over a tile but an overlay, and an overlay's coming or going bumps the epoch).
      const border = `${this.epoch}:${r.x},${r.y},${r.w},${r.h}:${isFocused}:${zoomed}:${!!w.exit}:${mark?.glyph ?? ''}:${mark?.role ?? ''}:${w.name}\u0000${w.title}`;
      if (this.overlay !== null || this.borderDrawn.get(id) !== border) {
        drawFrame(cv, r, { name: w.name, title: w.title, mark, focused: isFocused, zoomed, exited: !!w.exit, ascii: this.ascii });
        if (this.overlay === null) this.borderDrawn.set(id, border);
        else this.borderDrawn.delete(id);
      }
      this.drawPane(w, r);
    }
  }

  /**
   * A frame for pane output alone, when nothing else was asked for since the last full frame:
   * every other part of the screen is then as that frame drew it (each change to the model, the
   * agents, the Inbox, the dock or the keys' state asks for a frame of its own, and with it a full
   * one), so only the panes' changed rows, the cursor and the modes are looked at. A typed key's
   * echo then costs its cell, not the layout, the borders, the rail and the status line. The
   * rail's ages count in seconds: a new second draws a full frame.
   */
  private panesOnly(s: Session, now: number): boolean {
    const d = this.drawnFrom;
    if (this.structureChanged || d === null || this.overlay !== null) return false;
    if (d.session !== s || d.workspace !== s.activeWorkspace || d.second !== Math.floor(now / 1000)) return false;
    const layout = layoutOf(s, s.activeWorkspace);
    return d.layout === layout && d.zoomed === layout.zoomed;
  }

  /** A tile's cells, unless its pane printed nothing since it was last drawn where it is. */
  private drawPane(w: Window, r: Rect): void {
    const src = this.source(w);
    const key = `${src.generation()}:${r.x},${r.y},${r.w},${r.h}:${this.epoch}`;
    if (this.overlay === null && this.paneDrawn.get(w.id) === key) return;
    drawContent(this.canvas, r, src, this.rowMemo(w.id));
    this.paneDrawn.set(w.id, key);
  }

  /**
   * The rail again only when what it shows may have changed: any event but pane output drops the
   * agent rows (a new array), and focus, session, layout and the second its ages count in are in
   * the key. A typed key's frame then costs the pane row, not the rail.
   */
  private drawRailIfChanged(s: Session, focused: Window | undefined, r: Rect, now: number): void {
    const rows = this.agentRows();
    const key = `${this.epoch}:${s.id}:${focused?.id ?? ''}:${r.w}x${r.h}:${Math.floor(now / 1000)}:${this.ageDrawn}`;
    if (key === this.railKey && rows === this.railRows) return;
    this.railKey = key;
    this.railRows = rows;
    this.drawRailNow(s, focused, r, now);
  }

  private railKey = '';
  /** The status line's content as last drawn (see drawStatus). */
  private statusDrawn = '';
  private railRows: AgentRow[] | null = null;

  private drawRailNow(s: Session, focused: Window | undefined, r: Rect, now: number): void {
    const sessions: RailSession[] = [...this.svc.model.sessions.values()]
      .filter((x) => this.visible(x.id))
      .sort((a, b) => a.order - b.order)
      .map((x) => ({ id: x.id, name: clean(x.name), windows: this.svc.model.windowsOf(x).length, current: x.id === s.id, mark: sessionMark(this.svc, x.id) }));
    const blocked = this.svc.inbox.list().filter((i) => ['approval', 'question', 'plan', 'ask', 'errored'].includes(i.kind) && (!i.session_id || this.visible(i.session_id))).length;
    const hosts = readsEverySession(this.svc, this.o.caller) ? (this.svc.remote?.agentRows() ?? []).map(hostRailRow) : [];
    drawRail(this.canvas, r, { sessions, agents: this.agentRows(), hosts, agentsSeen: this.agentsSeen, focusedWindow: focused?.id ?? null, ascii: this.ascii, now, blocked });
  }

  /** The status line, unless it would be drawn as it was last (nothing else draws on its row). */
  private drawStatus(s: Session, now: number): void {
    const used = new Set(this.svc.model.windowsOf(s).map((w) => w.workspace));
    used.add(s.activeWorkspace);
    const d = this.confirm ? null : this.dock.current(now);
    const key = `${this.epoch}:${this.cols}x${this.rows}:${s.activeWorkspace}:${[...used].join(',')}:${this.prefix}:${this.confirm?.text ?? ''}\u0000${d?.mark?.glyph ?? ''}:${d?.mark?.role ?? ''}\u0000${d?.text ?? ''}\u0000${s.name}`;
    // Under an overlay it is drawn every frame, as the overlay may draw near it.
    if (this.overlay === null && key === this.statusDrawn) return;
    this.statusDrawn = this.overlay === null ? key : '';
    const cv = this.canvas;
    const y = this.rows - 1;
    const bar = attr(-1, -1, A_INVERSE);
    cv.fill(0, y, this.cols, 1, bar);
    let x = cv.text(1, y, `[${fit(clean(s.name), 16, this.ascii)}]`, attr(-1, -1, A_INVERSE | A_BOLD));
    for (const n of [...used].sort((a, b) => a - b)) {
      x = cv.text(x + 1, y, n === s.activeWorkspace ? `${n}*` : String(n), n === s.activeWorkspace ? attr(-1, -1, A_INVERSE | A_BOLD) : bar);
    }
    if (this.prefix) x = cv.text(x + 2, y, '[C-b]', attr(3, -1, A_INVERSE | A_BOLD));
    const help = this.cols >= 60 ? 'C-b ? help' : '';
    const end = this.cols - (help ? textWidth(help) + 2 : 0);
    x += 2;
    if (this.confirm) {
      cv.text(x, y, fit(this.confirm.text, end - x, this.ascii), attr(3, -1, A_INVERSE | A_BOLD), end);
    } else {
      if (d) {
        if (d.mark) x = cv.text(x, y, d.mark.glyph + ' ', attr(roleColor(d.mark.role), -1, A_INVERSE | A_BOLD), end);
        cv.text(x, y, fit(d.text, end - x, this.ascii), bar, end);
      }
    }
    if (help) cv.text(this.cols - textWidth(help) - 1, y, help, bar);
  }

  private paneCursor(w: Window): { x: number; y: number } | null {
    const r = this.tiles.get(w.id);
    if (!r) return null;
    const src = this.source(w);
    if (src.modes().cursorHidden) return null;
    const c = contentRect(r);
    const cur = src.cursor();
    if (cur.x >= c.w || cur.y >= c.h) return cur.x === c.w && cur.y < c.h ? { x: c.x + c.w - 1, y: c.y + cur.y } : null;
    return { x: c.x + cur.x, y: c.y + cur.y };
  }

  private placeCursor(c: { x: number; y: number } | null, moved: boolean): void {
    const key = c ? `${c.x},${c.y}` : null;
    if (key === this.cursorShown && !moved) return;
    if (!c) {
      if (this.cursorShown !== null || moved) this.out.push('\x1b[?25l');
    } else this.out.push(`\x1b[${c.y + 1};${c.x + 1}H${this.cursorShown === null || moved ? '\x1b[?25h' : ''}`);
    this.cursorShown = key;
  }
}

function roleColor(role: string): number {
  return { info: 4, warning: 3, success: 2, muted: 8, error: 1, accent: 6 }[role] ?? -1;
}

void PLAIN;
