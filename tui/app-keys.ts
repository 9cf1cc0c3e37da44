// The TUI's own keys, outside any view: the prefix (ctrl+b) and what follows it, Alt+arrows, and
// the y/n of a question in the status line. Every other key reaches the focused pane (or the view
// drawn over it) exactly as the terminal sent it. The help overlay lists these rows.
import type { Token } from './keys.js';
import type { Direction, Dir } from '../core/model/layout.js';
import { DIGITS, OTHER_KEY, type KeyTable } from './key-table.js';

export const PREFIX_KEY = 'C-b';

const ARROWS: Record<string, Direction> = { Up: 'up', Down: 'down', Left: 'left', Right: 'right' };
const ARROW_KEYS = Object.keys(ARROWS);

/** The direction of an arrow key, with or without one modifier (`M-Up`, `C-Left`). */
export function arrowOf(key: string): Direction {
  return ARROWS[key.replace(/^[CMS]-/, '')]!;
}

/** What the TUI's keys act on. */
export interface AppKeyTarget {
  moveFocus(d: Direction): void;
  switchWorkspace(n: number): void;
  stepWorkspace(d: number): void;
  /** A new window in this workspace, or split off the focused pane. */
  openWindow(split: Dir | null): void;
  askClose(): void;
  toggleZoom(): void;
  openSwitcher(): void;
  openHelp(): void;
  /** The review of the focused pane's changes (review-view.ts). */
  openReview(): void;
  /** The compare view of the fan the focused pane is in. */
  openCompare(): void;
  detach(): void;
  closeOverlay(): void;
  openAgents(select?: string, opts?: { mail?: boolean }): void;
  walkNeedsYou(): void;
  walkFinished(): void;
  /** ctrl+b twice: one ctrl+b to the pane (or the linked host's pane a view shows). */
  sendPrefix(tok: Token): void;
  /** A key the prefix does not bind: to the pane as it always went. */
  unbound(tok: Token): void;
  armPrefix(): void;
}

/** What decides which rows apply. */
export interface AppKeyState {
  /** A view is drawn over the panes. */
  overlay: boolean;
  /** An agent has been seen (spec: Before the first agent): the agents keys beyond i and o. */
  agentsSeen: boolean;
}

/** After ctrl+b. */
export const PREFIX_KEYS: KeyTable<AppKeyState, AppKeyTarget> = [
  { keys: ['c'], help: 'new window in this workspace', group: 'panes', run: (t) => t.openWindow(null) },
  { keys: ['%'], help: 'split side by side', group: 'panes', run: (t) => t.openWindow('row') },
  { keys: ['"'], help: 'split one above the other', group: 'panes', run: (t) => t.openWindow('column') },
  { keys: ARROW_KEYS.flatMap((k) => [k, `C-${k}`, `M-${k}`, `S-${k}`]), label: 'arrows', help: 'move the focus', group: 'panes', run: (t, k) => t.moveFocus(arrowOf(k)) },
  { keys: ['z'], help: 'zoom the pane', group: 'panes', run: (t) => t.toggleZoom() },
  { keys: ['x'], help: 'close the pane (asks first)', group: 'panes', run: (t) => t.askClose() },
  { keys: DIGITS, label: '1-9', help: 'workspace 1-9', group: 'panes', run: (t, k) => t.switchWorkspace(Number(k)) },
  { keys: ['n'], help: 'next workspace', group: 'panes', run: (t) => t.stepWorkspace(1) },
  { keys: ['p'], help: 'previous workspace', group: 'panes', run: (t) => t.stepWorkspace(-1) },
  { keys: ['s', 'w'], help: 'sessions', group: 'panes', run: (t) => t.openSwitcher() },
  { keys: ['d'], help: 'detach', group: 'panes', run: (t) => t.detach() },
  { keys: [PREFIX_KEY], help: 'send ctrl+b to the pane', group: 'panes', run: (t, _k, tok) => t.sendPrefix(tok) },
  { keys: ['?'], help: 'this help', group: 'panes', run: (t) => t.openHelp() },
  { keys: ['i'], help: 'the agents view', group: 'agents', run: (t) => t.openAgents() },
  // spec: the prefix stays armed, so o again goes to the next one.
  { keys: ['o'], help: 'the oldest item that needs you (again: the next)', group: 'agents', run: (t) => (t.armPrefix(), t.walkNeedsYou()) },
  // Works before an agent has been seen (an explicit act); the help lists it with the agents keys.
  { keys: ['v'], help: 'review the changes of the focused pane', group: 'agents', run: (t) => t.openReview() },
  { keys: ['O'], when: (s) => s.agentsSeen, help: 'the newest finished turn not seen (again: older)', group: 'agents', run: (t) => t.walkFinished() },
  // The agents view on the mail for you (the mailbox itself is m in that view).
  { keys: ['F'], when: (s) => s.agentsSeen, help: 'compare the attempts of this pane\'s fan', group: 'agents', run: (t) => t.openCompare() },
  { keys: ['M'], when: (s) => s.agentsSeen, help: 'the agents view on the mail for you', group: 'agents', run: (t) => t.openAgents(undefined, { mail: true }) },
  // Closes a view drawn over the panes (a linked host's pane takes every other key).
  { keys: ['q'], when: (s) => s.overlay, help: "close a view: a linked host's pane, opened with enter", group: 'agents', run: (t) => t.closeOverlay() },
  { keys: ['Esc'], help: 'let the prefix go', group: 'panes', run: () => undefined },
  { keys: [OTHER_KEY], help: 'to the pane, as typed', footer: false, run: (t, _k, tok) => t.unbound(tok) },
];

/** Without the prefix, before a view or the pane sees the key. */
export const GLOBAL_KEYS: KeyTable<AppKeyState, AppKeyTarget> = [
  { keys: [PREFIX_KEY], help: "the prefix: the next key is tuios's", run: (t) => t.armPrefix() },
  { keys: ARROW_KEYS.map((k) => `M-${k}`), label: 'alt+arrows', when: (s) => !s.overlay, help: 'move the focus', run: (t, k) => t.moveFocus(arrowOf(k)) },
];

/** A question on the status line (close the pane?): y does it, any other key does not. */
export const CONFIRM_KEYS: KeyTable<null, { yes(): void; no(): void }> = [
  { keys: ['y', 'Y'], help: 'yes', run: (c) => c.yes() },
  { keys: [OTHER_KEY], label: 'n', help: 'no', run: (c) => c.no() },
];
