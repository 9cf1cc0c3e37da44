// Linked hosts as core sees them. The link (link/) implements this and sets it on the services at
// start-up; core never imports link. Without it, a target naming another machine is refused.
import type { RemoteStream } from './streams.js';
/** A linked host's agent changed state (published by the link; the TUI and the hook read it). It carries that host's ids, never a session id of this machine. */
export interface HostAgentStateEvent {
  host: string;
  window_id: string;
  name: string;
  session: string;
  harness: string | null;
  state: string;
  old_state: string;
  kind: string;
  message: string;
  needs_you: boolean;
  /** The row went away (the pane closed there). */
  gone: boolean;
}

declare module '../bus.js' {
  interface EventMap {
    'host-agent-state': HostAgentStateEvent;
  }
}

/** A linked host's link as `hosts ls` shows it. */
export type HostLinkState = 'connecting' | 'up' | 'down';

/** An agent row mirrored from a linked host: what that host said last, cleaned and cut here. */
export interface RemoteAgentRow {
  host: string;
  window_id: string;
  short_id: string;
  name: string;
  session: string;
  session_id: string;
  harness: string | null;
  state: string;
  kind: string;
  message: string;
  needs_you: boolean;
  state_since: number;
  finished_unread: boolean;
  group: string | null;
  cwd: string | null;
  /** The link is down: the row is what the host said last, muted, not counted, no alert. */
  down: boolean;
  /** When the link last heard the host (ms since the epoch). */
  seen_at: number;
}

/** An Inbox row mirrored from a linked host: display-only here. */
export interface RemoteItemRow {
  host: string;
  /** The item id on that host; here it reads `HOST:ID`. */
  id: number;
  kind: string;
  window_id: string | null;
  session: string | null;
  name: string | null;
  harness: string | null;
  summary: string;
  opened_at: number;
  updated_at: number;
  options: string[];
  held: boolean;
  unread: boolean;
  down: boolean;
  seen_at: number;
}

/** Mail for a session on a linked host, as the sender gave it. */
export interface OutgoingMail {
  to_session: string;
  to_window: string | null;
  from: string;
  from_kind: string;
  subject: string;
  body: string;
}

/** What became of mail to another machine: delivered there, or waiting here for the link. */
export type MailOutcome =
  | { delivered: true; host: string; message_id: number; thread: number; held: boolean; held_for: string | null }
  | { delivered: false; host: string; queued: true; waiting: number; reason: string };

export interface RemoteCallOptions {
  /** The caller is the person on this machine (its nonce verified here): the peer may let it answer. */
  vouched: boolean;
  signal: AbortSignal;
  /** How long to wait for the answer: a long verb's own budget; default the link's generic cap. */
  timeoutMs?: number;
}

export interface RemoteHosts {
  /** True when NAME is a host in [hosts]: a target that starts `NAME:` goes over its link. */
  has(name: string): boolean;
  /** Runs one verb on that host under its link policy; the answer is the peer's, cleaned and cut. */
  call(host: string, verb: string, params: Record<string, unknown>, o: RemoteCallOptions): Promise<unknown>;
  /** Mail through the durable outbox: delivered now when the link answers in time, else it waits. */
  sendMail(host: string, m: OutgoingMail, signal: AbortSignal): Promise<MailOutcome>;
  agentRows(): RemoteAgentRow[];
  itemRows(): RemoteItemRow[];
  /** Dismissing a linked host's row hides it here only, until that row changes; false when unknown. */
  hideItem(host: string, id: number): boolean;
  /**
   * Opens a byte stream of `kind` on that host (a kind registered there in svc.linkStreams), with
   * JSON params. Throws host_down when the link is not up; a refusal ends the stream with its reason.
   */
  openStream(host: string, kind: string, params: Record<string, unknown>): RemoteStream;
  /** Called each time a host's link comes up (a hosted pane re-attaches then); returns the unsubscribe. */
  onLinkUp(fn: (host: string) => void): () => void;
}
