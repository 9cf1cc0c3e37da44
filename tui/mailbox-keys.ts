// The mailbox's keys, one table per mode (spec: In the mailbox). The footer and the help are
// drawn from these rows. In reply and compose the keys type into the editor; enter and esc there
// are what the editor makes of them (see typeInto).
import { LIST_MOVE_KEYS, listMove } from './list-keys.js';
import type { KeyTable } from './key-table.js';

export type MailboxMode = 'list' | 'thread' | 'reply' | 'pick' | 'compose';

export interface MailboxKeyState {
  mode: MailboxMode;
  /** Opened from the agents view: esc in the list goes back there. */
  back: boolean;
}

/** What the mailbox's keys act on. */
export interface MailboxKeyTarget {
  move(d: number): void;
  openSelected(reply: boolean): void;
  newMessage(): void;
  openHelp(): void;
  leave(): void;
  scrollBy(d: number): void;
  scrollTo(top: boolean): void;
  startReply(): void;
  toList(): void;
  pickMove(d: number): void;
  pickChosen(): void;
  sendReply(): void;
  sendNew(): void;
  /** Leaves the editor; the draft is kept. */
  keepDraft(): void;
}

type Table = KeyTable<MailboxKeyState, MailboxKeyTarget>;

export const MAILBOX_LIST_KEYS: Table = [
  { keys: LIST_MOVE_KEYS, label: 'j/k', help: 'move', run: (v, k) => v.move(listMove(k)!) },
  { keys: ['Enter', 'l', 'Right'], help: 'open', run: (v) => v.openSelected(false) },
  { keys: ['r'], help: 'reply', run: (v) => v.openSelected(true) },
  { keys: ['n'], help: 'new message', run: (v) => v.newMessage() },
  { keys: ['?'], help: 'help', footer: false, run: (v) => v.openHelp() },
  { keys: ['Esc', 'q'], when: (s) => s.back, help: 'back to the agents', run: (v) => v.leave() },
  { keys: ['Esc', 'q'], when: (s) => !s.back, help: 'close', run: (v) => v.leave() },
];

export const MAILBOX_THREAD_KEYS: Table = [
  { keys: ['j', 'Down', 'k', 'Up'], label: 'j/k', help: 'scroll', run: (v, k) => v.scrollBy(k === 'j' || k === 'Down' ? 1 : -1) },
  { keys: ['C-d', 'PgDn', ' '], label: 'ctrl+d', help: 'page down', footer: false, run: (v) => v.scrollBy(10) },
  { keys: ['C-u', 'PgUp'], label: 'ctrl+u', help: 'page up', footer: false, run: (v) => v.scrollBy(-10) },
  { keys: ['g', 'Home', 'G', 'End'], label: 'g/G', help: 'top, newest', run: (v, k) => v.scrollTo(k === 'g' || k === 'Home') },
  { keys: ['r', 'Tab'], help: 'reply', run: (v) => v.startReply() },
  { keys: ['Esc', 'q', 'h', 'Left'], help: 'back to the list', run: (v) => v.toList() },
];

export const MAILBOX_PICK_KEYS: Table = [
  { keys: ['j', 'Down', 'k', 'Up'], label: 'j/k', help: 'move', run: (v, k) => v.pickMove(k === 'j' || k === 'Down' ? 1 : -1) },
  { keys: ['Enter'], help: 'write to it', run: (v) => v.pickChosen() },
  { keys: ['Esc', 'q'], help: 'cancel', run: (v) => v.toList() },
];

export const MAILBOX_REPLY_KEYS: Table = [
  { keys: ['Enter'], help: 'send', run: (v) => v.sendReply() },
  { keys: ['Esc'], help: 'keep the draft', run: (v) => v.keepDraft() },
];

export const MAILBOX_COMPOSE_KEYS: Table = [
  { keys: ['Enter'], help: 'send', run: (v) => v.sendNew() },
  { keys: ['Esc'], help: 'keep the draft', run: (v) => v.keepDraft() },
];

export const MAILBOX_KEYS: Record<MailboxMode, Table> = {
  list: MAILBOX_LIST_KEYS,
  thread: MAILBOX_THREAD_KEYS,
  pick: MAILBOX_PICK_KEYS,
  reply: MAILBOX_REPLY_KEYS,
  compose: MAILBOX_COMPOSE_KEYS,
};
