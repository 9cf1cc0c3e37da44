// What a pane may do through tuios (spec: What a pane may do). Every call from a caller inside a
// pane is checked against the pane's grants before it runs, and a call that types is checked
// again right before the text is written. The person's own shell and client, outside every pane,
// are held to nothing new.
import { TuiosError } from '../errors.js';
import type { Window } from '../model/window.js';
import type { Model } from '../model/model.js';

export const GRANTS = ['read', 'write', 'fan', 'respond', 'files', 'task', 'admin'] as const;
export type Grant = (typeof GRANTS)[number];

/** What a verb needs from a caller in a pane. */
export type Access =
  /** Anyone: a read of the daemon itself, or a verb whose handler judges the caller itself. */
  | 'none'
  /**
   * The person only: a client attached now, outside every pane, with its attach nonce (the
   * dispatcher verifies it before the handler runs). Over a link it needs respond.
   */
  | 'person'
  /** Reports about its own pane (another pane needs admin). */
  | 'self'
  | 'read'
  | 'write'
  | 'fan'
  | 'respond'
  | 'admin';

export interface PermissionsConfig {
  mode: 'open' | 'strict';
  grants: Grant[];
}

/** `admin` holds everything else, never `respond`, which only the person gives. */
export function expand(gs: Iterable<Grant>): Set<Grant> {
  const s = new Set(gs);
  if (s.has('admin')) for (const g of ['read', 'write', 'fan', 'files', 'task'] as const) s.add(g);
  if (s.has('fan')) s.add('write');
  if (s.has('write')) s.add('read');
  return s;
}

/** Grants from text (`read,write`): unknown names dropped, so a typo never turns protection off. */
export function parseGrants(list: string[] | string): Grant[] {
  const words = (Array.isArray(list) ? list : list.split(',')).map((x) => x.trim()).filter(Boolean);
  if (words.includes('none')) return [];
  return words.filter((w): w is Grant => (GRANTS as readonly string[]).includes(w));
}

export function defaultGrants(p: PermissionsConfig): Grant[] {
  return p.mode === 'open' ? ['admin'] : p.grants;
}

export interface PaneGrants {
  grants: Set<Grant>;
  /** explicit (started with --grants, or set-pane-grants) or default (the config's mode). */
  from: 'explicit' | 'default';
}

export function grantsOf(w: Window, perms: PermissionsConfig): PaneGrants {
  const explicit = w.attrs.get('grants') as Grant[] | undefined;
  if (explicit) return { grants: expand(explicit), from: 'explicit' };
  return { grants: expand(defaultGrants(perms)), from: 'default' };
}

export function grantsText(g: Set<Grant>): string {
  const shown = g.has('admin') ? ['admin', ...(g.has('respond') ? ['respond'] : [])] : [...g];
  return shown.length ? shown.join(',') : 'none';
}

/** Sessions a pane reaches: its own, its fan group's, and the ones it launched (with fan). */
export function inReach(caller: Window, targetSessionId: string, held: Set<Grant>, model: Model): boolean {
  if (held.has('admin')) return true;
  if (caller.sessionId === targetSessionId) return true;
  if (!held.has('fan')) return false;
  const mine = model.sessions.get(caller.sessionId);
  const theirs = model.sessions.get(targetSessionId);
  if (!mine || !theirs) return false;
  const group = mine.attrs.get('group');
  if (group && theirs.attrs.get('group') === group) return true;
  return theirs.attrs.get('launched_by') === caller.id;
}

function refuse(verb: string, why: string, held: PaneGrants, needed: string): never {
  throw new TuiosError(
    'forbidden',
    `${verb} is refused for this pane: ${why}.`,
    `The pane holds ${grantsText(held.grants)} (${held.from === 'explicit' ? 'given to it' : 'the [agents.permissions] default'}); ${needed}. The person gives more from a terminal outside tuios: tuios set-pane-grants -w PANE --grants ...`,
  );
}

