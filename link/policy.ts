// What a linked host may do here: its `[hosts.NAME]` table on this machine (spec: What another
// machine may do here). A host with no table gets the defaults: it may list and write, and may
// not answer prompts, read files or have its mail held. Every remote call is judged here before
// it runs; a refusal answers `forbidden`.
import type { Config } from '../core/config/schema.js';
import type { VerbInfo } from '../core/rpc/verb-info.js';
import { TuiosError } from '../core/errors.js';

export interface LinkPolicy {
  list: boolean;
  write: boolean;
  respond: boolean;
  files: boolean;
  hold_mail: boolean;
  /** The host only watches here: write and respond are off, whatever they say (spec: observe-only access). */
  observe: boolean;
  /** When set, the host's links must authenticate with this key (SHA256:...). */
  key: string | null;
}

export type Right = 'list' | 'write' | 'respond' | 'files';

export function policyFor(c: Config, host: string): LinkPolicy {
  const h = c.hosts[host];
  if (!h) return { list: true, write: true, respond: false, files: false, hold_mail: false, observe: false, key: null };
  // observe wins over write and respond: a host that watches changes nothing and answers nothing.
  return { list: h.list, write: h.write && !h.observe, respond: h.respond && !h.observe, files: h.files, hold_mail: h.hold_mail, observe: h.observe, key: h.key ?? null };
}

/**
 * The right a verb needs over a link, from its record, or a refusal for a verb that never runs over
 * one: the person's acts and answers need respond (and the host's vouch, which the dispatcher
 * checks with the nonce); a read of files' content needs files (`worktree diff HOST:SESSION`, as
 * `worktree pull` needs); a change needs write. A verb without a target runs for a linked host only
 * when its record says so (`link.untargeted`: reads of the whole machine, and the fleet verbs that
 * start work here).
 */
export function rightFor(v: VerbInfo): Right {
  if (v.stream) throw new TuiosError('unsupported', `${v.name} streams, and a stream does not run over a link.`);
  if (v.target === 'none' && !v.link?.untargeted) throw new TuiosError('forbidden', `${v.name} does not run for a linked host.`, 'Run it on this machine itself.');
  if (v.access === 'person' || v.access === 'respond' || v.link?.right === 'respond') return 'respond';
  if (v.link?.right === 'files') return 'files';
  // A read that carries file contents and is not the host's to take unasked (review-diff).
  if (v.link?.right === 'write') return 'write';
  if (v.mutates) return 'write';
  return 'list';
}

const RIGHT_WORDS: Record<Right, string> = { list: 'read here', write: 'change anything here', respond: 'answer prompts or act as the person here', files: 'read files here' };

/** Throws forbidden, naming the key that would allow it, when the policy does not give `right`. */
export function checkRight(p: LinkPolicy, host: string, right: Right, what: string): void {
  if (p[right]) return;
  if (p.observe && (right === 'write' || right === 'respond')) {
    throw new TuiosError('forbidden', `${what} is refused: the linked host ${host} only observes here ([hosts.${host}] observe = true), and may not ${RIGHT_WORDS[right]}.`, `On this machine, [hosts.${host}] observe = false${right === 'respond' ? ' with respond = true' : ''} allows it.`);
  }
  throw new TuiosError('forbidden', `${what} is refused: the linked host ${host} may not ${RIGHT_WORDS[right]}.`, `On this machine, [hosts.${host}] ${right} = true allows it.`);
}

/** Why a link call may not write, and what allows it, for the dispatcher's read-only refusal. */
export function readOnlyBy(p: LinkPolicy, host: string): { why: string; allow: string } | undefined {
  if (p.observe) return { why: `the linked host ${host} only observes here ([hosts.${host}] observe = true)`, allow: `On this machine, [hosts.${host}] observe = false` };
  if (!p.write) return { why: `the linked host ${host} may not change anything here ([hosts.${host}] write = false)`, allow: `On this machine, [hosts.${host}] write = true` };
  return undefined;
}

/** Admin verbs (kill-session, new-window, ...) also need the person there, vouched, besides write. */
export function checkAdmin(v: VerbInfo, host: string, vouched: boolean): void {
  if (v.access !== 'admin' || vouched) return;
  throw new TuiosError('forbidden', `${v.name} is refused: over a link it needs the person on ${host}, with respond allowed for ${host} here.`);
}
