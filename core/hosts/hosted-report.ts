// The owner's side of a report from one of its windows that runs on a linked host: the call runs
// here as that window, a caller inside that pane, and nothing else (hosted-pane.ts is the window).
import type { Services } from '../daemon/services.js';
import type { Caller } from '../rpc/caller.js';
import { HOSTED_DROPPED_PARAMS, HostedPane, hostedVerbNames, hostedWaitMs, hostedWaitRefusal } from './hosted-pane.js';
import { jsonObject } from './streams.js';
import { TuiosError } from '../errors.js';

/**
 * A report from the process of one of our windows that runs on `host`: it runs here as that
 * window, a caller inside that pane, whatever session or window it names. A window that is not
 * ours, not on that host, or no longer running there is refused `forbidden`. `signal` is the
 * link's: a wait (wait-for agent-message, request-approval's hold) ends when the link drops.
 */
export async function runHostedReport(svc: Services, host: string, asWindow: string | null, verb: string, paramsJson: string, signal?: AbortSignal): Promise<unknown> {
  if (!asWindow) throw new TuiosError('forbidden', 'A linked host calls this machine only to report for a pane of ours that runs there.');
  const w = svc.model.windows.get(asWindow);
  if (!w || w.closed || w.host !== host || !(w.process instanceof HostedPane) || w.process.status !== 'running') {
    throw new TuiosError('forbidden', `${host} runs no live pane of this machine's with the id ${asWindow.slice(0, 64)}.`);
  }
  const kind = svc.dispatcher.get(verb)?.hosted;
  if (!kind) {
    throw new TuiosError('forbidden', `${verb.slice(0, 64)} is not taken from a pane on another machine.`, `A pane there calls: ${hostedVerbNames(svc.dispatcher.list()).join(', ')}.`);
  }
  const mail = kind === 'mail';
  const waits = kind === 'wait';
  const params = jsonObject(paramsJson);
  if (!params) throw new TuiosError('invalid_params', 'The report\'s params are not a JSON object.');
  if (mail) delete params.nonce;
  else {
    for (const k of HOSTED_DROPPED_PARAMS) delete params[k];
    params.window = w.id;
  }
  if (waits) {
    const why = hostedWaitRefusal(verb, params);
    if (why) throw new TuiosError('forbidden', why);
    // A wait on the window's own mailbox, for at most an hour.
    if (verb === 'wait-for') params.timeout = hostedWaitMs(params.timeout);
  }
  const caller: Caller = { connId: 0, channel: 'socket', pid: null, uid: null, readOnly: false, paneHint: w.id, host, placement: { kind: 'pane', window: w, how: `its process runs on ${host}` } };
  const run = svc.dispatcher.call(verb, params, caller, undefined, signal);
  if (waits) {
    // The wait listens from here on (the dispatcher starts it before its first turn).
    const fields = { host, window: w.id, verb: verb === 'wait-for' ? 'wait-for agent-message' : verb };
    svc.log.info('hosted pane wait began', fields);
    // A wait the link ended settles with nothing (its caller went): said as such.
    run.then(
      () => svc.log.info('hosted pane wait ended', { ...fields, outcome: signal?.aborted ? 'link dropped' : 'answered' }),
      (e: unknown) => svc.log.info('hosted pane wait ended', { ...fields, outcome: signal?.aborted ? 'link dropped' : e instanceof TuiosError ? e.code : 'error' }),
    );
  }
  return run;
}
