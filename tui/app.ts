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
import type { ClientActs } from '../core/daemon/clients.js';
import { enforce, readableSessions, readsEverySession } from '../core/security/access.js';
import { openStreamTerminal, type StreamTerminal } from './terminal.js';
import { Canvas } from './canvas.js';
import { KeyReader, type Token } from './keys.js';
import { dispatchKey } from './key-table.js';
import { CONFIRM_KEYS, GLOBAL_KEYS, PREFIX_KEYS, type AppKeyState, type AppKeyTarget } from './app-keys.js';
import { layoutOf } from '../core/model/layout.js';
import { contentRect } from './tiles.js';
import { agentRows, hostAgentRow, type AgentRow } from './rows.js';
import { RemotePaneView } from './remote-pane.js';
import { Painter, type PaintHost } from './app-paint.js';
import { FramePacer, type FrameStats } from './frame-pacer.js';
import { echoAhead } from './echo-ahead.js';
import { ScreenPanes } from './app-panes.js';
import { AgeTicker } from './age-tick.js';
import { LayoutActs } from './app-layout.js';
import { eventAlert, type AlertHere } from './app-alerts.js';
import { Walker } from './app-walk.js';
import { Dock } from './alerts.js';
import { playCue } from './sound-cue.js';
import { Acts } from './acts.js';
import { NO_MODES, encodeMouse, modeChange, modesFrom, type ClientModes } from './client-modes.js';
import type { Overlay, TuiHost } from './overlay.js';
import { HelpOverlay } from './help.js';
import { SessionSwitcher } from './switcher.js';
import { AgentsView, newAgentsViewMemory } from './agents-view.js';
import { MailboxView, newMailboxMemory } from './mailbox.js';
import { openReview } from './review-view.js';
import { readAgentsSeen, rememberAgentsSeen } from './rail-state.js';
import { RailControl } from './rail-control.js';
import { compareFor } from './compare-view.js';
import { clean } from './text.js';
import { durationMs } from '../core/activity/duration.js';
import { glyphsFor, type Glyphs } from './marks.js';
import { TerminalTitle, titleFor } from './title.js';
import { observing, observeRefusal, observeWelcome, type ReadOnlyBy } from './observe.js';
import type { Rect } from './pane-draw.js';
import { FRAME_INTERVAL_MS, MAX_CLIENT_BACKLOG_BYTES, MAX_INPUT_BYTES } from './limits.js';
import { runEditor, type EditOutcome, type EditorRun } from './external-editor.js';
import { graphicsFor, setGraphics, type KittyImages } from './image-strip.js';

const ENTER_SCREEN = '\x1b[?1049h\x1b[H\x1b[2J\x1b[?25l';
const LEAVE_SCREEN = '\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?9l\x1b[?1006l\x1b[?2004l\x1b[?1l\x1b>\x1b[0m\x1b[?25h\x1b[?1049l';
/** Bus events that change nothing this client draws. */
/** Frame stats: CPU is sampled on one frame in this many and counted for all of them. */
const CPU_SAMPLE_EVERY = 8;
/** What onToken returns for a key that only went to the focused pane. */
const TO_PANE = 'to-pane' as const;
const QUIET_EVENTS = new Set(['notification', 'window-output']);
/** The config warning of spec Alerts: a cue plays where the client runs, which over ssh is the server. */
const SYSTEM_SOUND_WARNING = 'sound_mode = "system": cues play on the machine running tuios, not where you sit if you came in over ssh; sound_mode = "bell" rings your own terminal.';


export class Tui implements TuiHost, PaintHost {
  readonly svc: Services;
  readonly acts: Acts;
  readonly dock: Dock;
  sessionId: string;
  agentsSeen: boolean;
  /** The rail's sort control, its clicks and its keys (rail-control.ts). */
  readonly rail: RailControl;
  readonly stats: FrameStats = { frames: 0, cells: 0, bytes: 0, cpuMs: 0, wallMs: 0, paneFrames: 0, echoesAhead: 0 };

