// A verb is one declarative entry: its name, its one params schema, its result schema, how the CLI
// prints that result, its help, what it targets, who may call it, and its handler. Socket
// validation, CLI flags and help, printing, `list-verbs`, the link policy and the hosted-pane
// forwarding are all read from it; nothing else describes a verb.
import { z } from 'zod';
import type { Services } from '../daemon/services.js';
import type { Session } from '../model/model.js';
import type { Window } from '../model/window.js';
import type { Caller } from './caller.js';
import type { ErrorBody } from '../errors.js';
import type { RemoteTarget } from '../hosts/target.js';

import { type VerbInfo } from './verb-info.js';

export { targetParams, fullSchema, type Target, type CliSpec, type Print, type VerbInfo } from './verb-info.js';

export interface VerbContext<P> {
  params: P;
  svc: Services;
  caller: Caller;
  /** Resolved by the dispatcher for `session`, `window` (the window's session) and their variants. */
  session: Session | null;
  window: Window | null;
  /** For a verb with hostRefs: the machine its session or window params name; null for this one. */
  remote: RemoteTarget | null;
  /** Aborted when the connection closes or the daemon stops: long verbs must end then. */
  signal: AbortSignal;
  /** For stream verbs: one more event line after the first result. */
  emit(event: unknown): void;
  /** For stream verbs: ends the stream, with an error line when given, and closes the connection. */
  end(error?: ErrorBody): void;
  /** Bytes sent to the caller that it has not read yet (a stream's backlog). */
  pendingBytes(): number;
}

/** A verb's whole record: what VerbInfo holds, and its handler. */
export interface VerbDef<S extends z.ZodObject = z.ZodObject, R extends z.ZodType = z.ZodType> extends VerbInfo<S, R> {
  run(ctx: VerbContext<z.infer<S>>): z.input<R> | Promise<z.input<R>>;
}

export function defineVerb<S extends z.ZodObject, R extends z.ZodType = z.ZodUnknown>(def: VerbDef<S, R>): VerbDef {
  return def as unknown as VerbDef;
}

