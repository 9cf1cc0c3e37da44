// The agents view's keys, one table per mode (spec: The agents view, Many agents at once). Each
// row says when it applies (the mode, the marks, what the selected row is), and the same rows
// draw the footer, the key line of the selected row's card and the help overlay.
import { DIGITS, OTHER_KEY, type KeyTable } from './key-table.js';
import { LIST_MOVE_KEYS, listMove } from './list-keys.js';

export type AgentsMode = 'list' | 'narrow-focus' | 'peek' | 'reply' | 'select' | 'snooze' | 'bulk-allow' | 'text' | 'reason' | 'want';

/** What decides which rows apply: the mode, the marks and the selected row. */
export interface AgentsKeyState {
  mode: AgentsMode;
  /** Rows are marked (some may be hidden by the search now). */
  marked: boolean;
  /** Marked rows the list shows. */
  markedShown: boolean;
  /** Every shown row is marked. */
  allMarked: boolean;
  /** The selected row: none, a local agent or Inbox item, or a linked host's agent or item. */
  row: 'none' | 'agent' | 'item' | 'host-agent' | 'host-item';
  /** The selected agent waits on you (needsYouRow). */
  needsYou: boolean;
  /** The selected row is a linked host's whose link is down. */
  down: boolean;
  /** The selected row is mail: enter opens its thread. */
  mail: boolean;
  /** The selected row is in Snoozed. */
  snoozed: boolean;
  /** The selected row has an approval or plan a hook holds, and the answers it offers ('1', '3'). */
  held: 'approval' | 'plan' | null;
  heldOffers: readonly string[];
  /** The held request's harness passes a deny's reason on (R). */
  reasons: boolean;
  /** What the selected row's card shows; read by the hint lines only, never by `when`. */
  card: { kind: 'prompt'; offered: readonly string[]; choices: number } | { kind: 'ask'; choices: number } | null;
}

/** What the agents view's keys act on. */
export interface AgentsKeyTarget {
  setMode(m: AgentsMode): void;
  move(d: number): void;
  peek(): void;
  enter(): void;
  /** To the selected row's pane, as it is (the peek's enter). */
  toPane(): void;
  zoom(): void;
  openReply(): void;
  dismiss(): void;
  hideHere(): void;
  askSnooze(): void;
  snoozeHostRow(): void;
  wakeSnoozed(): void;
  undo(): void;
  toggleSnoozed(): void;
  openSelect(): void;
  cycleFilter(): void;
  toggleMark(): void;
  markAllOrClear(): void;
  openMailbox(): void;
  /** v: the review of the selected row's pane. */
  review(): void;
  openReason(): void;
  askState(): void;
  openHelp(): void;
  close(): void;
  say(text: string): void;
  /** a or A: allow once or always (a held approval's 1 or 2). */
  allow(always: boolean): void;
  answerDigit(n: number): void;
  answerHeld(key: '1' | '2' | '3'): void;
  allowMarked(): void;
  bulkDeny(): void;
  /** In the peek: an answer from the card. */
  answerPeek(action: 'approve' | 'approve_always' | 'deny' | 'choose', key: string): void;
  readAgain(): void;
  typeAnswer(): void;
  sendAnswer(): void;
  sendReply(): void;
  zoomFromReply(): void;
  applySelect(): void;
  sendReason(): void;
  dropReason(): void;
  snoozeFor(until: string): void;
  cancelSnooze(): void;
  saveState(want: string): void;
  nothingSaved(): void;
  allowListed(): void;
  closeBulkAllow(): void;
}

type Table = KeyTable<AgentsKeyState, AgentsKeyTarget>;

/** Which footer the list shows: what the selection is, most telling first. */
export type ListFooter = 'marked' | 'mail' | 'host-item' | 'down' | 'host-needs' | 'needs' | 'plain';

export function listFooter(s: AgentsKeyState): ListFooter {
  if (s.marked) return 'marked';
  if (s.mail) return 'mail';
  if (s.row === 'host-item') return 'host-item';
  if (s.row === 'host-agent' && s.down) return 'down';
  if (s.row === 'host-agent' && s.needsYou) return 'host-needs';
  if (s.row === 'agent' && s.needsYou) return 'needs';
  return 'plain';
}