  private cols: number;
  private rows: number;
  private readonly term: StreamTerminal;
  private readonly canvas: Canvas;
  /** The images a reply draft shows with kitty graphics (null: this client's terminal has none). */
  private readonly kitty: KittyImages | null;
  private readonly painter: Painter;
  private readonly keys = new KeyReader();
  private out: string[] = [];
  private overlay: Overlay | null = null;
  private prefix = false;
  private confirm: { text: string; yes: () => void } | null = null;
  private modes: ClientModes = NO_MODES;
  private readonly pacer = new FramePacer(() => this.guard('frame', () => this.frame()));
  private readonly panes: ScreenPanes;
  private readonly layout: LayoutActs;
  private readonly ages = new AgeTicker(
    (ms, fn) => this.later(ms, fn),
    (minute) => {
      this.structureChanged = true;
      if (minute) {
        this.rowsCache = null;
        this.hostRowsCache = null;
      }
      this.redraw();
    },
  );
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
  private readonly walker = new Walker(this);
  private closed = false;
  private readonly visibleFn: (id: string) => boolean;
  /** Why this client only watches (an observe key), or null: it may type, answer and size panes. */
  private readonly observer: ReadOnlyBy | null;
  /** ctrl+g's editor while it has the client's terminal (external-editor.ts). */
  private editing: EditorRun | null = null;
  readonly overSsh: boolean;

  constructor(private readonly o: TuiOptions) {
    this.svc = o.svc;
    this.sessionId = o.sessionId;
    this.cols = o.cols;
    this.rows = o.rows;
    this.overSsh = !!o.overSsh;
    this.acts = new Acts(o.svc, o.caller, o.client.nonce);
    this.observer = observing(o.caller);
    this.visibleFn = readableSessions(o.svc, o.caller);
    this.agentsSeen = readAgentsSeen(o.svc);
    this.dock = new Dock(
      () => this.glyphs,
      {
        changed: () => this.redraw(),
        notify: (seq) => {
          this.out.push(seq);
          this.redraw();
        },
        cue: (file) => void playCue(file, (msg) => this.svc.log.warn(msg)),
      },
      () => this.svc.config.current.notifications,
    );
    this.term = openStreamTerminal(o.cols, o.rows, (s) => this.out.push(s));
    this.canvas = new Canvas(this.term.term, o.cols, o.rows);
    this.kitty = setGraphics(this.canvas, graphicsFor(o.term));
    this.painter = new Painter(this, this.canvas);
    this.layout = new LayoutActs({
      svc: this.svc,
      acts: this.acts,
      dock: this.dock,
      session: () => this.session(),
      tiles: () => this.panes.tiles,
      bodyRect: () => this.bodyRect(),
      invalidate: () => this.painter.invalidate(),
      redraw: () => this.redraw(),
      closed: () => this.closed,
    });
    this.rail = new RailControl(o.svc, {
      goTo: (id) => this.goToPane(id),
      redraw: () => (this.painter.invalidate(), this.redraw()),
      say: (text) => this.dock.say(text),
      nameOf: (id) => this.agentRows().find((r) => r.id === id)?.name ?? null,
      inFront: () => (this.overlay ? null : (this.layout.focusedWindow()?.id ?? null)),
      queueOf: (id) => {
        const w = this.svc.model.windows.get(id);
        return w ? this.svc.queue.list(w) : [];
      },
      callAsPerson: (verb, params) => this.acts.call(verb, params, true),
      forgetSeen: (id) => this.layout.forgetSeen(id),
      openInbox: (id, then) => this.openAgents(id, { then }),
      review: (id) => {
        const w = this.svc.model.windows.get(id);
        if (w && this.visible(w.sessionId)) this.openReview(w);
      },
      track: (work) => this.track(work),
      later: (ms, fn) => this.later(ms, fn),
    });
    this.panes = new ScreenPanes(
      {
        svc: this.svc,
        strip: () => this.agentsSeen,
        // Under the agents view no pane is drawn, so their output asks for no frame.
        output: () => {
          if (!this.overlay?.fullScreen) this.redraw(true);
        },
        beforeOutput: (w, chunk) => {
          let shown = false;
          this.guard('echo', () => (shown = this.echoAhead(w, chunk)));
          return shown;
        },
        bell: () => this.ring(),
        forget: (id) => this.painter.forget(id),
      },
      o.client.id,
      this.observer === null,
    );
    this.out.push(ENTER_SCREEN);
    this.panes.claimSizes(this.session());
    this.subs.push(this.svc.bus.subscribe((ev) => this.guard('event', () => this.onEvent(ev))));
    // Attached from now on: a verb that needs "the attached client" (a swap, a title) finds it.
    this.subs.push(this.svc.clients.register({ id: o.client.id, sessionId: () => this.sessionId, area: () => this.bodyRect(), acts: this.clientActs }));
    if (this.observer) this.dock.say(observeWelcome(this.observer), null, 10_000);
    else if (!o.client.nonce) this.dock.say('Attached from inside a pane: this client cannot answer or dismiss as you.');
    else if (this.svc.config.current.notifications.agent.sound_mode === 'system') this.dock.say(SYSTEM_SOUND_WARNING, null, 10_000);
    this.redraw();
  }

