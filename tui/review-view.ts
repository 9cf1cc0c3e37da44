// The review overlay (spec: Reviewing in the client; ctrl+b v on the focused pane, v on an agent
// row): what the agent in a pane changed against its base, file by file, with the notes under
// their lines. It reads with this client's own connection (review-diff, asked once when it opens
// and again on r or after a change); a note added, edited or resolved here and the notes S sends
// carry this client's nonce, so the daemon records them as yours. A client with no nonce is
// refused in the dock rather than written as someone else.
import { observeRefusal } from './observe.js';
import type { Canvas } from './canvas.js';
import type { Rect } from './pane-draw.js';
import type { Token } from './keys.js';
import type { Overlay, TuiHost } from './overlay.js';
import type { Window } from '../core/model/window.js';
import { Editor, typeInto, typingHint } from './editor.js';
import { drawEditorBox } from './editor-draw.js';
import { dispatchKey, hintRows, hintText } from './key-table.js';
import { stateMark } from './marks.js';
import { REVIEW_KEYS, REVIEW_NOTE_KEYS, type ReviewKeyState, type ReviewKeyTarget, type ReviewMode } from './review-keys.js';
import { fileRows, notePlace, type ReviewData, type ReviewRow } from './review-model.js';
import { drawReview, fileRowsShown } from './review-draw.js';
import { compareFor } from './compare-view.js';

const EDITOR_ROWS = 4;

/**
 * Asks for the pane's review once; the overlay opens when the diff arrives. A pane with no git
 * repository under it says so in the dock and nothing opens; so does a pane on another machine.
 */
export async function openReview(host: TuiHost, w: Window | null, open: (o: Overlay) => void): Promise<void> {
  if (!w) return host.dock.say('There is no pane to review.');
  if (w.host) return host.dock.say(`${w.name} runs on ${w.host}: attach there and review it there.`);
  const r = await host.acts.call<ReviewData>('review-diff', { window: w.id });
  if (!r.ok) {
    if (r.code === 'not_repo') return host.dock.say('No git repository under this pane');
    if (r.code === 'unknown_verb') return host.dock.say('This daemon has no review; restart it with a newer tuios (tuios kill-server).');
    return host.dock.say(`No review: ${r.message}`, stateMark('errored', false, host.glyphs));
  }
  open(new ReviewView(host, w, r.value, open));
}

export class ReviewView implements Overlay, ReviewKeyTarget {
  readonly fullScreen = true;
  private mode: ReviewMode = 'browse';
  private fileAt = 0;
  private rowAt = 0;
  private top = 0;
  private rows: ReviewRow[] = [];
  private editor: Editor | null = null;
  /** The note being edited, or where a new one goes. */
  private editing: { id: string } | { file: string; line: number; side: 'new' | 'old' } | null = null;
  private shown = 10;
  /** The dock's message when the review opened: only newer ones show in the overlay. */
  private readonly dockAtOpen: ReturnType<TuiHost['dock']['current']>;

  constructor(
    private readonly host: TuiHost,
    private readonly w: Window,
    private data: ReviewData,
    /** Opens another view in this one's place (the compare view). */
    private readonly open: (o: Overlay) => void,
  ) {
    this.dockAtOpen = host.dock.current();
    this.layout();
  }

  private layout(): void {
    const f = this.data.files[this.fileAt];
    this.rows = f ? fileRows(f, this.data.notes) : [];
    this.rowAt = Math.min(this.rowAt, Math.max(0, this.rows.length - 1));
  }

  private row(): ReviewRow | undefined {
    return this.rows[this.rowAt];
  }

  private keyState(): ReviewKeyState {
    const r = this.row();
    return { mode: this.mode, onNote: r?.kind === 'note' || r?.kind === 'outdated', onLine: notePlace(r) !== null, unsent: this.data.notes.some((n) => n.sent_at === null), fan: !!this.host.svc.model.sessions.get(this.w.sessionId)?.attrs.get('group') };
  }

  key(tok: Token): void {
    if (this.mode === 'note' && this.editor) typeInto(REVIEW_NOTE_KEYS, this.keyState(), this, this.editor, tok);
    else dispatchKey(REVIEW_KEYS.browse, this.keyState(), this, tok);
    this.host.redraw();
  }

  // ---- moving ----

  moveLine(d: number): void {
    this.rowAt = Math.max(0, Math.min(this.rows.length - 1, this.rowAt + d));
    if (this.rowAt < this.top) this.top = this.rowAt;
    if (this.rowAt >= this.top + this.shown) this.top = this.rowAt - this.shown + 1;
  }

  moveFile(d: number): void {
    const n = this.data.files.length;
    if (!n) return;
    this.fileAt = (this.fileAt + d + n) % n;
    this.rowAt = 0;
    this.top = 0;
    this.layout();
  }