const on =
  (...kinds: ListFooter[]) =>
  (s: AgentsKeyState): boolean =>
    kinds.includes(listFooter(s));
const hostRow = (s: AgentsKeyState) => s.row === 'host-agent' || s.row === 'host-item';
const offers = (answer: string) => (s: AgentsKeyState) => s.card?.kind === 'prompt' && s.card.offered.includes(answer);
const heldOffers = (key: string) => (s: AgentsKeyState) => s.held !== null && s.heldOffers.includes(key);
const choices = (s: AgentsKeyState) => (s.card ? s.card.choices : 9);
const HELD_WORDS: Record<string, [string, string]> = { '1': ['allow', 'approve'], '2': ['always', 'approve, accept edits'], '3': ['deny', 'keep planning'] };
const heldRow = (k: '1' | '2' | '3') => ({
  keys: [k],
  when: (s: AgentsKeyState) => s.held !== null && !s.markedShown,
  help: HELD_WORDS[k]![0],
  says: (s: AgentsKeyState) => `${k} ${HELD_WORDS[k]![s.held === 'plan' ? 1 : 0]}`,
  // Answer keys are on the card, which shows them once it has been read (0.4 s), not the footer.
  footer: false as const,
  card: heldOffers(k),
  run: (v: AgentsKeyTarget) => v.answerHeld(k),
});

