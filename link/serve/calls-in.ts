// A verb a linked host calls here: judged by that host's [hosts] policy, then run by the
// dispatcher like any call, as a caller of the `link` channel. The verb's own zod schema validates
// the params; a caller of the link is never the person unless the host vouched for the person and
// this policy gives respond.
import type { Services } from '../../core/daemon/services.js';
import type { Caller } from '../../core/rpc/caller.js';
import type { Bodies } from '../codec/schema.js';
import { TuiosError, toErrorBody } from '../../core/errors.js';
import { checkAdmin, checkRight, readOnlyBy, rightFor, type LinkPolicy } from '../policy.js';

let nextConn = 2_000_000;

export async function runCall(svc: Services, host: string, policy: LinkPolicy, c: Bodies['Call'], signal: AbortSignal): Promise<Bodies['Result']> {
  try {
    const verb = svc.dispatcher.get(c.verb);
    if (!verb) throw new TuiosError('unknown_verb', `There is no verb "${c.verb.slice(0, 64)}" here.`, 'The hosts may run different versions of tuios.');
    const right = rightFor(verb);
    checkRight(policy, host, right, verb.name);
    const vouched = c.outside && policy.respond;
    checkAdmin(verb, host, vouched);
    let params: unknown;
    try {
      params = JSON.parse(c.params);
    } catch {
      throw new TuiosError('invalid_request', 'The call\'s params are not JSON.');
    }
    if (!params || typeof params !== 'object' || Array.isArray(params)) throw new TuiosError('invalid_params', 'The call\'s params must be an object.');
    // A nonce is this machine's secret: a call from a link never carries one that could verify.
    delete (params as Record<string, unknown>).nonce;
    const by = readOnlyBy(policy, host);
    const caller: Caller = { connId: nextConn++, channel: 'link', pid: null, uid: null, readOnly: !policy.write, ...(by ? { readOnlyBy: by } : {}), paneHint: null, host, vouched };
    const result = await svc.dispatcher.call(verb.name, params as Record<string, unknown>, caller, undefined, signal);
    return { id: c.id, ok: true, result: JSON.stringify(result ?? {}), error: 'null' };
  } catch (e) {
    const b = toErrorBody(e);
    if (b.code === 'internal') svc.log.error('link call failed', { host, verb: c.verb.slice(0, 64), error: e instanceof Error ? e.stack : String(e) });
    return { id: c.id, ok: false, result: 'null', error: JSON.stringify(b) };
  }
}
