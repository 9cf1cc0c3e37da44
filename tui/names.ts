// `@` in the reply editor (spec: Naming a pane, an agent or a file): a list of the agents and panes
// of every session here and the files of the reply's pane folder, narrowed by what follows the
// `@`. Tab puts the chosen entry in place of the `@` and what followed it; a folder goes in with a
// slash and keeps the list open, so the next list is inside it. Pure: where the entries come from
// is the view's NameSource, and the editor holds one NameList while the list is open.
import { NAMES_SHOWN_MAX } from './limits.js';

export type NameKind = 'agent' | 'pane' | 'file' | 'folder';

export interface NameEntry {
  kind: NameKind;
  /** What goes into the draft: an address (`work/review`), a path from the pane's folder (`api/client.go`, `api/`). */
  insert: string;
  /** A word after it on the list (an agent's state). */
  detail?: string;
}

/** One entry of a folder, as the daemon lists it. */
export interface FolderEntry {
  name: string;
  dir: boolean;
}

export interface NameSource {
  /** The agents and panes of every session here, each as its address. */
  panes(): readonly NameEntry[];
  /** The entries of a folder under the pane's folder ('' is the folder itself): null while it is read, [] when it offers none. */
  files(folder: string): readonly FolderEntry[] | null;
}

/** The folder a query walks into and the word that narrows it: `api/cl` is `api/` and `cl`. */
export function splitQuery(q: string): { folder: string; word: string } {
  const i = q.lastIndexOf('/');
  return i < 0 ? { folder: '', word: q } : { folder: q.slice(0, i + 1), word: q.slice(i + 1) };
}

/**
 * How well `name` fits `word`, lower is better, null when it does not: a name that starts with
 * the word, then one with a part that does (after / - _ . or a space), then one that holds it,
 * then one that holds its letters in order. Case does not count.
 */
export function fit(name: string, word: string): number | null {
  if (word === '') return 0;
  const n = name.toLowerCase();
  const w = word.toLowerCase();
  if (n.startsWith(w)) return 0;
  if (n.includes(w)) return new RegExp(`[/\\-_. ]${escape(w)}`).test(n) ? 1 : 2;
  let i = 0;
  for (const ch of n) if (ch === w[i]) i++;
  return i === w.length ? 3 : null;
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The list for a query: the agents and panes it fits (on their address or their window's name)
 * and the entries of the folder it walks into that its last word fits, best fit first; on equal
 * fits agents and panes come first, then folders, then files. `loading` while that folder is read.
 */
export function candidates(src: NameSource, query: string, max = NAMES_SHOWN_MAX): { entries: NameEntry[]; loading: boolean } {
  const scored: Array<{ e: NameEntry; s: number }> = [];
  for (const e of src.panes()) {
    const whole = fit(e.insert, query);
    const name = fit(e.insert.slice(e.insert.lastIndexOf('/') + 1), query);
    const s = whole === null ? name : name === null ? whole : Math.min(whole, name);
    if (s !== null) scored.push({ e, s });
  }
  const { folder, word } = splitQuery(query);
  const listed = src.files(folder);
  const entries = listed ?? [];
  for (const dir of [true, false]) {
    for (const f of entries) {
      if (f.dir !== dir) continue;
      const s = fit(f.name, word);
      if (s !== null) scored.push({ e: dir ? { kind: 'folder', insert: `${folder}${f.name}/` } : { kind: 'file', insert: `${folder}${f.name}` }, s });
    }
  }
  // A stable sort: equal fits keep the order they were added in.
  scored.sort((a, b) => a.s - b.s);
  return { entries: scored.slice(0, max).map((x) => x.e), loading: listed === null };
}

/** What ends the text a list reads: a space, or a paste block (the editor's private-use characters). */
const BOUNDARY = /[\s\u{F0000}-\u{FFFFD}]/u;

/**
 * The list while it is open: where its text starts in the draft (the `@`, or the folder a tab
 * put there) and which entry is chosen. It stays open while the cursor is in one run of
 * non-space text after that start.
 */
export class NameList {
  index = 0;
  constructor(
    /** Where the `@` (or a chosen folder's path) starts. */
    readonly start: number,
    /** The text starts with the `@` the person typed (a walked folder has none). */
    readonly at: boolean,
  ) {}

  /** What narrows the list: the text after the `@` up to the cursor. */
  query(text: string, pos: number): string {
    return text.slice(this.start + (this.at ? 1 : 0), pos);
  }

  /** The list still applies to this text and cursor. */
  holds(text: string, pos: number): boolean {
    if (pos < this.start + (this.at ? 1 : 0)) return false;
    if (this.at && text[this.start] !== '@') return false;
    return !BOUNDARY.test(text.slice(this.start, pos));
  }

  /** Where the text the entry replaces ends: the end of the run of non-space text it is in. */
  end(text: string, pos: number): number {
    let e = pos;
    for (const ch of text.slice(pos)) {
      if (BOUNDARY.test(ch)) break;
      e += ch.length;
    }
    return e;
  }

  move(d: number, n: number): void {
    this.index = n === 0 ? 0 : Math.max(0, Math.min(n - 1, this.index + d));
  }
}

/** `@` opens a list at the start of the reply or after a space. */
export function opensList(text: string, at: number): boolean {
  return text[at] === '@' && (at === 0 || /\s/.test(text[at - 1]!));
}
