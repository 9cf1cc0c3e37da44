// What the dock says when an agent starts to need you (spec: Indicator, The Inbox): from this
// session's state changes, a linked host's, and the Inbox's arrivals. Pure: each takes the event
// and what the client shows, and returns the alert or null.
import type { BusEvent } from '../core/bus.js';
import type { RemoteAgentRow } from '../core/hosts/remote.js';
import type { Alert } from './alerts.js';
import { clean } from './text.js';

/** The word an alert names a state by: the kind of block for an approval or a question. */
function alertState(state: string, kind: string | null | undefined): string {
  return state === 'needs_input' && (kind === 'approval' || kind === 'question') ? kind : state;
}

/** This session's pane that starts to need you, errs or finishes a turn, unless the person is looking at it. */
export function stateAlert(ev: BusEvent<'agent-state'>, here: { sessionId: string; sessionName: string; lookingAt: string | null }): Alert | null {
  if (ev.session_id !== here.sessionId || ev.state === ev.old_state) return null;
  if (!(ev.state === 'needs_input' || ev.state === 'errored' || (ev.state === 'done' && ev.old_state === 'working'))) return null;
  if (here.lookingAt === ev.window_id) return null;
  return { windowId: ev.window_id, session: clean(here.sessionName), who: clean(ev.harness ?? ev.name), state: alertState(ev.state, ev.kind), what: clean(ev.message), needsYou: ev.state !== 'done' };
}

/** A linked host's agent that starts to need you: the same dock message, naming the machine; none from a down link. */
export function hostStateAlert(ev: BusEvent<'host-agent-state'>, row: RemoteAgentRow | undefined): Alert | null {
  if (ev.gone || ev.state === ev.old_state || (ev.state !== 'needs_input' && ev.state !== 'errored')) return null;
  if (!row || row.down) return null;
  return { windowId: null, key: hostAlertKey(ev.host, ev.window_id), session: clean(`${ev.host}:${ev.session}`), who: clean(ev.harness ?? ev.name), state: alertState(ev.state, ev.kind), what: clean(ev.message), needsYou: true };
}

/** What a linked host's pane alerts by, so its answer there (a later state) cancels it here. */
export function hostAlertKey(host: string, windowId: string): string {
  return `host:${host}:${windowId}`;
}

/** Inbox arrivals: other sessions' items (this session's states alert from the state sync), and asks and mail here. */
export function arrivalAlert(item: BusEvent<'attention'>['item'], here: { sessionId: string; visible(sessionId: string): boolean }): Alert | null {
  if (item.session_id && !here.visible(item.session_id)) return null;
  const ours = item.session_id === here.sessionId;
  if (ours && item.kind !== 'ask' && item.kind !== 'mail') return null;
  if (!['approval', 'question', 'ask', 'mail', 'errored', 'done', 'plan'].includes(item.kind)) return null;
  return { windowId: item.window_id, key: `item:${item.id}`, session: clean(item.session ?? 'tuios'), who: clean(item.harness ?? item.name ?? 'an agent'), state: item.kind, what: clean(item.summary), needsYou: item.kind !== 'done' };
}

/** Mail from one agent to another (never to the person, which is an Inbox arrival): an alert the policy raises only with between_agents. */
export function agentMailAlert(ev: BusEvent<'mail'>, here: { name(sessionId: string): string | null; visible(sessionId: string): boolean }): Alert | null {
  if (ev.op !== 'new' || ev.to === 'human' || !ev.to_session_id || !here.visible(ev.to_session_id)) return null;
  return { windowId: null, key: `mail:${ev.message_id}`, session: clean(here.name(ev.to_session_id) ?? 'tuios'), who: clean(ev.from), state: 'mail', what: '', needsYou: false, to: clean(ev.to) };
}

/** What a client is showing, for eventAlert. */
export interface AlertHere {
  sessionId(): string;
  sessionName(): string;
  /** The pane the person is looking at (none under an overlay). */
  lookingAt(): string | null;
  visible(sessionId: string): boolean;
  /** A session's name, for mail between agents. */
  name(sessionId: string): string | null;
  /** The client reads every session here, so a linked host's agents are its too. */
  readsEverySession(): boolean;
  hostRow(host: string, windowId: string): RemoteAgentRow | undefined;
}

/**
 * The alert an event raises for this client, and the one it takes back: a pane that left the state
 * it alerted for, an Inbox item that closed, an answer on a linked host (within the settle window,
 * nothing then goes out). `agents`: the event shows there are agents to see.
 */
export function eventAlert(ev: BusEvent, here: AlertHere): { alert: Alert | null; cancel: string | null; agents: boolean } {
  switch (ev.type) {
    case 'agent-state': {
      const alert = stateAlert(ev, { sessionId: here.sessionId(), sessionName: here.sessionName(), lookingAt: here.lookingAt() });
      return { alert, cancel: !alert && ev.state !== ev.old_state ? ev.window_id : null, agents: ev.state !== 'none' || !!ev.harness };
    }
    case 'attention':
      if (ev.op !== 'open') return { alert: null, cancel: ev.op === 'close' ? `item:${ev.item.id}` : null, agents: false };
      return { alert: arrivalAlert(ev.item, { sessionId: here.sessionId(), visible: (id) => here.visible(id) }), cancel: null, agents: true };
    case 'mail':
      return { alert: agentMailAlert(ev, here), cancel: null, agents: false };
    case 'host-agent-state': {
      if (ev.state === ev.old_state && !ev.gone) return { alert: null, cancel: null, agents: false };
      const alert = here.readsEverySession() ? hostStateAlert(ev, here.hostRow(ev.host, ev.window_id)) : null;
      return { alert, cancel: alert ? null : hostAlertKey(ev.host, ev.window_id), agents: false };
    }
    default:
      return { alert: null, cancel: null, agents: false };
  }
}
