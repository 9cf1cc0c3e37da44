// Applying grants to calls: the dispatcher's check before a verb runs, the check right before
// text is written, and what a pane without admin may read (the permissions in force:
// permissions.ts).
import type { Model } from '../model/model.js';
import type { AgentStore } from '../agent-state/store.js';
import type { Logger } from '../log.js';
import type { Placement } from '../rpc/caller.js';
import type { PermissionsState } from './permissions.js';

/** What deciding access reads: where a caller runs, the panes and their states, the grants in force. */
export interface AccessDeps {
  placement(c: Caller): Placement;
  readonly model: Model;
  readonly agents: AgentStore;
  readonly permissions: PermissionsState;
  readonly log: Logger;
}
import type { Caller } from '../rpc/caller.js';
import type { Window } from '../model/window.js';
import { checkAccess, defaultGrants, expand, grantsOf, inReach, type EnforceOpts, type Grant } from './grants.js';
import type { VerbInfo } from '../rpc/verb-info.js';

export type { EnforceOpts } from './grants.js';
import { TuiosError } from '../errors.js';

/** The pane a caller runs in for grants: its placement's pane; an unknown pane holds the default. */
export function paneOf(svc: AccessDeps, caller: Caller): { window: Window | null; inside: boolean } {
  const p = svc.placement(caller);
  if (p.kind === 'outside') return { window: null, inside: false };
  if (p.kind === 'pane') return { window: p.window, inside: true };
  const hinted = caller.paneHint ? (svc.model.windows.get(caller.paneHint) ?? null) : null;
  return { window: hinted, inside: true };
}


/** A connection restricted by restrict-connection reaches this session: the pane's own, its fan group's, one a fan from it started. */
export function inRestriction(svc: AccessDeps, caller: Caller, sessionId: string): boolean {
  const pane = caller.restrictedTo;
  return !pane || inReach(pane, sessionId, new Set<Grant>(['fan']), svc.model);
}

function outsideRestriction(verb: string, pane: Window, what: string): TuiosError {
  return new TuiosError(
    'forbidden',
    `${verb} is refused: ${what} is outside what this connection was restricted to (the session of the pane ${pane.name}, its fan group and the sessions a fan from it started).`,
    'A tuios mcp server reaches further only when started with --scope all.',
  );
}

/**
 * What a restricted connection may call, before anything runs: the verbs that are MCP tools (and
 * restrict-connection itself), nothing on another machine, no selector (it would reach past the
 * restriction), and a session or window named by an untargeted verb inside the restriction.
 */
export function enforceRestriction(svc: AccessDeps, caller: Caller, verb: VerbInfo, params: Record<string, unknown>): void {
  const pane = caller.restrictedTo;
  if (!pane) return;
  if (!verb.mcp && verb.name !== 'restrict-connection') throw outsideRestriction(verb.name, pane, 'a verb that is no MCP tool');
  if (typeof params.host === 'string') throw outsideRestriction(verb.name, pane, 'another machine');
  if (typeof params.select === 'string') throw outsideRestriction(verb.name, pane, 'a selector');
  if (verb.target !== 'none') return;
  if (typeof params.session === 'string' && !inRestriction(svc, caller, svc.model.findSession(params.session).id)) {
    throw outsideRestriction(verb.name, pane, `the session ${params.session}`);
  }
  if (typeof params.window === 'string' && !(params.window === 'human' && verb.humanMailbox)) {
    const w = svc.model.findWindow(params.window);
    if (!inRestriction(svc, caller, w.sessionId)) throw outsideRestriction(verb.name, pane, `the window ${w.name}`);
  }
}

/** Throws forbidden when a caller inside a pane may not do this; the person passes. */
export function enforce(svc: AccessDeps, caller: Caller, o: EnforceOpts): void {
  if (caller.restrictedTo) {
    const sid = o.target?.sessionId ?? o.sessionId ?? null;
    if (sid !== null && !inRestriction(svc, caller, sid)) throw outsideRestriction(o.verb, caller.restrictedTo, o.target ? `the window ${o.target.name}` : 'that session');
  }
  if (caller.channel === 'link') {
    // A linked host is held to its [hosts] policy, which the link applied before the call ran.
    // Typing into a pane waiting on a prompt answers it: that is the person's, vouched for.
    if (o.types && o.target && (o.blockedCheck ?? true) && !caller.vouched && svc.agents.stateOf(o.target) === 'needs_input') {
      throw new TuiosError('forbidden', `${o.verb} is refused: ${o.target.name} waits on a prompt, and typing there would answer it; a linked host answers only for the person, with respond allowed here.`, `Answer it with respond from the person's client there, and [hosts.${caller.host ?? 'NAME'}] respond = true here.`);
    }
    return;
  }
  const { window: pane, inside } = paneOf(svc, caller);
  if (!inside) return;
  const perms = svc.permissions.current;
  if (!pane) {
    // Inside a pane we cannot name: it holds the default, and reaches no session of ours.
    if (o.access === 'none' || expand(defaultGrants(perms)).has('admin')) return;
    throw new TuiosError('forbidden', `${o.verb} is refused: the caller runs in a pane this daemon cannot name.`, 'Run it from a pane of this daemon, or from a terminal outside tuios.');
  }
  const targetBlocked = !!o.target && svc.agents.stateOf(o.target) === 'needs_input';
  const res = (() => {
    try {
      checkAccess({ verb: o.verb, access: o.access, caller: pane, target: o.target, targetSessionId: o.sessionId ?? null, types: !!o.types, blockedCheck: o.blockedCheck ?? true, targetBlocked, perms, model: svc.model });
      return null;
    } catch (e) {
      return e;
    }
  })();
  if (res) {
    svc.log.info('call refused for a pane', { verb: o.verb, pane: pane.id, code: (res as TuiosError).code });
    throw res;
  }
}

/** True for the person and a pane holding admin: the callers that read another machine's rows. */
export function readsEverySession(svc: AccessDeps, caller: Caller): boolean {
  // A linked host does not read a third host's rows through this one.
  if (caller.channel === 'link' || caller.restrictedTo) return false;
  const { window: pane, inside } = paneOf(svc, caller);
  if (!inside) return true;
  if (!pane) return expand(defaultGrants(svc.permissions.current)).has('admin');
  return grantsOf(pane, svc.permissions.current).grants.has('admin');
}

/** Sessions a caller may read: every one for the person and admin, else its reach; a restricted connection, within its restriction. */
export function readableSessions(svc: AccessDeps, caller: Caller): (sessionId: string) => boolean {
  const may = grantedSessions(svc, caller);
  return caller.restrictedTo ? (sid) => inRestriction(svc, caller, sid) && may(sid) : may;
}

function grantedSessions(svc: AccessDeps, caller: Caller): (sessionId: string) => boolean {
  // A linked host reads what its [hosts] policy lets it (the link checked `list` already).
  if (caller.channel === 'link') return () => true;
  const { window: pane, inside } = paneOf(svc, caller);
  if (!inside) return () => true;
  if (!pane) return () => expand(defaultGrants(svc.permissions.current)).has('admin');
  const g = grantsOf(pane, svc.permissions.current).grants;
  if (g.has('admin')) return () => true;
  if (!g.has('read')) return () => false;
  return (sid) => inReach(pane, sid, g, svc.model);
}
