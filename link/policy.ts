// What a linked host may do here: its `[hosts.NAME]` table on this machine (spec: What another
// machine may do here). A host with no table gets the defaults: it may list and write, and may
// not answer prompts, read files or have its mail held. Every remote call is judged here before
// it runs; a refusal answers `forbidden`.
import type { Config } from '../core/config/schema.js';
import type { VerbDef } from '../core/rpc/verb.js';
import { TuiosError } from '../core/errors.js';

export interface LinkPolicy {
  list: boolean;
  write: boolean;
  respond: boolean;
  files: boolean;
  hold_mail: boolean;
  /** When set, the host's links must authenticate with this key (SHA256:...). */
  key: string | null;
}

export type Right = 'list' | 'write' | 'respond' | 'files';

export function policyFor(c: Config, host: string): LinkPolicy {
  const h = c.hosts[host];
  if (!h) return { list: true, write: true, respond: false, files: false, hold_mail: false, key: null };
  return { list: h.list, write: h.write, respond: h.respond, files: h.files, hold_mail: h.hold_mail, key: h.key ?? null };
}

/** Acts of the person: over a link they need respond (and the host's vouch, checked by the verb). */
const PERSON_VERBS = new Set(['respond', 'release-agent-message', 'answer-ask', 'reply-approval', 'dismiss-attention', 'mark-attention', 'focus-window']);

/**
 * Verbs without a target that a linked host may still call: reads of the whole machine, release,
 * and the fleet verbs that start work here (`worktree new --host`, `fan --host`, `start-agent -s
 * HOST:SESSION`, `worktree rm HOST:SESSION`), which change something and so need write, and
 * `worktree diff HOST:SESSION`, which needs files.
 */
const UNTARGETED = new Set(['list-agents', 'list-attention', 'list-sessions', 'list-windows', 'list-verbs', 'server-info', 'release-agent-message', 'new-worktree', 'fan-out', 'start-agent', 'diff-worktree', 'remove-worktree']);

/** Reads of files' content (`worktree diff HOST:SESSION`): files, as `worktree pull` needs. */
const FILE_VERBS = new Set(['diff-worktree']);

/** The right a verb needs over a link, or a refusal for a verb that never runs over one. */
export function rightFor(v: VerbDef): Right {
  if (v.stream) throw new TuiosError('unsupported', `${v.name} streams, and a stream does not run over a link.`);
  if (v.target === 'none' && !UNTARGETED.has(v.name)) throw new TuiosError('forbidden', `${v.name} does not run for a linked host.`, 'Run it on this machine itself.');
  if (PERSON_VERBS.has(v.name) || v.access === 'respond') return 'respond';
  if (FILE_VERBS.has(v.name)) return 'files';
  if (v.mutates) return 'write';
  return 'list';
}

const RIGHT_WORDS: Record<Right, string> = { list: 'read here', write: 'change anything here', respond: 'answer prompts or act as the person here', files: 'read files here' };

/** Throws forbidden, naming the key that would allow it, when the policy does not give `right`. */
export function checkRight(p: LinkPolicy, host: string, right: Right, what: string): void {
  if (p[right]) return;
  throw new TuiosError('forbidden', `${what} is refused: the linked host ${host} may not ${RIGHT_WORDS[right]}.`, `On this machine, [hosts.${host}] ${right} = true allows it.`);
}

/** Admin verbs (kill-session, new-window, ...) also need the person there, vouched, besides write. */
export function checkAdmin(v: VerbDef, host: string, vouched: boolean): void {
  if (v.access !== 'admin' || vouched) return;
  throw new TuiosError('forbidden', `${v.name} is refused: over a link it needs the person on ${host}, with respond allowed for ${host} here.`);
}
