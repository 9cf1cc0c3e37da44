// The compare view's keys (spec: Reviewing in the client, the compare view): one row per binding,
// the same rows dispatch a key and draw the footer and the help.
import { OTHER_KEY, type KeyTable } from './key-table.js';

export type CompareMode = 'list' | 'keep' | 'verify' | 'diff';

export interface CompareKeyState {
  mode: CompareMode;
  /** Attempts marked with m. */
  marked: number;
  /** The attempt under the cursor can be kept (the view has rows). */
  hasRows: boolean;
}

export interface CompareKeyTarget {
  move(d: number): void;
  review(): void;
  mark(): void;
  diffMarked(): void;
  askVerify(): void;
  askKeep(): void;
  keep(): void;
  cancel(why: string): void;
  read(): void;
  back(): void;
  close(): void;
}

const inList = (s: CompareKeyState) => s.mode === 'list';

export const COMPARE_LIST_KEYS: KeyTable<CompareKeyState, CompareKeyTarget> = [
  { keys: ['j', 'Down', 'k', 'Up'], label: 'j/k', when: inList, help: 'move', run: (t, k) => t.move(k === 'j' || k === 'Down' ? 1 : -1) },
  { keys: ['Enter'], when: (s) => inList(s) && s.hasRows, help: 'review the attempt', run: (t) => t.review() },
  { keys: ['m'], when: (s) => inList(s) && s.hasRows, help: 'mark', run: (t) => t.mark() },
  { keys: ['d'], when: (s) => inList(s) && s.marked === 2, help: 'diff the two marked', run: (t) => t.diffMarked() },
  { keys: ['V'], when: (s) => inList(s) && s.hasRows, help: 'run a check in every attempt', run: (t) => t.askVerify() },
  { keys: ['K'], when: (s) => inList(s) && s.hasRows, help: 'keep this attempt, remove the others', run: (t) => t.askKeep() },
  { keys: ['r'], when: inList, help: 'read again', run: (t) => t.read() },
  { keys: ['Esc', 'q'], when: inList, help: 'close', run: (t) => t.close() },
  // The keep question: y keeps, any other key keeps nothing.
  { keys: ['y', 'Y'], when: (s) => s.mode === 'keep', help: 'yes, keep it', run: (t) => t.keep() },
  { keys: [OTHER_KEY], label: 'n', when: (s) => s.mode === 'keep', help: 'no', run: (t) => t.cancel('Nothing was kept or removed.') },
  // A diff of two attempts: any key goes back to the rows.
  { keys: [OTHER_KEY], label: 'any key', when: (s) => s.mode === 'diff', help: 'back', run: (t) => t.back() },
];
