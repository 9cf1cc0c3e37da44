// A verb's record less its handler (core/rpc/verb.ts adds `run`): its name, its params and result
// schemas, how the CLI prints it, what it targets and who may call it. What reads records without
// running them (printing, list-verbs, the link policy, the hosted-pane forwarding) takes this, so
// it never takes in the daemon's services.
import { z } from 'zod';
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

/**
 * How the CLI (and ssh exec) prints a result without --json: a function of the result, `fields`
 * for `key: value` lines (JSON when a value is nested), or `none` for a verb whose success says
 * nothing. The daemon runs it for a caller that asks (core/rpc/print.ts), so the CLI bundle never
 * takes in a handler.
 */
export type Print<R> = ((result: R) => string) | 'fields' | 'none';

/** A verb's record less its handler: what the CLI, the link policy, the hosted-pane forwarding and
 * printing read, without taking in the services a handler runs with. */
export interface VerbInfo<S extends z.ZodObject = z.ZodObject, R extends z.ZodType = z.ZodType> {
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
  result: R;
  /** How the result prints; see Print. */
  print: Print<z.output<R>>;
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
  link?: { untargeted?: boolean; right?: 'respond' | 'files' | 'write' };
  /**
   * A process in a pane whose window lives on another machine may call it as that window
   * (core/hosts/hosted-pane.ts): `report` its state and what it does, `mail` as the pane, `wait`
   * a call that waits on purpose, bounded by its budget.
   */
  hosted?: 'report' | 'mail' | 'wait';
  /**
   * A verb with no target the dispatcher resolves (target none) whose session and window params
   * may still name another machine: the dispatcher parses HOST:SESSION and HOST:SESSION:WINDOW
   * (`local:` names this machine and is stripped from the params) and hands the handler
   * `ctx.remote`, the host and the refs as it reads them; the handler decides how that machine is
   * reached (a pull fetches from it, a fan or a message runs there). Handlers never parse a target.
   */
  hostRefs?: boolean;
  cli?: CliSpec;
  /**
   * It is a tool of `tuios mcp` (core/cli/mcp.ts): the tool's name, whether only `--write` offers
   * it, and whether its result carries a pane's text or a peer's mail (the tool's answer then says
   * that it is data, not instructions). The tool's input schema is `params` (with the target
   * params), its output schema `result`.
   */
  mcp?: { tool: string; writes?: boolean; data?: boolean };
  /**
   * A verb that waits on purpose (for agents to be ready, for a checkout): the longest it may run
   * with these params. A call to it over a link waits this plus LINK_CALL_MARGIN_MS instead of the
   * generic LINK_CALL_TIMEOUT_MS.
   */
  budgetMs?(params: z.infer<S>): number;
}

/** The params every targeted verb accepts; the dispatcher consumes them. */
export const targetParams = {
  session: z.string().min(1).max(300).optional().describe('The session: name, id or id prefix (-s)'),
  window: z.string().min(1).max(300).optional().describe('The window: id, short id, or name (-w)'),
};

/**
 * The schema actually validated: the verb's own params plus the target params it implies.
 * Unknown params are dropped, not refused (spec: a newer hook talking to an older daemon), which
 * is why callers that care ask `list-verbs` first.
 */
export function fullSchema(v: VerbInfo): z.ZodObject {
  if (v.target === 'none') return v.params;
  const extra: Record<string, z.ZodType> = {};
  if (!('session' in v.params.shape)) extra.session = targetParams.session;
  if (v.target.startsWith('window') && !('window' in v.params.shape)) extra.window = targetParams.window;
  return v.params.extend(extra);
}