/** The list, and the list beside the focus area on a narrow screen (narrow-focus). */
export const AGENTS_LIST_KEYS: Table = [
  { keys: ['Left', 'h', 'Esc'], when: (s) => s.mode === 'narrow-focus', help: 'back to the list', run: (v) => v.setMode('list') },
  { keys: LIST_MOVE_KEYS, label: 'j/k', help: 'move', footer: on('mail', 'host-item', 'down', 'plain'), run: (v, k) => v.move(listMove(k)!) },
  { keys: [' '], help: 'peek', footer: on('needs', 'host-needs'), card: (s) => s.card?.kind === 'prompt', run: (v) => v.peek() },
  { keys: ['1'], when: (s) => s.markedShown, help: 'allow the marked', says: () => '1 allow', footer: on('marked'), run: (v) => v.allowMarked() },
  { keys: ['2'], when: (s) => s.markedShown, help: 'always: never the marked at once', footer: false, run: (v) => v.say('Always-allow is never given to many agents at once.') },
  { keys: ['3'], when: (s) => s.markedShown, help: 'reject the marked', says: () => '3 reject', footer: on('marked'), run: (v) => v.bulkDeny() },
  heldRow('1'),
  heldRow('2'),
  heldRow('3'),
  {
    keys: ['R'],
    help: 'deny with a reason',
    says: (s) => `R ${s.held === 'plan' ? 'keep planning' : 'deny'} with a reason`,
    footer: false,
    card: (s) => s.reasons && heldOffers('3')(s),
    run: (v) => v.openReason(),
  },
  { keys: DIGITS.slice(3), label: '4-9', when: (s) => s.held !== null, help: 'no answer to a held approval', footer: false, run: (v) => v.say('A held approval answers 1, 2 or 3.') },
  {
    keys: DIGITS,
    label: '1-9',
    when: (s) => s.held === null && !s.markedShown,
    help: 'answer',
    says: (s) => `1-${choices(s)} answer`,
    footer: on('needs', 'host-needs'),
    card: (s) => s.card?.kind === 'ask' || offers('choose')(s),
    run: (v, k) => v.answerDigit(Number(k)),
  },
  { keys: DIGITS.slice(3), label: '4-9', when: (s) => s.held === null && s.markedShown, help: 'answer the selected row', footer: false, run: (v, k) => v.answerDigit(Number(k)) },
  { keys: ['a'], help: 'allow once', footer: false, card: offers('approve'), run: (v) => v.allow(false) },
  { keys: ['A'], help: 'always', footer: false, card: offers('approve_always'), run: (v) => v.allow(true) },
  { keys: ['Enter'], when: (s) => s.mail, help: 'open the thread', footer: on('mail'), run: (v) => v.enter() },
  { keys: ['Enter'], when: (s) => !s.mail && s.row === 'host-agent', help: 'open its pane', footer: on('host-needs'), run: (v) => v.enter() },
  { keys: ['Enter'], when: (s) => !s.mail && s.row !== 'host-agent' && s.held !== null, help: 'answer in the pane', footer: on('needs', 'plain'), card: () => true, run: (v) => v.enter() },
  { keys: ['Enter'], when: (s) => !s.mail && s.row !== 'host-agent' && s.held === null, help: 'go', footer: on('needs', 'plain'), card: (s) => s.card !== null, run: (v) => v.enter() },
  { keys: ['C-]'], help: 'zoom', footer: on('needs'), run: (v) => v.zoom() },
  { keys: ['r', 'i', 'Tab'], help: 'reply', footer: on('marked', 'mail', 'host-needs', 'needs', 'plain'), run: (v) => v.openReply() },
  { keys: ['d'], when: (s) => s.marked, help: 'dismiss', footer: on('marked'), run: (v) => v.dismiss() },
  { keys: ['d'], when: (s) => !s.marked && hostRow(s), help: 'hide here', run: (v) => v.hideHere() },
  { keys: ['d'], when: (s) => !s.marked && !hostRow(s), help: 'dismiss', footer: on('mail', 'needs', 'plain'), card: (s) => s.held !== null || s.card?.kind === 'ask', run: (v) => v.dismiss() },
  { keys: ['z'], when: (s) => !s.marked && hostRow(s), help: 'snooze', footer: false, run: (v) => v.snoozeHostRow() },
  { keys: ['z'], when: (s) => s.snoozed, help: 'wake', footer: on('marked', 'plain'), run: (v) => v.wakeSnoozed() },
  { keys: ['z'], when: (s) => !s.snoozed && (s.marked || !hostRow(s)), help: 'snooze', footer: on('marked', 'mail', 'needs', 'plain'), run: (v) => v.askSnooze() },
  { keys: ['u'], help: 'undo', footer: on('plain'), run: (v) => v.undo() },
  { keys: ['S'], help: 'snoozed', footer: on('plain'), run: (v) => v.toggleSnoozed() },
  { keys: ['/'], help: 'select', footer: on('plain'), run: (v) => v.openSelect() },
  { keys: ['f'], help: 'filter', footer: on('plain'), run: (v) => v.cycleFilter() },
  { keys: ['x'], help: 'mark', footer: on('plain'), run: (v) => v.toggleMark() },
  { keys: ['*'], when: (s) => s.allMarked, help: 'clear', footer: on('marked'), run: (v) => v.markAllOrClear() },
  { keys: ['*'], when: (s) => !s.allMarked, help: 'mark all', footer: on('marked'), run: (v) => v.markAllOrClear() },
  { keys: ['m'], help: 'mailbox', footer: on('mail', 'plain'), run: (v) => v.openMailbox() },
  { keys: ['v'], when: (s) => s.row === 'agent' || s.row === 'item', help: 'review its changes', footer: false, run: (v) => v.review() },
  { keys: ['!'], help: 'wrong state: save what tuios saw', footer: false, run: (v) => v.askState() },
  { keys: ['l', 'Right'], help: 'the focus area', footer: false, run: (v) => v.setMode('narrow-focus') },
  { keys: ['?'], help: 'help', footer: on('plain'), run: (v) => v.openHelp() },
  { keys: ['Esc', 'q'], when: (s) => s.mode === 'list', help: 'close', footer: (s) => !s.marked, run: (v) => v.close() },
  { keys: ['q'], when: (s) => s.mode === 'narrow-focus', help: 'close', footer: (s) => !s.marked, run: (v) => v.close() },
];

