// The dispatcher: one request in, one answer (or a stream) out. It parses the envelope, finds the
// verb, validates params against the verb's one schema, resolves -s/-w into objects (the caller's
// own pane first), forwards a target on another machine to the link, refuses writes on read-only
// channels, and runs the handler. Handlers never parse targets and never see a malformed request.
import { z } from 'zod';
import type { Services } from '../daemon/services.js';
import type { Caller } from './caller.js';
import { fullSchema, type VerbDef, type VerbContext } from './verb.js';
import { TuiosError, toErrorBody, type ErrorBody } from '../errors.js';
import type { Session } from '../model/model.js';
import type { Window } from '../model/window.js';
import { enforce, enforceRestriction } from '../security/access.js';
import { printResult } from './print.js';
import type { Responder } from './responder.js';
import { jsonNestsDeeper } from './json-depth.js';
import { MAX_JSON_DEPTH } from '../limits.js';

export type { Responder } from './responder.js';


export type RequestId = string | number | null;

interface Envelope {
  id: RequestId;
  verb: string;
  params: Record<string, unknown>;
  pane: string | null;
  /** The caller prints the result as text (the CLI without --json): the answer carries `text`. */
  print: boolean;
}

export interface DispatcherOptions {
  /**
   * Check every result against its verb's result schema and answer `internal` where one does
   * not match: what test daemons run with (TUIOS_CHECK_RESULTS=1), so the whole e2e suite is the
   * contract test of the records.
   */
  checkResults?: boolean;
}

export class Dispatcher {
  private readonly verbs = new Map<string, VerbDef>();
  private readonly schemas = new Map<string, z.ZodObject>();

  constructor(
    private readonly svc: Services,
    verbs: readonly VerbDef[],
    private readonly opts: DispatcherOptions = {},
  ) {
    for (const v of verbs) {
      if (this.verbs.has(v.name)) throw new Error(`verb ${v.name} is registered twice`);
      this.verbs.set(v.name, v);
      this.schemas.set(v.name, fullSchema(v));
    }
  }

  list(): VerbDef[] {
    return [...this.verbs.values()];
  }

  get(name: string): VerbDef | undefined {
    return this.verbs.get(name);
  }

  schemaOf(name: string): z.ZodObject | undefined {
    return this.schemas.get(name);
  }

  /**
   * One line from a socket. Never throws: every failure is an error line on that connection.
   * Resolves once the line is answered (a stream: its first answer), which is when the
   * connection's flow control counts it done.
   */
  handleLine(line: string, caller: Caller, out: Responder): Promise<void> {
    let env: Envelope;
    try {
      env = parseEnvelope(line);
    } catch (e) {
      out.send({ id: idOf(line), error: toErrorBody(e) });
      return Promise.resolve();
    }
    return this.run(env, caller, out);
  }

  /** An in-process call (the TUI, the SSH exec channel, remote calls over a link). */
  async call(verb: string, params: Record<string, unknown>, caller: Caller, out?: Responder, signal?: AbortSignal): Promise<unknown> {
    const ctl = new AbortController();
    // The owner's signal (a link that dropped) ends the call as a closed connection would.
    if (signal) {
      if (signal.aborted) ctl.abort();
      else signal.addEventListener('abort', () => ctl.abort(), { once: true });
    }
    let result: unknown;
    let error: ErrorBody | undefined;
    const sink: Responder = out ?? {
      send: (m: { result?: unknown; error?: ErrorBody }) => {
        if ('error' in m) error = m.error;
        else if ('result' in m) result = m.result;
      },
      pendingBytes: () => 0,
      close: () => ctl.abort(),
      signal: ctl.signal,
    };
    await this.run({ id: 0, verb, params, pane: null, print: false }, caller, sink);
    if (error) throw new TuiosError(error.code, error.message, error.hint, error);
    return result;
  }

