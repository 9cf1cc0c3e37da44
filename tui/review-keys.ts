// The review overlay's keys (spec: Reviewing in the client), one table per mode. The footer and
// the help are drawn from these rows. In the note editor the keys type into it; enter saves and
// esc leaves it, as the editor makes of them (typeInto).
import type { KeyTable } from './key-table.js';

export type ReviewMode = 'browse' | 'note';

export interface ReviewKeyState {
  mode: ReviewMode;
  /** A note is under the cursor (e edits it, x resolves it). */
  onNote: boolean;
  /** The cursor is on a line a note can sit on. */
  onLine: boolean;
  /** The pane has unsent notes (S sends them). */
  unsent: boolean;
  /** The pane is an attempt of a fan (w shows the compare view). */
  fan: boolean;
}

/** What the review's keys act on. */
export interface ReviewKeyTarget {
  moveLine(d: number): void;
  moveFile(d: number): void;
  page(d: number): void;
  addNote(): void;
  editNote(): void;
  resolveNote(): void;
  sendNotes(): void;
  compare(): void;
  reload(): void;
  openHelp(): void;
  close(): void;
  saveNote(): void;
  dropNote(): void;
}

type Table = KeyTable<ReviewKeyState, ReviewKeyTarget>;

export const REVIEW_BROWSE_KEYS: Table = [
  { keys: ['j', 'Down'], label: 'j/k', help: 'line', run: (v) => v.moveLine(1) },
  { keys: ['k', 'Up'], label: 'k', help: 'line up', footer: false, run: (v) => v.moveLine(-1) },
  { keys: ['J', 'Tab'], label: 'J/K', help: 'file', run: (v) => v.moveFile(1) },
  { keys: ['K', 'S-Tab'], label: 'K', help: 'previous file', footer: false, run: (v) => v.moveFile(-1) },
  { keys: ['C-d', 'PgDn', ' '], label: 'ctrl+d', help: 'page down', footer: false, run: (v) => v.page(1) },
  { keys: ['C-u', 'PgUp'], label: 'ctrl+u', help: 'page up', footer: false, run: (v) => v.page(-1) },
  { keys: ['a', 'Enter'], when: (s) => s.onLine && !s.onNote, label: 'a', help: 'note on this line', run: (v) => v.addNote() },
  { keys: ['e', 'Enter'], when: (s) => s.onNote, label: 'e', help: 'edit the note', run: (v) => v.editNote() },
  { keys: ['x'], when: (s) => s.onNote, help: 'resolve the note', run: (v) => v.resolveNote() },
  { keys: ['S'], when: (s) => s.unsent, help: 'send the notes to the agent', run: (v) => v.sendNotes() },
  { keys: ['w'], when: (s) => s.fan, help: 'compare the attempts', run: (v) => v.compare() },
  { keys: ['r'], help: 'read again', footer: false, run: (v) => v.reload() },
  { keys: ['?'], help: 'help', footer: false, run: (v) => v.openHelp() },
  { keys: ['Esc', 'q'], help: 'close', run: (v) => v.close() },
];

export const REVIEW_NOTE_KEYS: Table = [
  { keys: ['Enter'], help: 'save the note', run: (v) => v.saveNote() },
  { keys: ['Esc'], help: 'leave it unsaved', run: (v) => v.dropNote() },
];

export const REVIEW_KEYS: Record<ReviewMode, Table> = { browse: REVIEW_BROWSE_KEYS, note: REVIEW_NOTE_KEYS };
