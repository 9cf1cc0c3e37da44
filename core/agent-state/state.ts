// Agent states, the sources that claim them and their ranks, and the small judgements every
// surface shares (needs_you, ready, blocked_by). Pure.

export const STATES = ['none', 'working', 'needs_input', 'idle', 'done', 'errored', 'unknown'] as const;
export type AgentState = (typeof STATES)[number];

/** Sources, highest rank first (spec: Sources and precedence). */
export const SOURCES = ['report', 'program', 'transcript', 'osc', 'screen', 'detect', 'stall'] as const;
export type Source = (typeof SOURCES)[number];

export const RANK: Record<Source, number> = {
  report: 7,
  program: 6,
  transcript: 5,
  osc: 4,
  screen: 3,
  detect: 2,
  stall: 1,
};

export const KINDS = ['approval', 'question', 'auth'] as const;
export type BlockKind = (typeof KINDS)[number] | '';

/** How the harness attribution was learned (spec: Confidence). */
export type Identity = 'report' | 'manifest' | 'list' | 'hint' | '';
export type Confidence = 'certain' | 'strong' | 'none';

export function confidenceOf(i: Identity): Confidence {
  if (i === 'report') return 'certain';
  if (i === '') return 'none';
  return 'strong';
}

/** A person has to act: needs_input or errored. */
export function needsYou(s: AgentState): boolean {
  return s === 'needs_input' || s === 'errored';
}

/** Whether ask-agent would type at the pane now (never into a prompt, never into an unknown). */
export function isReady(s: AgentState): boolean {
  return s === 'idle' || s === 'done' || s === 'errored' || s === 'none';
}

/** At rest: what the delivery queue and the Inbox treat as "not busy". */
export function atRest(s: AgentState): boolean {
  return s === 'idle' || s === 'done' || s === 'unknown';
}

const APPROVAL_WORDS = /\b(approv\w*|permission\w*|allow\w*|proceed\w*|confirm\w*|trust\w*)\b/i;

/**
 * The kind a report with no kind stands for, from its message: words of approval, permission,
 * allowing, proceeding, confirming or trust read as approval, anything else as a question, and
 * an empty message says nothing. `auth` is never guessed: only an explicit report says it.
 */
export function guessKind(message: string): BlockKind {
  if (message.trim() === '') return '';
  return APPROVAL_WORDS.test(message) ? 'approval' : 'question';
}

export function isState(s: string): s is AgentState {
  return (STATES as readonly string[]).includes(s);
}
