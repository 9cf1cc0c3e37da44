// The state mark: one function for every surface that shows a pane's state (spec: Indicator),
// so the rail, the titles, the switcher, the agents view and the dock can never disagree.
import type { AgentState } from '../core/agent-state/state.js';

export type Role = 'info' | 'warning' | 'success' | 'muted' | 'error' | 'accent' | 'plain';

export interface Mark {
  glyph: string;
  role: Role;
}

const MARKS: Record<string, { glyph: string; ascii: string; role: Role }> = {
  working: { glyph: '●', ascii: '*', role: 'info' },
  needs_input: { glyph: '▲', ascii: '!', role: 'warning' },
  done_unread: { glyph: '■', ascii: '#', role: 'success' },
  done: { glyph: '○', ascii: 'o', role: 'muted' },
  idle: { glyph: '○', ascii: 'o', role: 'muted' },
  errored: { glyph: '×', ascii: 'x', role: 'error' },
  unknown: { glyph: '□', ascii: '?', role: 'muted' },
};

/**
 * The mark for a state, or null for `none` (which draws nothing). A finished pane not yet looked
 * at draws ■; once looked at it draws idle's ○, so read and unread differ in shape, not ink.
 * A state this build does not know draws as unknown.
 */
export function stateMark(state: AgentState | string, finishedUnread: boolean, ascii: boolean): Mark | null {
  if (state === 'none') return null;
  const key = state === 'done' && finishedUnread ? 'done_unread' : state;
  const m = MARKS[key] ?? MARKS.unknown!;
  return { glyph: ascii ? m.ascii : m.glyph, role: m.role };
}
