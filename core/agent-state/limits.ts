// The agent state store's bounds: owners a pane remembers, subagents it lists, the id a subagent
// report may carry (spec: Nested and foreign events, Each subagent). Named here once, with why.

/** Conversations that owned a pane and may take it back (spec: the last four owners). */
export const SESSION_OWNERS_KEPT = 4;
/** Conversations that sent a SessionStart for a pane, remembered for taking it back. */
export const SESSION_STARTERS_KEPT = 16;
/** Subagents a pane's list holds; more are counted, not listed. */
export const SUBAGENTS_MAX = 64;
/** A subagent id: 1 to 128 letters, digits, _ . : @ - (spec: Claude Code SubagentStart). */
export const AGENT_ID_RE = /^[A-Za-z0-9_.:@-]{1,128}$/;
