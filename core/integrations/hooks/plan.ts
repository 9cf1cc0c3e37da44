// What one hook event asks the daemon for, worked out from the payload alone (pure). The reporter
// (core/cli/agent-hook.ts) turns it into verb calls; the unit tests read it directly.

export type ReportState = 'working' | 'needs_input' | 'idle' | 'done' | 'errored' | 'none';

export interface StateReport {
  state: ReportState;
  kind?: 'approval' | 'question';
  message?: string;
  /** Applied only from these states; never sent to a daemon that cannot take the condition. */
  if_state?: Array<'working' | 'needs_input' | 'idle' | 'done' | 'unknown'>;
  /** The prompt's first line or the tool call (kept whether or not the state applies). */
  activity?: string;
}

export type ActivityType = 'session_start' | 'subagent_start' | 'subagent_stop' | 'subagent_update' | 'turn_end';

export interface Activity {
  type: ActivityType;
  agent_id?: string;
  agent_type?: string;
  text?: string;
  /** session_start: startup, resume, clear. */
  source?: string;
  status?: 'running' | 'done' | 'failed' | 'stopping';
  /** A subagent's own tool call: its start, its end, its failure. */
  call?: 'start' | 'end' | 'failed';
  /** The Agent call's result: the subagent's tool calls. */
  tools?: number;
}

/** A permission prompt the Inbox may hold: the call as the harness sent it. */
export interface ApprovalAsk {
  tool: string;
  input: Record<string, unknown>;
  /** Claude Code's permission_suggestions, as sent. */
  suggestions?: unknown[];
  /** ExitPlanMode: held as a plan. */
  plan?: boolean;
}

export interface HookPlan {
  /** The event as the harness named it. */
  event: string;
  report?: StateReport;
  /** The harness's conversation id, and where it came from. */
  session?: { id: string; transcript?: string; start?: string };
  /** A session integration: the id alone, with set-agent-session. */
  sessionOnly?: boolean;
  /** report-agent-activity calls, after the report. */
  activities?: Activity[];
  /** SessionStart for Claude Code and Codex: print the context lines once reported. */
  contextLines?: boolean;
  approval?: ApprovalAsk;
  /** Display-only facts the event names (spec: Agent metadata): the model, sent with set-agent-meta. */
  meta?: { model: string };
  /** Why nothing is reported (for --explain). */
  why?: string;
}

export interface HookEnv {
  [name: string]: string | undefined;
}

/**
 * The events, as the maps name them, whose report says the agent took a prompt and began a turn:
 * UserPromptSubmit (Claude Code, Codex, Qwen, Kimi, Copilot's userPromptSubmitted, and a protocol
 * pane's own), Gemini's BeforeAgent, Cursor's beforeSubmitPrompt, Pi's and oh-my-pi's agent_start,
 * Amp's agent.start and opencode's chat.message. Each reports `working`. The daemon takes such a
 * report as the proof that a prompt it typed was taken, whatever level is published.
 */
export const PROMPT_START_EVENTS: ReadonlySet<string> = new Set(['UserPromptSubmit', 'BeforeAgent', 'beforeSubmitPrompt', 'agent_start', 'agent.start', 'chat.message']);

/**
 * The events whose report says a prompt was taken but not that its turn began: opencode's (and
 * Kilo's) session.created, which their TUI sends when the first prompt typed at its home screen
 * opens a session. It comes before chat.message, seconds before it on a loaded machine (opencode
 * draws its session screen only after both), and reports idle. The daemon takes it as the proof of
 * a take; the turn begins with what follows.
 */
export const PROMPT_SESSION_EVENTS: ReadonlySet<string> = new Set(['session.created']);

export function nothing(event: string, why: string): HookPlan {
  return { event, why };
}

/** A JSON object's field as a string, or ''. */
export function str(o: Record<string, unknown>, ...keys: string[]): string {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  return '';
}

export function obj(v: unknown): Record<string, unknown> | null {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}
