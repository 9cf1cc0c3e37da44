// The Codex app-server adapter of `tuios agent-proto` (spec: Headless agents over a protocol):
// `codex app-server` on stdio, JSON-RPC in newline-delimited JSON, read as the spec's tables say.
//
//   opened       initialize, initialized, thread/start (its `model`)
//   prompt       turn/start; the turn's end is turn/completed: completed -> done with the last
//                agent message, interrupted -> cancelled, failed -> failed with the turn's error
//   cancel       turn/interrupt
//   permission   item/commandExecution/requestApproval, item/fileChange/requestApproval
//   metadata     model: thread/start then model/rerouted; context: thread/tokenUsage/updated
//                (last.totalTokens of modelContextWindow, only when the window is known);
//                plan: turn/plan/updated (completed steps of all steps). Codex sends no cost.
//
// Every other request from the server is answered method-not-found, which Codex reads as not
// approved. Every field is read on its own: a missing or changed one costs only what it feeds.
// Learned from the binary (codex app-server generate-ts, 0.171.0) and from its captured traffic
// in fixtures/protocol/codex/.
import type { ProtoAgent, ProtoMetaKey, ProtoSink } from './agent.js';
import { commandApproval, fileChangeApproval, fileChangesOf, type CodexApproval, type FileChangeSeen } from './codex-approval.js';
import { CODEX_APPROVALS_PENDING_MAX, CODEX_ITEMS_KEPT, CODEX_PLAN_STEPS_MAX, CODEX_REPLY_KEEP_CHARS, CODEX_REQUEST_TIMEOUT_MS, CODEX_START_TIMEOUT_MS } from './codex-limits.js';
import { launchAppServer, type AppServerIo } from './codex-process.js';
import type { AdapterOptions } from './spawn.js';
import { LineRpc, METHOD_NOT_FOUND, RpcError, type Json, type Tapped } from './codex-wire.js';
import { VERSION } from '../core/version.js';

export interface CodexAgentOptions extends AdapterOptions {
  /** Starts the app-server (default: launchAppServer). Tests replay captured traffic through it. */
  launch?: (o: AdapterOptions) => Promise<AppServerIo>;
  /** Sees every message either way (the capture script records with it). */
  tap?: (t: Tapped) => void;
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** The first line of a reply that says something. */
export function firstLine(text: string): string {
  for (const l of text.split(/\r?\n/)) {
    const t = l.trim();
    if (t) return t;
  }
  return '';
}

/** `context` as the spec's table reads it: last.totalTokens of modelContextWindow, when the window is known. */
export function contextValue(tokenUsage: Json): string | null {
  const window = num(tokenUsage?.modelContextWindow);
  const used = num(tokenUsage?.last?.totalTokens);
  if (window === null || window <= 0 || used === null || used < 0) return null;
  return `${Math.round((used * 100) / window)}%`;
}

/** The steps of turn/plan/updated, read field by field and cut to CODEX_PLAN_STEPS_MAX. */
export function planOf(params: Json): { text: string; done: boolean }[] | null {
  if (!Array.isArray(params?.plan)) return null;
  const out: { text: string; done: boolean }[] = [];
  for (const s of params.plan) {
    const text = str(s?.step);
    if (text === null) continue;
    out.push({ text, done: s?.status === 'completed' });
    if (out.length >= CODEX_PLAN_STEPS_MAX) break;
  }
  return out;
}

/** The title a tool call item shows, or null for items that are not tool calls. */
export function toolTitle(item: Json): string | null {
  switch (item?.type) {
    case 'commandExecution':
      return str(item.command) ?? 'a command';
    case 'fileChange': {
      const { changes } = fileChangesOf(item);
      return changes.length === 1 ? `Edit ${changes[0]!.path}` : changes.length > 1 ? `Edit ${changes.length} files` : 'Edit files';
    }
    case 'mcpToolCall':
      return `${str(item.server) ?? 'mcp'}: ${str(item.tool) ?? 'tool'}`;
    case 'dynamicToolCall':
      return str(item.tool) ?? 'a tool';
    case 'webSearch':
      return `Search ${str(item.query) ?? 'the web'}`;
    case 'imageView':
      return `View ${str(item.path) ?? 'an image'}`;
    default:
      return null;
  }
}

/** Whether a completed tool call item failed (a declined or failed status, or a command's non-zero exit). */
function itemFailed(item: Json): boolean {
  const status = str(item?.status);
  if (status === 'failed' || status === 'declined') return true;
  if (item?.type === 'commandExecution') {
    const code = num(item.exitCode);
    return code !== null && code !== 0;
  }
  if (item?.type === 'dynamicToolCall' && item.success === false) return true;
  return false;
}

/** The codex version in initialize's userAgent (`tuios/0.171.0 (Debian ...)`). */
function versionOf(userAgent: unknown): string | null {
  const m = /^[^/\s]+\/(\d[\w.+-]*)/.exec(str(userAgent) ?? '');
  return m ? m[1]! : null;
}

interface PendingApproval {
  id: string | number;
  abort: AbortController;
}

export class CodexAgent implements ProtoAgent {
  private io: AppServerIo | null = null;
  private rpc: LineRpc | null = null;
  private sink: ProtoSink | null = null;
  private threadId: string | null = null;
  /** The turn in flight (set by turn/start's answer or turn/started). */
  private turnId: string | null = null;
  private turnOpen = false;
  private closing = false;
  private gone = false;
  private readonly meta = new Map<ProtoMetaKey, string | null>();
  /** The last agent message completed in this turn, and the pieces of the one streaming. */
  private lastMessage = '';
  private streaming = '';
  private messagesThisTurn = 0;
  private lastError: string | null = null;
  private readonly fileChanges = new Map<string, FileChangeSeen>();
  private readonly approvals = new Map<string, PendingApproval>();

