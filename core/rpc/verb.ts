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
import type { Access } from '../security/grants.js';

/**
 * What the dispatcher resolves before the handler runs:
 * - `none`: nothing.
 * - `session`: a session (named, the caller's own, or the most recent); error when none exists.
 * - `session-or-new`: as `session`, but an empty daemon gets a first session made for the call.
 * - `window`: a window (named, the caller's own pane, or the session's focused window).
 * - `window-optional`: a window when one is named or implied, else none (verbs that take both).
 */
export type Target = 'none' | 'session' | 'session-or-new' | 'window' | 'window-optional';

export interface CliSpec {
  /** Param names filled, in order, from positional arguments. */
  positionals?: string[];
  /** A param (string array) that takes every positional argument after `positionals`. */
  rest?: string;
  /** `rest` is a command line: once it starts, every later word (flags, `--`) belongs to it. */
  command?: boolean;
  /** One-letter flags and the param each stands for, e.g. { m: 'message' }. */
  short?: Record<string, string>;
  /** Array params a CLI flag may give comma separated (`--if-state idle,done`). */
  comma?: string[];
  /** Other command words that reach this verb (`queue` for queue-prompt). */
  aliases?: string[];
  /** After an alias, words that name another verb (`queue ls` is list-queued). */
  subcommands?: Record<string, string>;
  /** Usage line shown in help, after `tuios`. */
  usage?: string;
  /** A param the CLI fills with the caller's folder when it is not given (`new-session` starts where you are). */
  callerCwd?: string;
}

export interface VerbContext<P> {
  params: P;
  svc: Services;
  caller: Caller;
  /** Resolved by the dispatcher for `session`, `window` (the window's session) and their variants. */
  session: Session | null;
  window: Window | null;
  /** Aborted when the connection closes or the daemon stops: long verbs must end then. */
  signal: AbortSignal;
  /** For stream verbs: one more event line after the first result. */
  emit(event: unknown): void;
  /** For stream verbs: ends the stream, with an error line when given, and closes the connection. */
  end(error?: ErrorBody): void;
  /** Bytes sent to the caller that it has not read yet (a stream's backlog). */
  pendingBytes(): number;
}

/**
 * How the CLI (and ssh exec) prints a result without --json: a function of the result, `fields`
 * for `key: value` lines (JSON when a value is nested), or `none` for a verb whose success says
 * nothing. The daemon runs it for a caller that asks (core/rpc/print.ts), so the CLI bundle never
 * takes in a handler.
 */
export type Print<R> = ((result: R) => string) | 'fields' | 'none';

export interface VerbDef<S extends z.ZodObject = z.ZodObject, R extends z.ZodType = z.ZodType> {
  name: string;
  summary: string;
  /** Longer help: what it does and what its result holds. */
  help?: string;
  params: S;
  /**
   * What a call answers (a stream verb: its first result): the fields a caller may rely on. Extra
   * fields are allowed, not promised. Test daemons check every result against it
   * (TUIOS_CHECK_RESULTS=1, core/rpc/dispatch.ts).
   */
  result?: R;
  /** How the result prints; see Print. */
  print?: Print<z.output<R>>;
  target: Target;
  /** Changes state (a write verb): read-only channels (ssh exec by default) refuse it. */
  mutates: boolean;
  /** Answers a first result and then events until the caller or the verb ends it. */
  stream?: boolean;
  /** `-w human` names the person's mailbox here, not a window. */
  humanMailbox?: boolean;
  /** What a caller inside a pane needs (default: write for a verb that mutates, else read). */
  access?: Access;
  /** It types into its target window: the typing rules of grants apply, now and right before the write. */
  types?: boolean;
  /**
   * How a linked host may call it; link/policy.ts derives the right it needs from this, `access`
   * and `mutates`. `untargeted`: it has no target and still runs for a linked host (reads of the
   * whole machine, the fleet verbs that start work here); `right`: the right it needs when its
   * access does not say (`respond` for an answer its handler judges, `files` for a read of files'
   * content).
   */
  link?: { untargeted?: boolean; right?: 'respond' | 'files' };
  /**
   * A process in a pane whose window lives on another machine may call it as that window
   * (core/hosts/hosted-pane.ts): `report` its state and what it does, `mail` as the pane, `wait`
   * a call that waits on purpose, bounded by its budget.
   */
  hosted?: 'report' | 'mail' | 'wait';
  cli?: CliSpec;
  /**
   * A verb that waits on purpose (for agents to be ready, for a checkout): the longest it may run
   * with these params. A call to it over a link waits this plus LINK_CALL_MARGIN_MS instead of the
   * generic LINK_CALL_TIMEOUT_MS.
   */
  budgetMs?(params: z.infer<S>): number;
  run(ctx: VerbContext<z.infer<S>>): z.input<R> | Promise<z.input<R>>;
}

/** The params every targeted verb accepts; the dispatcher consumes them. */
export const targetParams = {
  session: z.string().min(1).max(300).optional().describe('The session: name, id or id prefix (-s)'),
  window: z.string().min(1).max(300).optional().describe('The window: id, short id, or name (-w)'),
};

export function defineVerb<S extends z.ZodObject, R extends z.ZodType = z.ZodUnknown>(def: VerbDef<S, R>): VerbDef {
  return def as unknown as VerbDef;
}

/**
 * The schema actually validated: the verb's own params plus the target params it implies.
 * Unknown params are dropped, not refused (spec: a newer hook talking to an older daemon), which
 * is why callers that care ask `list-verbs` first.
 */
export function fullSchema(v: VerbDef): z.ZodObject {
  if (v.target === 'none') return v.params;
  const extra: Record<string, z.ZodType> = {};
  if (!('session' in v.params.shape)) extra.session = targetParams.session;
  if (v.target.startsWith('window') && !('window' in v.params.shape)) extra.window = targetParams.window;
  return v.params.extend(extra);
}
