// Review notes held by the daemon (spec: Reviewing an agent's changes, "Notes"): per worktree and
// per pane, at most 200 on a worktree and 1000 bytes each, saved to review/notes.json under the
// state folder (0600). A restart keeps the notes of panes that came back; a pane closing drops its
// notes, and so does removing its worktree (its session's panes close with it).
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Disposable } from '../bus.js';
import type { Bus } from '../bus.js';
import type { Logger } from '../log.js';
import { TuiosError } from '../errors.js';
import { REVIEW_NOTE_MAX_BYTES, REVIEW_NOTES_MAX, REVIEW_NOTES_TOTAL_MAX } from '../limits.js';

export interface Note {
  id: string;
  window_id: string;
  /** The top of the work tree the note is on: the bound of 200 counts here. */
  top: string;
  file: string;
  side: 'new' | 'old';
  /** The line as it was when last placed; null for a note on a whole hunk. */
  line: number | null;
  hunk: string | null;
  /** The text of its line, so the next diff finds it again. */
  quote: string;
  text: string;
  /** human, a pane's window id, link:HOST, or shell: the daemon's reading of the connection. */
  author: string;
  /** A name to print for the author (a pane's name when it was written). */
  author_name: string;
  created_at: number;
  updated_at: number;
  sent_at: number | null;
}

export type NewNote = Omit<Note, 'id' | 'created_at' | 'updated_at' | 'sent_at'>;

function checkText(text: string): void {
  if (text.trim() === '') throw new TuiosError('invalid_params', 'A note needs some text.', undefined, { field: 'text' });
  const n = Buffer.byteLength(text);
  if (n > REVIEW_NOTE_MAX_BYTES) throw new TuiosError('invalid_params', `A note is at most ${REVIEW_NOTE_MAX_BYTES} bytes; this one is ${n}.`, 'Say it shorter, or split it over two lines of the file.', { field: 'text' });
}

export class ReviewNotes implements Disposable {
  private readonly notes = new Map<string, Note>();
  private next = 1;
  private readonly subs: Disposable[] = [];

  constructor(
    private readonly file: string,
    bus: Bus,
    private readonly log: Logger,
  ) {
    this.subs.push(bus.on('window-closed', (ev) => this.dropWindow(ev.window_id)));
  }

  /** Reads the saved notes, keeping those of panes that came back (`alive`). */
  load(alive: (windowId: string) => boolean): void {
    if (!existsSync(this.file)) return;
    try {
      const raw = JSON.parse(readFileSync(this.file, 'utf8')) as { next?: number; notes?: Note[] };
      for (const n of raw.notes ?? []) {
        if (typeof n?.id !== 'string' || typeof n.window_id !== 'string' || typeof n.text !== 'string') continue;
        if (!alive(n.window_id) || this.notes.size >= REVIEW_NOTES_TOTAL_MAX) continue;
        this.notes.set(n.id, n);
      }
      this.next = Math.max(this.next, Number(raw.next) || 1);
    } catch (e) {
      this.log.warn('review notes not read', { error: e instanceof Error ? e.message : String(e) });
    }
    this.save();
  }

  all(): Note[] {
    return [...this.notes.values()];
  }

  ofWindow(windowId: string): Note[] {
    return this.all().filter((n) => n.window_id === windowId);
  }

  get(id: string): Note {
    const n = this.notes.get(id);
    if (!n) throw new TuiosError('not_found', `There is no review note ${id.slice(0, 32)}.`, 'List them with: tuios review notes');
    return n;
  }

  add(n: NewNote): Note {
    checkText(n.text);
    const onTree = this.all().filter((x) => x.top === n.top).length;
    if (onTree >= REVIEW_NOTES_MAX) throw new TuiosError('limit_reached', `This worktree has ${onTree} review notes, the most it keeps.`, 'Send or clear some first: tuios review send, tuios review note --clear.', { max: REVIEW_NOTES_MAX });
    if (this.notes.size >= REVIEW_NOTES_TOTAL_MAX) throw new TuiosError('limit_reached', `The daemon holds ${this.notes.size} review notes, the most it keeps.`, 'Send or clear some first.');
    const now = Date.now();
    const note: Note = { ...n, id: `n${this.next++}`, created_at: now, updated_at: now, sent_at: null };
    this.notes.set(note.id, note);
    this.save();
    return note;
  }

  edit(id: string, text: string, author: string, authorName: string): Note {
    checkText(text);
    const n = this.get(id);
    // An edit makes the note its editor's: the message then speaks for whoever edited it last.
    Object.assign(n, { text, author, author_name: authorName, updated_at: Date.now() });
    this.save();
    return n;
  }

  /** Moves a note to where the last diff found its line (kept so the next look starts there). */
  place(id: string, line: number | null, hunk?: string | null): void {
    const n = this.notes.get(id);
    if (!n) return;
    let changed = false;
    if (line !== null && line !== n.line) (n.line = line), (changed = true);
    if (hunk && hunk !== n.hunk) (n.hunk = hunk), (changed = true);
    if (changed) this.save();
  }

  markSent(ids: string[], at = Date.now()): void {
    for (const id of ids) {
      const n = this.notes.get(id);
      if (n) n.sent_at = at;
    }
    this.save();
  }

  remove(ids: string[]): number {
    let k = 0;
    for (const id of ids) if (this.notes.delete(id)) k++;
    if (k) this.save();
    return k;
  }

  private dropWindow(windowId: string): void {
    const ids = this.ofWindow(windowId).map((n) => n.id);
    if (ids.length) this.remove(ids);
  }

  /** Written whole through a temp file, readable by you only. */
  private save(): void {
    try {
      mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
      const tmp = `${this.file}.tmp`;
      writeFileSync(tmp, JSON.stringify({ version: 1, next: this.next, notes: this.all() }), { mode: 0o600 });
      renameSync(tmp, this.file);
    } catch (e) {
      this.log.warn('review notes not saved', { error: e instanceof Error ? e.message : String(e) });
    }
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}