  constructor(private readonly opts: CodexAgentOptions) {}

  /** Opens the conversation; when it cannot, the sink hears exited(why) and this rejects. */
  async start(sink: ProtoSink): Promise<void> {
    this.sink = sink;
    const launch = this.opts.launch ?? launchAppServer;
    let io: AppServerIo;
    try {
      io = await launch(this.opts);
    } catch (e) {
      this.exit(`did not start: ${(e as Error).message}`);
      throw e;
    }
    this.io = io;
    this.rpc = new LineRpc(io.stdout, io.stdin, {
      notification: (m, p) => this.guard(() => this.onNotification(m, p)),
      request: (id, m, p) => this.guard(() => this.onRequest(id, m, p)),
      closed: () => undefined,
    }, this.opts.tap);
    void io.exited.then((why) => this.exit(why));
    try {
      const init = await this.rpc.request('initialize', { clientInfo: { name: 'tuios', title: 'tuios agent-proto', version: VERSION }, capabilities: null }, CODEX_START_TIMEOUT_MS);
      this.rpc.notify('initialized');
      const th = await this.rpc.request('thread/start', { cwd: this.opts.cwd }, CODEX_START_TIMEOUT_MS);
      this.threadId = str(th?.thread?.id);
      if (!this.threadId) throw new Error('thread/start answered no thread id');
      const model = str(th?.model) ?? str(th?.thread?.model);
      const version = versionOf(init?.userAgent);
      sink.opened({ agent: version ? `codex ${version}` : 'codex', model: model ?? undefined });
      if (model) this.setMeta('model', model);
    } catch (e) {
      // A process that exited says why itself (its status and its last error line).
      const why = e instanceof RpcError ? `Codex refused to open a conversation: ${e.message}` : this.rpc.closed ? await io.exited : (e as Error).message;
      await this.stopProcess();
      this.exit(why);
      throw e;
    }
  }

  async prompt(text: string): Promise<void> {
    if (!this.rpc || !this.threadId) throw new Error('the conversation is not open');
    this.turnOpen = true;
    this.lastMessage = '';
    this.streaming = '';
    this.messagesThisTurn = 0;
    this.lastError = null;
    try {
      const r = await this.rpc.request('turn/start', { threadId: this.threadId, input: [{ type: 'text', text, text_elements: [] }] }, CODEX_REQUEST_TIMEOUT_MS);
      this.turnId = str(r?.turn?.id) ?? this.turnId;
    } catch (e) {
      if (this.gone) return; // exited() says it
      this.endTurn({ kind: 'failed', why: (e as Error).message });
    }
  }