/** space on a prompt: the pane's text, and the keys that answer it (on the card, once it has been read). */
export const AGENTS_PEEK_KEYS: Table = [
  { keys: ['a'], help: 'allow once', footer: false, card: offers('approve'), run: (v) => v.answerPeek('approve', 'a') },
  { keys: ['A'], help: 'always', footer: false, card: offers('approve_always'), run: (v) => v.answerPeek('approve_always', 'A') },
  { keys: ['d'], help: 'deny', footer: false, card: offers('deny'), run: (v) => v.answerPeek('deny', 'd') },
  { keys: DIGITS, label: '1-9', help: 'choose', says: (s) => `1-${choices(s)} choose`, footer: false, card: offers('choose'), run: (v, k) => v.answerPeek('choose', k) },
  { keys: ['Tab'], help: 'type an answer', footer: false, card: offers('text'), run: (v) => v.typeAnswer() },
  { keys: ['Esc', 'q', ' '], help: 'back', card: () => true, run: (v) => v.setMode('list') },
  { keys: ['Enter'], help: 'pane', card: () => true, run: (v) => v.toPane() },
  { keys: ['r'], when: (s) => s.row === 'agent' || s.row === 'host-agent', help: 'read it again', run: (v) => v.readAgain() },
];

/** tab in the peek: an answer typed on the card's `Answer:` line. */
export const AGENTS_TEXT_KEYS: Table = [
  { keys: ['Enter'], help: 'send the answer', card: () => true, run: (v) => v.sendAnswer() },
  { keys: ['Esc'], help: 'back to the peek', card: () => true, run: (v) => v.setMode('peek') },
];

export const AGENTS_REPLY_KEYS: Table = [
  { keys: ['Enter'], help: 'queue it', run: (v) => v.sendReply() },
  { keys: ['C-]'], help: 'go to the pane', run: (v) => v.zoomFromReply() },
  { keys: ['Esc'], help: 'keep the draft', run: (v) => v.setMode('list') },
];

export const AGENTS_SELECT_KEYS: Table = [
  { keys: ['Enter'], help: 'apply (empty clears)', run: (v) => v.applySelect() },
  { keys: ['Esc'], help: 'keep what was in force', run: (v) => v.setMode('list') },
];

export const AGENTS_REASON_KEYS: Table = [
  { keys: ['Enter'], help: 'deny with this reason (empty sends the default)', run: (v) => v.sendReason() },
  { keys: ['Esc'], help: 'drop it', run: (v) => v.dropReason() },
];

export const AGENTS_SNOOZE_KEYS: Table = [
  { keys: ['1'], help: '15 minutes', run: (v) => v.snoozeFor('15m') },
  { keys: ['2'], help: 'an hour', run: (v) => v.snoozeFor('1h') },
  { keys: ['3'], help: 'until 9:00 tomorrow', run: (v) => v.snoozeFor('tomorrow') },
  { keys: ['4'], help: 'until it changes', run: (v) => v.snoozeFor('change') },
  { keys: [OTHER_KEY], help: 'cancel', footer: false, run: (v) => v.cancelSnooze() },
];

/** `!`: the state the person says the selected agent should have, one key each. */
export const AGENTS_WANT_KEYS: Table = [
  { keys: ['i'], help: 'idle', run: (v) => v.saveState('idle') },
  { keys: ['w'], help: 'working', run: (v) => v.saveState('working') },
  { keys: ['n'], help: 'needs input', run: (v) => v.saveState('needs_input') },
  { keys: ['d'], help: 'done', run: (v) => v.saveState('done') },
  { keys: ['e'], help: 'errored', run: (v) => v.saveState('errored') },
  { keys: ['u'], help: 'unknown', run: (v) => v.saveState('unknown') },
  { keys: [OTHER_KEY], help: 'nothing saved', footer: false, run: (v) => v.nothingSaved() },
];

/** 1 with rows marked: the approvals that can be allowed together, listed first. */
export const AGENTS_BULK_ALLOW_KEYS: Table = [
  { keys: ['Enter'], help: 'allows them', run: (v) => v.allowListed() },
  { keys: [OTHER_KEY], help: 'closes', run: (v) => v.closeBulkAllow() },
];

export const AGENTS_KEYS: Record<AgentsMode, Table> = {
  list: AGENTS_LIST_KEYS,
  'narrow-focus': AGENTS_LIST_KEYS,
  peek: AGENTS_PEEK_KEYS,
  text: AGENTS_TEXT_KEYS,
  reply: AGENTS_REPLY_KEYS,
  select: AGENTS_SELECT_KEYS,
  reason: AGENTS_REASON_KEYS,
  snooze: AGENTS_SNOOZE_KEYS,
  want: AGENTS_WANT_KEYS,
  'bulk-allow': AGENTS_BULK_ALLOW_KEYS,
};
