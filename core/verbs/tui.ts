// The drawing client's transport: `attach --mode tui` streams the TUI's output as events, and
// tui-input / tui-resize bring the client's keys and size back on the same connection. The TUI
// itself lives in tui/ and registers its factory here at start-up (core never imports it), so
// the same code serves this relay and the SSH server's session channels.
import { z } from 'zod';
import { defineVerb, type VerbContext } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { enforce } from '../security/access.js';
import type { Services } from '../daemon/services.js';
import type { Caller } from '../rpc/caller.js';
import type { AttachedClient } from '../security/person.js';
import { MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS, TUI_INPUT_MAX_B64 } from '../limits.js';


export interface TuiOptions {
  svc: Services;
  /** The attached client: the person's nonce, when it has one, stays inside the daemon. */
  client: AttachedClient & { inside: boolean };
  /** Who the TUI acts as when it calls verbs (outside every pane: the `tui` channel). */
  caller: Caller;
  sessionId: string;
  cols: number;
  rows: number;
  term: string;
  ascii: boolean;
  /** The client came in over the SSH server: this machine's files are not where the person sits. */
  overSsh?: boolean;
  /** The client's $VISUAL or $EDITOR (ctrl+g in a reply), from a client outside every pane only. */
  editor?: string;
  /** The client runs on this machine (`tuios attach`): the clipboard here is the person's. */
  local?: boolean;
  /** Bytes for the client's terminal. */
  write(data: string): void;
  /** Bytes written that the client has not taken yet (frames wait while it is behind). */
  pendingBytes(): number;
  /** The client is done (detached, its session ended, or the TUI failed): close its transport. */
  onClose(reason: string): void;
}

export interface TuiInstance {
  input(bytes: Buffer): void;
  resize(cols: number, rows: number): void;
  dispose(): void;
}

export type TuiFactory = (o: TuiOptions) => TuiInstance;

interface Host {
  factory: TuiFactory | null;
  clients: Map<number, { tui: TuiInstance; connId: number }>;
}

const hosts = new WeakMap<Services, Host>();

function hostOf(svc: Services): Host {
  let h = hosts.get(svc);
  if (!h) {
    h = { factory: null, clients: new Map() };
    hosts.set(svc, h);
  }
  return h;
}

/** Called by tui/ when the daemon starts. */
export function provideTui(svc: Services, factory: TuiFactory): void {
  hostOf(svc).factory = factory;
}

export function tuiFactory(svc: Services): TuiFactory | null {
  return hosts.get(svc)?.factory ?? null;
}

export interface AttachTuiParams {
  session?: string;
  cols?: number;
  rows?: number;
  term?: string;
  ascii?: boolean;
  create?: boolean;
  editor?: string;
}

/** `attach --mode tui`: the relay's stream. Output events are `{type:'output', data}`, the end `{type:'exit', reason}`. */
export function attachTui(ctx: VerbContext<AttachTuiParams>): unknown {
  const { svc, caller, params } = ctx;
  const factory = tuiFactory(svc);
  if (!factory) throw new TuiosError('unsupported', 'This daemon was started without its TUI.', 'Start the daemon with `tuios daemon` from a full build.');
  let s = params.session ? svc.model.findSession(params.session) : svc.model.mostRecentSession();
  const placement = svc.placement(caller);
  if (placement.kind === 'pane' && s && placement.window.sessionId === s.id) {
    throw new TuiosError('forbidden', `This terminal is a pane of session ${s.name}; attaching it to itself would draw the session inside itself.`, 'Detach first, or attach to another session with -s.');
  }
  if (!s) {
    if (!params.create) throw new TuiosError('session_not_found', 'There is no session to attach to.', 'Create one with: tuios new-session NAME, or run tuios with no verb.');
    s = svc.model.createSession({ term: params.term });
    svc.model.createWindow(s, { cols: params.cols, rows: params.rows });
  }
  // A drawing client types into every pane of its session: from inside a pane that takes write.
  if (placement.kind !== 'outside') enforce(svc, caller, { verb: 'attach', access: 'write', target: null, sessionId: s.id });
  const client = svc.person.attach(caller, placement, s.id);
  // Outside every pane the TUI acts on the tui channel; inside one it keeps the relay's own
  // caller, so grants and placement judge it as they judge the relay.
  const tuiCaller: Caller = client.inside ? caller : { connId: caller.connId, channel: 'tui', pid: caller.pid, uid: caller.uid, readOnly: caller.readOnly, paneHint: null };
  const host = hostOf(svc);
  let closed = false;
  const close = (reason: string) => {
    if (closed) return;
    closed = true;
    ctx.emit({ type: 'exit', reason });
    ctx.end();
  };
  let tui: TuiInstance;
  try {
    tui = factory({
    svc,
    client,
    caller: tuiCaller,
    sessionId: s.id,
    cols: params.cols ?? 80,
    rows: params.rows ?? 24,
    term: params.term ?? 'xterm-256color',
    ascii: !!params.ascii,
    // A command the daemon runs for ctrl+g: only the person's own terminal (outside every pane) names it.
    ...(params.editor && !client.inside ? { editor: params.editor } : {}),
    local: true,
    write: (data) => ctx.emit({ type: 'output', data }),
    pendingBytes: () => ctx.pendingBytes(),
    onClose: close,
    });
  } catch (e) {
    svc.person.detach(client.id);
    throw e;
  }
  host.clients.set(client.id, { tui, connId: caller.connId });
  ctx.signal.addEventListener('abort', () => {
    closed = true;
    host.clients.delete(client.id);
    svc.person.detach(client.id);
    tui.dispose();
  });
  svc.log.info('client attached', { client: client.id, mode: 'tui', inside: client.inside, session: s.id });
  return { client_id: client.id, session: s.name, session_id: s.id, inside_pane: client.inside };
}

function clientOf(svc: Services, caller: Caller, id: number): TuiInstance {
  const c = hosts.get(svc)?.clients.get(id);
  // Only the connection that attached may type into its client.
  if (!c || c.connId !== caller.connId) throw new TuiosError('not_found', `There is no TUI client ${id} on this connection.`, 'Send tui-input on the connection that attached.');
  return c.tui;
}

export const tuiInput = defineVerb({
  name: 'tui-input',
  access: 'none',
  summary: 'Keys for an attached TUI client (the relay sends them on its attach connection)',
  target: 'none',
  mutates: false,
  params: z.object({
    client: z.number().int().min(1).describe('The client id attach returned'),
    data: z.string().max(TUI_INPUT_MAX_B64).describe('The bytes, base64'),
  }),
  result: z.object({}),
  print: 'fields',
  run({ params, svc, caller }) {
    clientOf(svc, caller, params.client).input(Buffer.from(params.data, 'base64'));
    return {};
  },
});

export const tuiResize = defineVerb({
  name: 'tui-resize',
  access: 'none',
  summary: 'The terminal of an attached TUI client changed size',
  target: 'none',
  mutates: false,
  params: z.object({
    client: z.number().int().min(1).describe('The client id attach returned'),
    cols: z.number().int().min(MIN_COLS).max(MAX_COLS).describe('Columns'),
    rows: z.number().int().min(MIN_ROWS).max(MAX_ROWS).describe('Rows'),
  }),
  result: z.object({}),
  print: 'fields',
  run({ params, svc, caller }) {
    clientOf(svc, caller, params.client).resize(params.cols, params.rows);
    return {};
  },
});