  async cancel(): Promise<void> {
    if (!this.rpc || !this.threadId || !this.turnOpen || !this.turnId) return;
    try {
      await this.rpc.request('turn/interrupt', { threadId: this.threadId, turnId: this.turnId }, CODEX_REQUEST_TIMEOUT_MS);
    } catch {
      // A turn that ended meanwhile has nothing to interrupt; its end came through turn/completed.
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    this.abortApprovals();
    await this.stopProcess();
  }

  private async stopProcess(): Promise<void> {
    await this.io?.stop();
  }

  /** A handler that throws must not take the pane down: it is a fault in reading data. */
  private guard(fn: () => void): void {
    try {
      fn();
    } catch {
      // The message was malformed past what the field-by-field reads allow; it is dropped.
    }
  }

  private setMeta(key: ProtoMetaKey, value: string | null): void {
    if (this.meta.has(key) && this.meta.get(key) === value) return;
    if (!this.meta.has(key) && value === null) return;
    this.meta.set(key, value);
    this.sink?.meta(key, value);
  }

  private ours(p: Json): boolean {
    const t = str(p?.threadId);
    return t === null || t === this.threadId;
  }

  private onNotification(method: string, p: Json): void {
    if (!this.sink || !this.ours(p)) return;
    switch (method) {
      case 'turn/started':
        this.turnId = str(p?.turn?.id) ?? this.turnId;
        return;
      case 'item/agentMessage/delta': {
        const d = str(p?.delta);
        if (!d) return;
        if (this.streaming === '' && this.messagesThisTurn > 0) this.sink.replyText('\n');
        this.streaming = (this.streaming + d).slice(0, CODEX_REPLY_KEEP_CHARS);
        this.sink.replyText(d);
        return;
      }
      case 'item/started': {
        const item = p?.item;
        const id = str(item?.id);
        if (item?.type === 'fileChange' && id) this.keepFileChange(id, item);
        const title = toolTitle(item);
        if (title !== null && id) this.sink.toolCall({ id, title, phase: 'start' });
        return;
      }
      case 'item/completed': {
        const item = p?.item;
        const id = str(item?.id);
        if (item?.type === 'agentMessage') {
          const text = str(item.text) ?? this.streaming;
          if (text) this.lastMessage = text.slice(0, CODEX_REPLY_KEEP_CHARS);
          if (this.streaming || text) this.messagesThisTurn++;
          this.streaming = '';
          return;
        }
        if (item?.type === 'fileChange' && id) this.fileChanges.delete(id);
        const title = toolTitle(item);
        if (title !== null && id) this.sink.toolCall({ id, title, phase: 'end', failed: itemFailed(item) });
        return;
      }
      case 'turn/plan/updated': {
        const steps = planOf(p);
        if (!steps) return;
        this.sink.plan(steps);
        this.setMeta('plan', steps.length ? `${steps.filter((s) => s.done).length}/${steps.length}` : null);
        return;
      }
      case 'thread/tokenUsage/updated': {
        const v = contextValue(p?.tokenUsage);
        if (v !== null) this.setMeta('context', v);
        return;
      }
      case 'model/rerouted': {
        const m = str(p?.toModel);
        if (m) this.setMeta('model', m);
        return;
      }
      case 'error': {
        // A retry in progress is not the turn's failure; the last error that will not be retried is.
        if (p?.willRetry === true) return;
        this.lastError = str(p?.error?.message) ?? this.lastError;
        return;
      }
      case 'serverRequest/resolved': {
        const id = p?.requestId;
        if (typeof id === 'number' || typeof id === 'string') this.abortApproval(String(id));
        return;
      }
      case 'turn/completed':
        this.onTurnCompleted(p?.turn);
        return;
      default:
        return;
    }
  }

  private keepFileChange(id: string, item: Json): void {
    if (this.fileChanges.size >= CODEX_ITEMS_KEPT) {
      const oldest = this.fileChanges.keys().next().value;
      if (oldest !== undefined) this.fileChanges.delete(oldest);
    }
    this.fileChanges.set(id, fileChangesOf(item));
  }

  private onTurnCompleted(turn: Json): void {
    const id = str(turn?.id);
    if (id && this.turnId && id !== this.turnId) return; // another client's turn on a shared thread
    const status = str(turn?.status);
    if (status === 'interrupted') return this.endTurn({ kind: 'cancelled' });
    if (status === 'failed') {
      const why = str(turn?.error?.message) ?? this.lastError ?? 'the turn failed';
      return this.endTurn({ kind: 'failed', why });
    }
    // The reply is the turn's last agent message: the summary items hold it, else what streamed.
    let reply = this.lastMessage || this.streaming;
    if (Array.isArray(turn?.items)) {
      for (const it of turn.items) if (it?.type === 'agentMessage' && str(it.text)) reply = it.text;
    }
    this.endTurn({ kind: 'done', reply: firstLine(reply) });
  }

  private endTurn(end: Parameters<ProtoSink['turnEnded']>[0]): void {
    if (!this.turnOpen) return;
    this.turnOpen = false;
    this.turnId = null;
    this.abortApprovals();
    this.sink?.turnEnded(end);
  }

  private onRequest(id: string | number, method: string, p: Json): void {
    const rpc = this.rpc!;
    let approval: CodexApproval | null = null;
    if (method === 'item/commandExecution/requestApproval' && this.ours(p)) approval = commandApproval(p);
    else if (method === 'item/fileChange/requestApproval' && this.ours(p)) approval = fileChangeApproval(p, this.fileChanges.get(str(p?.itemId) ?? ''));
    if (!approval || !this.sink) {
      // Everything tuios does not handle: Codex reads this as not approved.
      rpc.respondError(id, METHOD_NOT_FOUND, `tuios agent-proto does not handle ${method.slice(0, 100)}`);
      return;
    }
    if (this.approvals.size >= CODEX_APPROVALS_PENDING_MAX) {
      rpc.respondError(id, METHOD_NOT_FOUND, `tuios agent-proto holds ${CODEX_APPROVALS_PENDING_MAX} approvals already`);
      return;
    }
    const key = String(id);
    const abort = new AbortController();
    this.approvals.set(key, { id, abort });
    const { decisions } = approval;
    this.sink.permission(approval.req, abort.signal).then(
      (choice) => {
        if (!this.approvals.has(key)) return; // answered elsewhere, or the turn ended
        this.approvals.delete(key);
        if (choice !== null && decisions.has(choice)) rpc.respond(id, { decision: decisions.get(choice) });
        else rpc.respond(id, { decision: decisions.has('decline') ? 'decline' : 'cancel' });
      },
      () => {
        if (!this.approvals.delete(key)) return;
        rpc.respond(id, { decision: decisions.has('decline') ? 'decline' : 'cancel' });
      },
    );
  }

  private abortApproval(key: string): void {
    const a = this.approvals.get(key);
    if (!a) return;
    this.approvals.delete(key);
    a.abort.abort();
  }

  private abortApprovals(): void {
    for (const k of [...this.approvals.keys()]) this.abortApproval(k);
  }

  private exit(why: string): void {
    if (this.gone) return;
    this.gone = true;
    this.turnOpen = false;
    this.abortApprovals();
    if (!this.closing) this.sink?.exited(why);
  }
}

/**
 * The adapter as proto/adapters.ts registers it. start() resolves either way: a start that failed
 * has told the pane through exited(why).
 */
export function codexAgent(o: AdapterOptions): ProtoAgent {
  const a = new CodexAgent(o);
  return {
    start: (sink) => a.start(sink).catch(() => undefined),
    prompt: (text) => a.prompt(text),
    cancel: () => a.cancel(),
    close: () => a.close(),
  };
}
