// A client that only watches (an SSH key marked observe): what it may not do, said the same way
// everywhere. Verbs it calls are refused by the dispatcher (the caller is read-only); this is for
// what the TUI does itself without a verb: keys and pastes written to a pane, zoom, and sizing
// the panes, which are shared with every other client of the session.
import type { Caller } from '../core/rpc/caller.js';

export type ReadOnlyBy = NonNullable<Caller['readOnlyBy']>;

/** Why this client may not change anything, or null when it may. */
export function observing(caller: Caller): ReadOnlyBy | null {
  if (!caller.readOnly) return null;
  return caller.readOnlyBy ?? { why: 'this client is read-only', allow: 'Attaching with a key not marked observe' };
}

/** The dock's line for an act the client may not do: the code, why, and the setting that allows it. */
export function observeRefusal(what: string, by: ReadOnlyBy): string {
  return `${what} is refused (forbidden): ${by.why}. ${by.allow} allows it.`;
}

/** The dock's first line for an observer. */
export function observeWelcome(by: ReadOnlyBy): string {
  return `Read-only: ${by.why}. Move around and read every pane, the rail and the Inbox; typing, answers, dismissing and resizing the panes are refused.`;
}