export interface AccessCheck {
  verb: string;
  access: Access;
  caller: Window;
  target: Window | null;
  targetSessionId: string | null;
  /** The verb types into the target (send-text, send-keys, ask-agent, queue-prompt). */
  types: boolean;
  /** Typing into a pane waiting on a prompt is refused without respond (not for the queue, which waits for rest). */
  blockedCheck: boolean;
  targetBlocked: boolean;
  perms: PermissionsConfig;
  model: Model;
}

/** Throws `forbidden` with the grant needed, what the pane holds and how the person gives more. */
export function checkAccess(c: AccessCheck): void {
  const held = grantsOf(c.caller, c.perms);
  const g = held.grants;
  const own = c.target ? c.target.id === c.caller.id : false;
  const sid = c.targetSessionId ?? c.target?.sessionId ?? c.caller.sessionId;
  switch (c.access) {
    case 'none':
    case 'person': // the dispatcher verified the nonce: no pane passes that
      return;
    case 'self':
      if (!c.target || own || g.has('admin')) return;
      return refuse(c.verb, 'a pane reports only about itself', held, 'reporting for another pane needs admin');
    case 'admin':
      if (g.has('admin')) return;
      return refuse(c.verb, `${c.verb} needs the admin grant`, held, 'it needs admin');
    case 'read':
      if (g.has('read') && inReach(c.caller, sid, g, c.model)) return;
      return refuse(c.verb, g.has('read') ? 'reading another session needs admin (or fan for its fan group)' : 'reading needs the read grant', held, 'it needs read in the session');
    case 'fan':
      if (g.has('fan') || g.has('admin')) return;
      return refuse(c.verb, 'starting agents needs the fan grant', held, 'it needs fan');
    case 'respond':
      if (g.has('respond')) return;
      return refuse(c.verb, 'answering another pane\'s prompt needs the respond grant', held, 'only the person gives respond');
    case 'write': {
      if (!g.has('write') || !inReach(c.caller, sid, g, c.model)) {
        return refuse(c.verb, g.has('write') ? "writing into another session needs admin (or fan for its fan group)" : "writing into the pane's own session needs the write grant", held, 'it needs write');
      }
      if (!c.target || own || !c.types) return;
      // What a pane types runs with the target's grants: a pane without admin types only into
      // panes that hold nothing it does not.
      if (!g.has('admin')) {
        const theirs = grantsOf(c.target, c.perms).grants;
        const more = [...theirs].filter((x) => !g.has(x));
        if (more.length) return refuse(c.verb, `the target pane holds ${more.join(', ')}, which this pane does not`, held, 'a pane types only into panes that hold nothing it does not');
      }
      // Keys typed into a prompt answer it: that is respond's, for admin too.
      if (c.blockedCheck && c.targetBlocked && !g.has('respond')) {
        return refuse(c.verb, 'the target pane is waiting on a prompt (needs_input), and typing there would answer it', held, 'answering a prompt needs respond, which the person gives');
      }
      return;
    }
  }
}

/** set-pane-grants: a pane changes only its own unless admin, never gives more than it holds, and admin cannot give respond. */
export function checkGrantChange(caller: Window | null, target: Window, want: Grant[], perms: PermissionsConfig): void {
  if (!caller) return; // the person, outside every pane
  const held = grantsOf(caller, perms);
  if (target.id !== caller.id && !held.grants.has('admin')) {
    throw new TuiosError('forbidden', 'set-pane-grants is refused for this pane: a pane may change only its own grants.', 'Changing another pane\'s needs admin.');
  }
  const w = expand(want);
  const more = [...w].filter((x) => !held.grants.has(x));
  if (more.length) {
    throw new TuiosError('forbidden', `set-pane-grants is refused for this pane: it would give ${more.join(', ')}, which this pane does not hold.`, 'A pane can never give more than it holds; admin cannot give respond.');
  }
}

/** One access check (security/access.ts enforce): the verb, what it needs, what it targets. */
export interface EnforceOpts {
  verb: string;
  access: Access;
  target: Window | null;
  sessionId?: string | null;
  types?: boolean;
  /** Typing into a prompt needs respond (false for the queue, which types only at rest). */
  blockedCheck?: boolean;
}