  /** The glyph set this client draws state marks with (--ascii-only, appearance.glyphs): read per frame, so a config change shows on the next. */
  get glyphs(): Glyphs {
    return glyphsFor(this.svc.config.current.appearance, this.o.ascii);
  }

  get localClient(): boolean {
    return !!this.o.local;
  }

  get ascii(): boolean {
    return this.glyphs.ascii;
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
      this.svc.clients.used(this.o.client.id);
      if (this.editing) return this.editing.input(bytes);
      this.panes.claimSizes(this.session());
      // A printable character typed while nothing of tuios's takes keys (no prefix, question,
      // overlay or rail focus, nothing held from the last read) is the focused pane's: it goes
      // there without being read as a key, since the person waits for its echo. None of the
      // tables binds a bare printable character outside those modes.
      if (bytes.length === 1 && bytes[0]! >= 0x20 && bytes[0]! < 0x7f && this.keys.idle && !this.prefix && !this.confirm && !this.overlay && !this.rail.focused && !this.observer) {
        const w = this.layout.focusedWindow();
        if (w && this.typeInto(w, String.fromCharCode(bytes[0]!)) === TO_PANE) return this.pacer.keyToPane(Date.now());
      }
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
      if (toPane) this.pacer.keyToPane(Date.now());
      if (changed) this.redraw();
    });
  }

  resize(cols: number, rows: number): void {
    this.guard('resize', () => {
      this.svc.clients.used(this.o.client.id);
      if (cols === this.cols && rows === this.rows) return;
      this.cols = cols;
      this.rows = rows;
      this.editing?.resize(cols, rows);
      this.panes.claimSizes(this.session());
      if (this.observer) this.dock.say(observeRefusal('Resizing the panes', this.observer) + ' Only your own view changed.');
      this.term.resize(cols, rows);
      this.canvas.resize(cols, rows);
      // The images placed go with the cleared screen: the next frame places them again.
      this.out.push((this.kitty?.clear() ?? '') + '\x1b[H\x1b[2J');
      this.painter.invalidate();
      this.redraw();
    });
  }

  close(reason: string): void {
    if (this.closed) return;
    try {
      this.flush((this.kitty?.clear() ?? '') + this.title.leave() + LEAVE_SCREEN);
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
    this.editing?.dispose();
    this.pacer.cancel();
    this.layout.recaps.dispose();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const s of this.subs) s.dispose();
    this.panes.dispose();
    this.painter.dispose();
    this.overlay?.dispose?.();
    this.dock.dispose();
    this.term.dispose();
  }

  // ---- the host side overlays and the painter see ----

  overlayShown(): boolean {
    return this.overlay !== null;
  }

  readsEverySession(): boolean {
    return readsEverySession(this.svc, this.o.caller);
  }

  push(seq: string): void {
    this.out.push(seq);
  }

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
    this.pacer.request(output);
  }

  async editExternally(text: string): Promise<EditOutcome> {
    if (this.editing) return { refused: 'An editor is open already.' };
    // An editor runs commands (vi's :!): only the person at a terminal of this machine gets one,
    // never a client from a pane, an observer, or one over the SSH server, which offers no shell.
    if (this.overSsh) return { refused: 'ctrl+g opens your editor from tuios attach on this machine; over the SSH server it would run on the server.' };
    if (!this.o.client.nonce || this.observer) return { refused: 'ctrl+g opens your editor only for a client attached outside every pane.' };
    const run = await runEditor({ text, cols: this.cols, rows: this.rows, term: this.o.term, env: this.o.editor ? { ...process.env, VISUAL: this.o.editor } : process.env, write: (d) => this.closed || this.o.write(d) });
    if ('refused' in run) return run;
    if (this.closed) {
      run.dispose();
      return run.done;
    }
    // The terminal as a shell leaves it (modes off, the main screen), for the editor.
    this.flush(LEAVE_SCREEN);
    this.modes = NO_MODES;
    this.editing = run;
    const out = await run.done;
    this.editing = null;
    if (this.closed) return out;
    // What was waiting to be drawn was for the screen before: the next frame draws it all.
    this.out = [ENTER_SCREEN];
    this.canvas.resize(this.cols, this.rows);
    this.painter.invalidate();
    this.redraw();
    return out;
  }

  closeOverlay(): void {
    this.overlay?.dispose?.();
    this.overlay = null;
    this.painter.invalidate();
    this.redraw();
  }

  private openOverlay(o: Overlay): void {
    this.overlay?.dispose?.();
    this.overlay = o;
    this.painter.invalidate();
    this.redraw();
  }

  openHelp(section?: 'agents'): void {
    this.openOverlay(new HelpOverlay(this, section === 'agents'));
  }

  openAgents(select?: string, opts: { mail?: boolean; then?: 'snooze' | 'reply' } = {}): void {
    const hostItems = () => (this.svc.remote && readsEverySession(this.svc, this.o.caller) ? this.svc.remote.itemRows() : []);
    this.openOverlay(new AgentsView(this, this.agentsMemory, () => [...this.agentRows(), ...this.hostRows()], { select, hostItems, mail: opts.mail, then: opts.then }));
  }

  openMailbox(opts: { thread?: number; reply?: boolean; fromAgents?: boolean } = {}): void {
    this.openOverlay(new MailboxView(this, this.mailMemory, () => this.agentRows(), { thread: opts.thread, reply: opts.reply, back: opts.fromAgents ? () => this.openAgents() : undefined }));
  }

  openReview(w: Window): void {
    this.track(openReview(this, w, (o) => this.openOverlay(o)));
  }

  openRemotePane(row: AgentRow): void {
    if (!row.host || !this.svc.remote) return this.dock.say('This row has no pane to go to.');
    // The replica takes the pane's own size from the stream; until then, the screen's.
    this.openOverlay(new RemotePaneView(this, row, { cols: this.cols, rows: Math.max(1, this.rows - 2) }));
  }

  /** A rail row's pane, when this client may see it. */
  private goToPane(id: string): void {
    const w = this.svc.model.windows.get(id);
    if (w && this.visible(w.sessionId)) this.goToWindow(w);
  }

  goToWindow(w: Window, opts: { zoom?: boolean } = {}): void {
    if (w.closed) return;
    if (w.sessionId !== this.sessionId && !this.switchSession(w.sessionId)) return;
    const s = this.session();
    if (!s) return;
    this.svc.model.switchWorkspace(s, w.workspace);
    this.layout.focus(w);
    if (opts.zoom) layoutOf(s, w.workspace).zoomed = w.id;
    this.painter.invalidate();
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
    this.panes.claimSizes(this.session());
    // An observer's look does not make the session the most recent one, where the next attach lands.
    if (!this.observer) this.svc.model.touch(s);
    this.painter.invalidate();
    this.redraw();
    return true;
  }

  /** The terminal's title: the client's own (the focused pane's mark), or one a tool set. */
  private readonly title = new TerminalTitle();

  /** What the daemon asks of this client (core/daemon/clients.ts); each act is guarded. */
  private readonly clientActs: ClientActs = {
    showSession: (id, workspace) => {
      let shown = false;
      this.guard('show-session', () => {
        if (!this.switchSession(id)) return;
        const s = this.session();
        if (s && workspace !== undefined) this.layout.switchWorkspace(workspace);
        shown = true;
      });
      return shown;
    },
    focusWindow: (id) => {
      const w = this.svc.model.windows.get(id);
      if (!w) return false;
      this.guard('focus-window', () => this.goToWindow(w));
      return w.sessionId === this.sessionId;
    },
    setTitle: (title) => {
      if (this.closed) return false;
      this.guard('set-title', () => {
        this.out.push(this.title.setByTool(title));
        this.redraw();
      });
      return !this.closed;
    },
    redraw: () =>
      this.guard('layout-changed', () => {
        this.painter.invalidate();
        this.redraw();
      }),
  };

  // ---- events ----

  /** What this client shows, as the alert rules read it (app-alerts.ts). */
  private readonly alertHere: AlertHere = {
    sessionId: () => this.sessionId,
    sessionName: () => this.session()?.name ?? '',
    lookingAt: () => (this.overlay ? null : (this.layout.focusedWindow()?.id ?? null)),
    visible: (id) => this.visible(id),
    name: (id) => this.svc.model.sessions.get(id)?.name ?? null,
    readsEverySession: () => this.readsEverySession(),
    hostRow: (host, windowId) => this.svc.remote?.agentRows().find((r) => r.host === host && r.window_id === windowId),
  };

  private onEvent(ev: BusEvent): void {
    if (QUIET_EVENTS.has(ev.type)) return;
    this.rowsCache = null;
    this.hostRowsCache = null;
    if (ev.type === 'session-closed' && ev.session_id === this.sessionId) return this.close('the session ended');
    const { alert, cancel, agents } = eventAlert(ev, this.alertHere);
    if (agents) this.seeAgents();
    if (cancel) this.dock.cancel(cancel);
    if (alert) this.dock.alert(alert);
    this.redraw();
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
  hostRows(): AgentRow[] {
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
    if (this.rail.key(tok) || (tok.t === 'mouse' && this.rail.click(tok))) return;
    const w = this.layout.focusedWindow();
    if (!w) return;
    if (tok.t === 'mouse') return this.onMouse(tok, w);
    if (tok.t === 'paste') return this.typeInto(w, this.painter.source(w).modes().bracketedPaste ? tok.raw : tok.text);
    return this.typeInto(w, tok.raw);
  }

  /** Keys for a pane: written, unless this client only watches (then the dock says why). */
  private typeInto(w: Window | undefined, data: string): typeof TO_PANE | void {
    if (!w) return;
    if (this.observer) return void this.dock.say(observeRefusal('Typing', this.observer));
    w.write(data);
    return TO_PANE;
  }

  /** What the TUI's own keys act on (app-keys.ts). */
  private readonly keyTarget: AppKeyTarget = {
    moveFocus: (d) => this.layout.moveFocus(d),
    switchWorkspace: (n) => this.layout.switchWorkspace(n),
    stepWorkspace: (d) => this.layout.stepWorkspace(d),
    openWindow: (split) => this.track(this.layout.newWindow(split)),
    askClose: () => this.askClose(),
    // Zoom is the session's layout, shared with every client of it.
    toggleZoom: () => (this.observer ? this.dock.say(observeRefusal('Zoom', this.observer)) : this.layout.toggleZoom()),
    openSwitcher: () => this.openOverlay(new SessionSwitcher(this)),
    openHelp: () => this.openHelp(),
    openReview: () => {
      const w = this.layout.focusedWindow();
      if (w) this.openReview(w);
      else this.dock.say('There is no pane to review.');
    },
    openCompare: () => {
      const v = compareFor(this, this.layout.focusedWindow());
      if (v) this.openOverlay(v);
    },
    detach: () => this.close('detached'),
    closeOverlay: () => this.closeOverlay(),
    openAgents: (select, opts) => this.openAgents(select, opts),
    walkNeedsYou: () => this.walker.needsYou(),
    walkFinished: () => this.walker.finished(),
    armPrefix: () => {
      this.prefix = true;
    },
    sendPrefix: (tok) => {
      if (this.overlay?.paneModes) return this.overlay.key(tok);
      this.typeInto(this.layout.focusedWindow(), '\x02');
    },
    // A key the prefix does not bind reaches the pane as it always did (a linked host's too).
    unbound: (tok) => {
      if (this.overlay?.paneModes) this.overlay.key(tok);
      else if (!this.overlay) this.typeInto(this.layout.focusedWindow(), tok.raw);
    },
  };

  private onMouse(tok: Extract<Token, { t: 'mouse' }>, w: Window): void {
    // A press on an alert's dock message opens what it is about.
    if (tok.y === this.rows - 1 && !tok.release && tok.button === 0 && this.openDockItem()) return;
    for (const [id, r] of this.panes.tiles) {
      const c = contentRect(r);
      if (tok.x < c.x || tok.y < c.y || tok.x >= c.x + c.w || tok.y >= c.y + c.h) continue;
      if (id !== w.id) {
        // A press in another pane focuses it; the press is not passed on.
        const other = this.svc.model.windows.get(id);
        if (other && !tok.release && tok.button < 64) this.layout.focus(other);
        return;
      }
      const m = this.painter.source(w).modes();
      if (m.mouse === 'none') return;
      const seq = encodeMouse(tok.button, tok.x - c.x, tok.y - c.y, tok.release, m.mouseSgr);
      // An observer's presses are not sent (said once per press); its moves go nowhere quietly.
      if (seq && (!this.observer || (!tok.release && tok.button < 32))) this.typeInto(w, seq);
      return;
    }
  }

  /** The item of the alert the dock shows: its pane here, else the agents view (the Inbox's items). False when the dock shows no alert. */
  private openDockItem(): boolean {
    const opens = this.dock.current()?.opens;
    if (!opens) return false;
    const target = opens.windowId ? this.svc.model.windows.get(opens.windowId) : undefined;
    if (target && this.visible(target.sessionId)) this.goToWindow(target);
    else this.openAgents();
    return true;
  }

  // ---- acts on the layout ----

  session(): Session | undefined {
    return this.svc.model.sessions.get(this.sessionId);
  }

  private askClose(): void {
    const w = this.layout.focusedWindow();
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

  // ---- frames ----

  /** A few bytes of the focused pane's output, before they are parsed: a typed key's plain echo
   *  goes to the client now, ahead of the parse and the frame (echo-ahead.ts), when the screen is
   *  as last drawn. True when it went. */
  private echoAhead(w: Window, chunk: Buffer): boolean {
    if (this.closed || this.editing || this.overlay || this.out.length > 0 || !this.pacer.echoAwaited(Date.now())) return false;
    const s = this.session();
    if (!s || !this.sameStructure(s) || this.drawnFrom!.focused !== w.id || this.o.pendingBytes() > MAX_CLIENT_BACKLOG_BYTES) return false;
    const tile = this.panes.tiles.get(w.id);
    const e = tile ? echoAhead(this.canvas, w, tile, chunk) : null;
    if (!e) return false;
    this.painter.cursorPrinted(e.cursor.x, e.cursor.y);
    this.stats.bytes += e.seq.length;
    this.stats.echoesAhead++;
    this.o.write(e.seq);
    return true;
  }

  private frame(): void {
    // The person's editor has the terminal (ctrl+g): the frame after it draws everything.
    if (this.closed || this.editing) return;
    // A client that is behind gets no new frame until it has read; the next one covers both.
    if (this.o.pendingBytes() > MAX_CLIENT_BACKLOG_BYTES) {
      this.later(FRAME_INTERVAL_MS, () => this.redraw());
      return;
    }
    // CPU is read on one frame in CPU_SAMPLE_EVERY (getrusage costs a tenth of a small frame).
    const t0 = this.stats.frames % CPU_SAMPLE_EVERY === 0 ? process.cpuUsage() : null;
    const w0 = performance.now();
    const bytes0 = this.stats.bytes;
    const now = Date.now();
    const previousFrameAt = this.pacer.started(now);
    const s = this.session();
    if (!s) return this.close('the session ended');
    const cv = this.canvas;
    cv.ascii = this.ascii;
    let full = !this.panesOnly(s, now);
    // A typed key's echo in a new second is drawn alone: the second's full frame (the status
    // line, the ages) comes one frame interval later, instead of a full frame's cost landing on
    // the key (about one key in eight at a person's typing speed).
    if (full && this.pacer.drawingEcho && this.sameStructure(s)) {
      full = false;
      this.redraw();
    }
    let focused: Window | undefined;
    let cursor: { x: number; y: number } | null = null;
    if (!full) {
      this.stats.paneFrames++;
      focused = this.drawnFrom!.focused === null ? undefined : this.svc.model.windows.get(this.drawnFrom!.focused);
      for (const [id, r] of this.panes.tiles) {
        const w = this.svc.model.windows.get(id);
        if (w) this.painter.drawPane(w, r);
      }
      if (focused) cursor = this.painter.paneCursor(this.panes.tiles, focused);
    } else {
      this.structureChanged = false;
      this.kitty?.begin();
      if (!this.agentsSeen && (this.agentRows().length > 0 || this.svc.inbox.list().length > 0)) this.seeAgents();
      const railW = this.panes.railWidth(this.cols);
      const railOn = railW > 0;
      const body = this.bodyRect();
      const ws = s.activeWorkspace;
      const { changed, layout } = this.panes.place(s, body);
      if (changed) this.painter.invalidate();
      focused = this.layout.focusedWindow();
      if (focused && this.overlay === null) this.layout.markSeen(focused);
      else this.layout.recaps.inFront(null);

      if (this.overlay?.fullScreen) {
        cursor = this.overlay.draw(cv, { x: 0, y: 0, w: this.cols, h: this.rows - 1 }, now);
      } else {
        this.painter.drawTiles(this.panes.tiles, focused, body);
        if (railOn) this.painter.drawRailIfChanged(s, focused, { x: 0, y: 0, w: railW, h: this.rows - 1 }, now, this.ages.ticks);
        if (this.overlay) cursor = this.overlay.draw(cv, body, now);
        else if (focused) cursor = this.painter.paneCursor(this.panes.tiles, focused);
      }
      const railHint = this.rail.focused && !this.overlay ? this.rail.hint() : '';
      this.painter.drawStatus(s, now, { cols: this.cols, rows: this.rows, prefix: this.prefix, confirm: this.confirm, readOnly: this.observer !== null, hint: railHint });
      this.out.push(this.title.frame(titleFor(this.svc, s, focused, this.glyphs)));
      this.drawnFrom = { session: s, workspace: ws, layout, zoomed: layout.zoomed, focused: focused?.id ?? null, second: Math.floor(now / 1000) };
    }
    const cells = cv.draw();
    const images = this.kitty?.end();
    if (images) this.out.push(images);
    this.painter.placeCursor(cursor, cells > 0);
    const paneModes = this.overlay?.paneModes?.();
    const want = paneModes ? modesFrom(paneModes) : this.overlay ? { ...NO_MODES, bracketedPaste: true } : modesFrom(focused ? this.painter.source(focused).modes() : null);
    const change = modeChange(this.modes, want);
    if (change) this.out.push(change);
    this.modes = want;
    this.bellPending = false;
    this.stats.frames++;
    this.stats.cells += cells;
    this.flush();
    if (this.stats.bytes === bytes0) this.pacer.sentNothing(previousFrameAt);
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
    if (this.agentsSeen) this.ages.schedule(now, this.agentRows(), durationMs(this.svc.config.current.appearance?.sidebar?.agent_rest_fold ?? '1h') ?? undefined);
  }

  private flush(extra = ''): void {
    if (extra) this.out.push(extra);
    if (this.out.length === 0) return;
    const data = this.out.join('');
    this.out = [];
    this.stats.bytes += Buffer.byteLength(data);
    this.o.write(data);
  }

  /** Where the tiles go: right of the rail, above the status line. */
  private bodyRect(): Rect {
    return this.panes.body(this.cols, this.rows);
  }

  private bellPending = false;
  /** The dock message end a redraw is already set for. */
  private dockWake = 0;

  private ring(): void {
    if (this.bellPending) return;
    this.bellPending = true;
    this.out.push('\x07');
    this.redraw();
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
    return this.sameStructure(s) && this.drawnFrom!.second === Math.floor(now / 1000);
  }

  /** Nothing but the panes' cells and the second changed since the last full frame. */
  private sameStructure(s: Session): boolean {
    const d = this.drawnFrom;
    if (this.structureChanged || d === null || this.overlay !== null) return false;
    if (d.session !== s || d.workspace !== s.activeWorkspace) return false;
    const layout = layoutOf(s, s.activeWorkspace);
    return d.layout === layout && d.zoomed === layout.zoomed;
  }

}