  private async run(env: Envelope, caller: Caller, out: Responder): Promise<void> {
    const { id } = env;
    const log = this.svc.log;
    try {
      const verb = this.verbs.get(env.verb);
      if (!verb) {
        throw new TuiosError('unknown_verb', `There is no verb "${env.verb}".`, 'List the verbs with: tuios list-verbs');
      }
      if (verb.mutates && caller.readOnly) {
        // The reason names the setting that made it read-only; the hint, the one that would allow it.
        const by = caller.readOnlyBy ?? { why: '[ssh] exec_write is off', allow: '[ssh] exec_write = true' };
        throw new TuiosError('forbidden', `${verb.name} is refused (read-only): ${by.why}.`, `${by.allow} allows it.`);
      }
      const params = validate(this.schemas.get(verb.name)!, env.params);
      enforceRestriction(this.svc, caller, verb, params as Record<string, unknown>);
      const answer = (result: unknown): void => {
        if (out.signal.aborted) return;
        const body = result ?? {};
        if (this.opts.checkResults) checkResult(verb, body);
        out.send(env.print ? { id, result: body, text: printResult(verb, body) } : { id, result: body });
      };
      if (env.pane && !caller.paneHint) caller.paneHint = env.pane;
      // A report from a pane this machine runs for a window on another: the window's owner runs it.
      const hosted = this.svc.hostedPanes.route(verb, params, caller, out.signal, this.list());
      if (hosted) {
        answer(await hosted);
        return;
      }
      // A target on another machine: the call runs there, under that machine's link policy. A verb
      // with hostRefs gets the machine in ctx.remote and reaches it its own way.
      const remote = this.svc.forward.targetFor(verb, params);
      if (remote && caller.restrictedTo) throw new TuiosError('forbidden', `${verb.name} is refused: this connection was restricted to a pane's reach, and the target is on another machine.`);
      if (remote && !verb.hostRefs) {
        answer(await this.svc.forward.call(verb, remote, params, caller, out.signal));
        return;
      }
      const { session, window } = this.resolveTargets(verb, params, caller);
      // Access, decided here once from the record, before anything runs: the person's nonce for
      // the person's acts, the grants for a caller inside a pane.
      const access = verb.access ?? (verb.mutates ? 'write' : 'read');
      if (access === 'person') this.svc.person.verify(caller, this.svc.placement(caller), (params as { nonce?: string }).nonce, verb.name);
      enforce(this.svc, caller, { verb: verb.name, access, target: window, sessionId: session?.id ?? null, types: verb.types });
      let ended = false;
      let answered = false;
      const early: unknown[] = [];
      const ctx: VerbContext<unknown> = {
        params,
        svc: this.svc,
        caller,
        session,
        window,
        remote: verb.hostRefs ? remote : null,
        signal: out.signal,
        pendingBytes: () => out.pendingBytes(),
        emit: (event) => {
          if (ended || out.signal.aborted) return;
          // An event raised before the first result goes out after it, in order.
          if (!answered) early.push(event);
          else out.send({ id, event });
        },
        end: (error) => {
          if (ended) return;
          ended = true;
          if (error) out.send({ id, error });
          out.close();
        },
      };
      const result = await verb.run(ctx as VerbContext<never>);
      if (ended) return;
      // A change the caller is told of is on disk first: a kill -9 after the answer loses nothing
      // it acknowledged (the snapshot otherwise waits out its debounce).
      if (verb.mutates) this.svc.snapshot?.flush();
      answer(result);
      answered = true;
      for (const event of early) out.send({ id, event });
    } catch (e) {
      const body = toErrorBody(e);
      if (body.code === 'internal') log.error('verb failed', { verb: env.verb, error: e instanceof Error ? e.stack : String(e) });
      else log.debug('verb refused', { verb: env.verb, code: body.code });
      if (!out.signal.aborted) out.send({ id, error: body });
    }
  }