  page(d: number): void {
    this.moveLine(d * Math.max(1, this.shown - 1));
  }

  // ---- acting ----

  /** Acts as the person need this client's nonce; without one the dock says so and nothing is written. */
  private asPerson(what: string): boolean {
    if (this.host.acts.canActAsPerson) return true;
    const ro = this.host.acts.readOnly;
    if (ro) {
      this.host.dock.say(observeRefusal(what, ro), stateMark('errored', false, this.host.glyphs));
      return false;
    }
    this.host.dock.say(`${what} is refused: this client holds no attach nonce, so it would not be written as yours.`, stateMark('errored', false, this.host.glyphs));
    return false;
  }

  addNote(): void {
    const p = notePlace(this.row());
    const f = this.data.files[this.fileAt];
    if (!p || !f) return;
    this.editing = { file: f.path, line: p.line, side: p.side };
    this.editor = new Editor();
    this.mode = 'note';
  }

  editNote(): void {
    const r = this.row();
    if (!r || (r.kind !== 'note' && r.kind !== 'outdated')) return;
    this.editing = { id: r.note.id };
    this.editor = new Editor();
    this.editor.key({ t: 'paste', raw: '', text: r.note.text });
    this.mode = 'note';
  }

  dropNote(): void {
    this.mode = 'browse';
    this.editor = null;
    this.editing = null;
  }

  saveNote(): void {
    const ed = this.editor;
    const at = this.editing;
    this.dropNote();
    if (!ed || ed.empty || !at || !this.asPerson('The note')) return;
    const params = 'id' in at ? { window: this.w.id, id: at.id, text: ed.value() } : { window: this.w.id, at: `${at.file}:${at.line}`, side: at.side, text: ed.value() };
    this.host.track(this.act('review-note', params, 'Note saved.'));
  }

  resolveNote(): void {
    const r = this.row();
    if (!r || (r.kind !== 'note' && r.kind !== 'outdated') || !this.asPerson('Resolving a note')) return;
    this.host.track(this.act('review-note', { window: this.w.id, id: r.note.id, remove: true }, 'Note resolved.'));
  }

  sendNotes(): void {
    if (!this.asPerson('Sending the notes')) return;
    this.host.track(this.act('send-review', { window: this.w.id }, 'Notes queued: typed when the agent comes to rest.'));
  }

  compare(): void {
    const v = compareFor(this.host, this.w);
    if (v) this.open(v);
  }

  reload(): void {
    this.host.track(this.read());
  }

  private async act(verb: string, params: Record<string, unknown>, done: string): Promise<void> {
    const r = await this.host.acts.call(verb, params, true);
    if (!r.ok) this.host.dock.say(`Refused: ${r.message}`, stateMark('errored', false, this.host.glyphs));
    else this.host.dock.say(done);
    await this.read();
  }

  private async read(): Promise<void> {
    const r = await this.host.acts.call<ReviewData>('review-diff', { window: this.w.id });
    if (!r.ok) return this.host.dock.say(`Not read again: ${r.message}`, stateMark('errored', false, this.host.glyphs));
    const path = this.data.files[this.fileAt]?.path;
    this.data = r.value;
    const at = this.data.files.findIndex((f) => f.path === path);
    this.fileAt = at >= 0 ? at : Math.min(this.fileAt, Math.max(0, this.data.files.length - 1));
    this.layout();
    this.host.redraw();
  }

  openHelp(): void {
    this.host.openHelp();
  }

  close(): void {
    this.host.closeOverlay();
  }

  // ---- drawing ----

  draw(cv: Canvas, area: Rect, now: number): { x: number; y: number } | null {
    const s = this.keyState();
    const msg = this.host.dock.current(now);
    // The overlay covers the dock: its newest message since the review opened shows here.
    const dock = msg && msg !== this.dockAtOpen ? msg.text : null;
    const edRows = this.mode === 'note' ? EDITOR_ROWS : 0;
    this.shown = fileRowsShown(area.h, !!dock, edRows);
    const footer = this.mode === 'note' ? typingHint(REVIEW_NOTE_KEYS, s) : hintText(hintRows(REVIEW_KEYS.browse, s), s);
    const edRect = drawReview(cv, area, { data: this.data, fileAt: this.fileAt, rows: this.rows, rowAt: this.rowAt, top: this.top, ascii: this.host.ascii, dock, footer }, edRows);
    if (this.mode === 'note' && this.editor && this.editing) {
      const title = 'id' in this.editing ? `Edit note ${this.editing.id}` : `Note on ${this.editing.file}:${this.editing.line}${this.editing.side === 'old' ? ' (removed line)' : ''}, as you`;
      return drawEditorBox(cv, edRect, this.editor, title, this.host.ascii, false);
    }
    return null;
  }
}
