// A call whose target is on another machine runs there: the dispatcher hands it to the link with
// the host part of its targets removed. What this machine checks first: the verb can travel (no
// streams), a caller inside a pane holds admin (another machine is never in a pane's reach
// otherwise), and the person is vouched for only when their nonce verifies here. The nonce itself
// never leaves this machine. A verb with a budget (fan, start-agent, worktree new) waits that long
// for its answer, not the link's generic cap.
import type { Services } from '../daemon/services.js';
import type { Caller } from '../rpc/caller.js';
import type { VerbInfo } from '../rpc/verb-info.js';
import { TuiosError } from '../errors.js';
import { enforce } from '../security/access.js';
import { remoteTargetOf, type RemoteTarget } from './target.js';
import { LINK_CALL_MARGIN_MS } from '../limits.js';
import { callWithParts } from './forward-parts.js';

/**
 * The machine a call's session and window params name, for a targeted verb or one with hostRefs;
 * null when it runs here (with `local:` stripped in place).
 */
export function remoteTargetFor(svc: Services, verb: VerbInfo, params: Record<string, unknown>): RemoteTarget | null {
  if (verb.target === 'none' && !verb.hostRefs) return null;
  const session = typeof params.session === 'string' ? params.session : undefined;
  const window = typeof params.window === 'string' && !(params.window === 'human' && verb.humanMailbox) ? params.window : undefined;
  if (session === undefined && window === undefined) return null;
  const r = remoteTargetOf({ session, window }, svc.remote, (name) => !!svc.model.sessionByName(name));
  if ('local' in r) {
    if (session !== undefined) params.session = r.local.session;
    if (window !== undefined) params.window = r.local.window;
    return null;
  }
  return r.remote;
}

export async function forwardCall(svc: Services, verb: VerbInfo, target: RemoteTarget, params: Record<string, unknown>, caller: Caller, signal: AbortSignal): Promise<unknown> {
  const remote = svc.remote;
  if (!remote) throw new TuiosError('unsupported', 'This daemon has no link between hosts.', 'Run it on that machine itself.');
  if (verb.stream) throw new TuiosError('unsupported', `${verb.name} streams, and a stream does not run on another machine yet.`, `Run it there: ssh ${target.host} tuios ${verb.name} ...`);
  if (caller.channel === 'link') throw new TuiosError('forbidden', 'A call from a linked host does not travel on to another machine.');
  enforce(svc, caller, { verb: verb.name, access: 'admin', target: null });
  const p = svc.placement(caller);
  const nonce = typeof params.nonce === 'string' ? params.nonce : undefined;
  const vouched = p.kind === 'outside' && svc.person.verifies(caller, p, nonce);
  const out: Record<string, unknown> = { ...params };
  delete out.nonce;
  delete out.session;
  delete out.window;
  if (target.session !== undefined) out.session = target.session;
  if (target.window !== undefined) out.window = target.window;
  // A verb that waits on purpose carries its own deadline; every other call has the link's cap.
  const budget = verb.budgetMs?.(out as never);
  const timeoutMs = budget !== undefined && Number.isFinite(budget) ? budget + LINK_CALL_MARGIN_MS : undefined;
  const send = (name: string, params: Record<string, unknown>) => remote.call(target.host, name, params, { vouched, signal, timeoutMs });
  // A message in parts: its blocks may be larger than one call over the link (forward-parts.ts).
  if (Array.isArray(out.parts)) return callWithParts(send, target.host, verb.name, out);
  return send(verb.name, out);
}