  /** -s/-w into objects. The caller's own pane is the default window, its session the default session. */
  resolveTargets(verb: VerbDef, params: Record<string, unknown>, caller: Caller): { session: Session | null; window: Window | null } {
    const model = this.svc.model;
    const t = verb.target;
    if (t === 'none') return { session: null, window: null };
    const sRef = typeof params.session === 'string' ? params.session : undefined;
    const wRef = typeof params.window === 'string' ? params.window : undefined;
    const own = this.svc.callerPane(caller);
    const named = sRef !== undefined ? model.findSession(sRef) : null;

    if (t === 'window' || t === 'window-optional') {
      if (wRef === 'human' && verb.humanMailbox) return { session: named, window: null };
      if (wRef !== undefined) {
        const w = model.findWindow(wRef, named ?? undefined);
        return { session: model.sessionOf(w), window: w };
      }
      if (named) {
        const w = own && own.sessionId === named.id ? own : model.focusedWindow(named) ?? null;
        if (!w && t === 'window') throw new TuiosError('window_not_found', `The session ${named.name} has no windows.`);
        return { session: named, window: w };
      }
      if (own) return { session: model.sessionOf(own), window: own };
      const s = model.mostRecentSession() ?? null;
      const w = s ? model.focusedWindow(s) ?? null : null;
      if (!w && t === 'window') {
        throw new TuiosError('window_not_found', 'There is no window to act on.', 'Create one with: tuios new-window NAME, or name one with -w.');
      }
      return { session: s, window: w };
    }

    // session targets
    if (named) return { session: named, window: null };
    if (own) return { session: model.sessionOf(own), window: null };
    const recent = model.mostRecentSession();
    if (recent) return { session: recent, window: null };
    if (t === 'session-or-new') return { session: null, window: null };
    throw new TuiosError('session_not_found', 'There is no session yet.', 'Create one with: tuios new-session NAME');
  }
}

function parseEnvelope(line: string): Envelope {
  if (jsonNestsDeeper(line, MAX_JSON_DEPTH)) {
    throw new TuiosError('invalid_request', `The request nests deeper than ${MAX_JSON_DEPTH} levels.`, 'Send params as plain JSON values; no verb takes deeper nesting.');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    throw new TuiosError('invalid_request', 'The request is not valid JSON.', 'Send one JSON object per line: {"id":1,"verb":"list-verbs","params":{}}');
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new TuiosError('invalid_request', 'The request must be a JSON object.', 'Send {"id":1,"verb":"NAME","params":{...}}');
  }
  const o = raw as Record<string, unknown>;
  const id = typeof o.id === 'string' || typeof o.id === 'number' ? o.id : null;
  if (typeof o.verb !== 'string' || o.verb.length === 0) {
    throw new TuiosError('invalid_request', 'The request has no "verb".', 'Name the verb: {"id":1,"verb":"list-verbs"}');
  }
  let params: Record<string, unknown> = {};
  if (o.params !== undefined && o.params !== null) {
    if (typeof o.params !== 'object' || Array.isArray(o.params)) {
      throw new TuiosError('invalid_params', '"params" must be a JSON object.', undefined, { field: 'params' });
    }
    params = o.params as Record<string, unknown>;
  }
  const pane = typeof o.pane === 'string' && o.pane.length <= 64 ? o.pane : null;
  return { id, verb: o.verb, params, pane, print: o.print === true };
}

function idOf(line: string): RequestId {
  if (jsonNestsDeeper(line, MAX_JSON_DEPTH)) return null;
  try {
    const o = JSON.parse(line) as { id?: unknown };
    return typeof o?.id === 'string' || typeof o?.id === 'number' ? o.id : null;
  } catch {
    return null;
  }
}

function validate(schema: z.ZodObject, params: Record<string, unknown>): Record<string, unknown> {
  const r = schema.safeParse(params);
  if (r.success) return r.data as Record<string, unknown>;
  const issue = r.error.issues[0]!;
  const field = issue.path.map(String).join('.') || '(params)';
  const missing = issue.code === 'invalid_type' && (params as Record<string, unknown>)[String(issue.path[0])] === undefined;
  const message = missing ? `The param "${field}" is required.` : `The param "${field}" is invalid: ${issue.message}.`;
  throw new TuiosError('invalid_params', message, 'See the verb\'s params with: tuios list-verbs', { field });
}

/** A result its record does not promise: a defect in the verb, told as one (test daemons only). */
function checkResult(verb: VerbDef, result: unknown): void {
  const r = verb.result.safeParse(result);
  if (r.success) return;
  const issue = r.error.issues[0]!;
  const at = issue.path.map(String).join('.') || '(result)';
  throw new TuiosError('internal', `The result of ${verb.name} does not match its schema at ${at}: ${issue.message}.`);
}
