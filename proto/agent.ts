// What `tuios agent-proto` needs from an agent that speaks a structured protocol (spec:
// agents-guide.md, Headless agents over a protocol). One adapter per protocol (ACP, the Codex
// app-server) turns its wire into these calls; the pane side (transcript, prompt line, state
// reports, metadata, activity, permissions) is shared and knows no protocol.
//
// Every string an adapter passes up is the agent's own text: the pane side removes escape
// sequences and control characters and cuts it to its limit before it reaches the pane or the
// daemon. An adapter never writes to the pane itself.

/** The metadata keys a protocol pane feeds (source `protocol`). */
export type ProtoMetaKey = 'model' | 'context' | 'cost' | 'plan';

/** One answer to a permission request, in the agent's own words. */
export interface ProtoPermissionOption {
  /** The protocol's id for the answer, sent back as is. */
  id: string;
  /** The agent's words for it ("Allow once", "Allow for this session"). */
  label: string;
  /** What it means for one call: the Inbox offers only `allow_once` and `deny`. */
  kind: 'allow_once' | 'allow_more' | 'deny' | 'other';
}

export interface ProtoPermissionRequest {
  /** The request's title line ("Run touch hello.txt"). */
  title: string;
  /**
   * True when the title shows the whole request (a command whose input the title holds in
   * full): only then is it also held for the Inbox. Never for a diff, an edit, output or input
   * to a running command.
   */
  oneLine: boolean;
  /** Lines shown under the title (a diff, files, the `grantRoot` note); may be empty. */
  detail: string[];
  options: ProtoPermissionOption[];
}

/** How a turn ended. */
export type ProtoTurnEnd =
  | { kind: 'done'; reply: string }
  | { kind: 'cancelled' }
  | { kind: 'failed'; why: string };

/** What the pane side offers an adapter: the adapter calls these as its protocol says. */
export interface ProtoSink {
  /** The conversation is open; `agent` names the agent and its version when the protocol says. */
  opened(info: { agent?: string; model?: string }): void;
  /** A piece of the agent's reply text (streamed). */
  replyText(chunk: string): void;
  /** A tool call started or ended. */
  toolCall(ev: { id: string; title: string; phase: 'start' | 'end'; failed?: boolean }): void;
  /** The turn's plan: each entry's words and whether it is complete. */
  plan(entries: { text: string; done: boolean }[]): void;
  /** A metadata value as the spec's table reads it; null clears the key. */
  meta(key: ProtoMetaKey, value: string | null): void;
  /** The agent asks permission; resolves with the chosen option's id, or null when cancelled. */
  permission(req: ProtoPermissionRequest, signal: AbortSignal): Promise<string | null>;
  /** The turn ended. */
  turnEnded(end: ProtoTurnEnd): void;
  /** The agent exited or did not start. */
  exited(why: string): void;
}

/** One agent process spoken to over its protocol. */
export interface ProtoAgent {
  /** Starts the agent (in a session of its own, no controlling terminal) and opens a conversation. */
  start(sink: ProtoSink): Promise<void>;
  /** Sends a prompt; the turn's end arrives through the sink. */
  prompt(text: string): Promise<void>;
  /** Cancels the turn in flight, if any. */
  cancel(): Promise<void>;
  /** Stops the agent. */
  close(): Promise<void>;
}
