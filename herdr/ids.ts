// herdr's ids for tuios's things (spec: How tuios maps onto herdr): a herdr workspace is a tuios
// session, `w` and the first 12 hex digits of its id; a tab is a tuios workspace,
// `<workspace id>:t<tab number>`; a pane is a window, `<workspace id>:p` and the first 12 hex
// digits of the window id. The forms are core/pty/env.ts's, which sets the panes' HERDR_* variables.

export { herdrWorkspaceId, herdrTabId, herdrPaneId } from '../core/pty/env.js';

const WORKSPACE_RE = /^w([0-9a-f]{12})$/;
// A tab number is never used twice in a session, so it may grow past the nine workspaces.
const TAB_RE = /^w([0-9a-f]{12}):t([1-9][0-9]{0,8})$/;
const PANE_RE = /^w([0-9a-f]{12}):p([0-9a-f]{12})$/;
/** Where herdr takes a pane id, tuios also takes the window id, or 8 or more of its first hex digits. */
const WINDOW_PREFIX_RE = /^[0-9a-f]{8,32}$/;

/** The session id prefix a herdr workspace id names, or null when it is not one. */
export function parseWorkspaceId(id: string): string | null {
  return WORKSPACE_RE.exec(id)?.[1] ?? null;
}

export function parseTabId(id: string): { session: string; tab: number } | null {
  const m = TAB_RE.exec(id);
  return m ? { session: m[1]!, tab: Number(m[2]) } : null;
}

/**
 * The window id prefix a pane id names: herdr's form (its window part only, so a window that
 * moved to another session is still found), the window id, or 8+ of its first hex digits.
 */
export function parsePaneId(id: string): string | null {
  const m = PANE_RE.exec(id);
  if (m) return m[2]!;
  return WINDOW_PREFIX_RE.test(id) ? id : null;
}
