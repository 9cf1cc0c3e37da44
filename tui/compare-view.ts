// The compare view (spec: Reviewing in the client, Comparing a fan): every attempt of the fan the
// focused pane is in, one row each, from compare-fan. enter reviews an attempt, m marks two
// and d diffs them with each other (diff-fan), V runs a check you type in every attempt
// (verify-fan) and K keeps the attempt under the cursor and removes the others (keep-fan) once y
// answers a question that names each one removed. While a check runs and the view is on screen it
// reads the rows again every second until none runs; a read that fails leaves the rows as they
// were. Nothing is read otherwise. Acts go through the verbs as the person.
import type { Canvas } from './canvas.js';
import type { Rect } from './pane-draw.js';
import type { Token } from './keys.js';
import type { Overlay, TuiHost } from './overlay.js';
import { dispatchKey } from './key-table.js';
import { Editor } from './editor.js';
import { COMPARE_LIST_KEYS, type CompareKeyState, type CompareKeyTarget, type CompareMode } from './compare-keys.js';
import { drawCompare, type ComparePicture, type DiffShown } from './compare-draw.js';
import type { CompareFanResult } from '../core/verbs/fan-compare.js';

/** The counts of a row from a counted read, for a read that did not count. */
function pick(a: CompareFanResult['attempts'][number] | undefined): Partial<CompareFanResult['attempts'][number]> {
  return a ? { files: a.files, added: a.added, deleted: a.deleted, commits: a.commits, truncated: a.truncated, ...(a.error ? { error: a.error } : {}) } : {};
}

/** How often the rows are read while a check runs (spec: every second). */
export const COMPARE_POLL_MS = 1000;

export class CompareView implements Overlay, CompareKeyTarget, ComparePicture {
  readonly fullScreen = true;
  result: CompareFanResult | null = null;
  error: string | null = null;
  cursor = 0;
  readonly marks = new Set<string>();
  diff: DiffShown | null = null;
  readonly verifyLine = new Editor();
  keepQuestion = '';
  private mode: CompareMode = 'list';
  private disposed = false;
  /** A read is due or running: one round of reads at a time, however often the view is asked. */
  private polling = false;

  constructor(
    private readonly host: TuiHost,
    /** Any attempt of the fan: its session. */
    private readonly session: string,
  ) {
    this.read();
  }

  get ascii(): boolean {
    return this.host.ascii;
  }

  keyState(): CompareKeyState {
    return { mode: this.mode, marked: this.marks.size, hasRows: (this.result?.attempts.length ?? 0) > 0 };
  }

  private selected() {
    return this.result?.attempts[this.cursor] ?? null;
  }

  /** Reads the rows, counting the changes; while a check runs, again a second later without counting. */
  read(): void {
    this.host.track(this.readNow(true));
  }

  private async readNow(count: boolean): Promise<void> {
    const r = await this.host.acts.call<CompareFanResult>('compare-fan', { session: this.session, count });
    if (this.disposed) return;
    if (r.ok) {
      // A read without counting keeps the counts the last counted read gave each attempt.
      const prev = new Map((this.result?.attempts ?? []).map((a) => [a.session_id, a]));
      this.result = count ? r.value : { ...r.value, attempts: r.value.attempts.map((a) => ({ ...a, ...pick(prev.get(a.session_id)) })) };
      this.error = null;
      this.cursor = Math.min(this.cursor, Math.max(0, r.value.attempts.length - 1));
      for (const m of [...this.marks]) if (!r.value.attempts.some((a) => a.session === m)) this.marks.delete(m);
    } else if (!this.result) this.error = r.message;
    this.host.redraw();
    // A failed read (a timeout, say) leaves the rows as they were; while they say a check runs, the next second reads again.
    const again = r.ok ? r.value.running : (this.result?.running ?? false);
    if (again && !this.polling) {
      this.polling = true;
      this.host.later(COMPARE_POLL_MS, () => {
        this.polling = false;
        if (!this.disposed) this.host.track(this.readNow(false));
      });
    }
  }

  key(tok: Token): void {
    if (this.mode === 'verify') return this.verifyKey(tok);
    if (!dispatchKey(COMPARE_LIST_KEYS, this.keyState(), this as CompareKeyTarget, tok).ran) this.host.redraw();
  }

  private verifyKey(tok: Token): void {
    const res = this.verifyLine.key(tok);
    if (res === 'close') return this.cancel('No check was run.');
    if (res === 'send') {
      const command = this.verifyLine.value().trim();
      if (!command) return this.cancel('No check was run.');
      this.mode = 'list';
      this.host.track(this.runVerify(command));
    }
    this.host.redraw();
  }

  private async runVerify(command: string): Promise<void> {
    const r = await this.host.acts.call<{ attempts: unknown[] }>('verify-fan', { session: this.session, command: [command], wait: false }, true);
    if (!r.ok) this.host.dock.say(`No check was run: ${r.message}`);
    else this.host.dock.say(`Running "${command.slice(0, 60)}" in ${r.value.attempts.length} attempts.`);
    this.read();
  }

  move(d: number): void {
    const n = this.result?.attempts.length ?? 0;
    this.cursor = Math.max(0, Math.min(n - 1, this.cursor + d));
    this.host.redraw();
  }

  /** The review of the attempt under the cursor, in this view's place (its reads stop with it). */
  review(): void {
    const a = this.selected();
    const w = a?.window_id ? this.host.svc.model.windows.get(a.window_id) : undefined;
    if (!w) return this.host.dock.say('That attempt has no pane to review.');
    this.host.openReview(w);
  }

  mark(): void {
    const a = this.selected();
    if (!a) return;
    if (this.marks.has(a.session)) this.marks.delete(a.session);
    else {
      if (this.marks.size >= 2) this.marks.delete([...this.marks][0]!);
      this.marks.add(a.session);
    }
    this.host.redraw();
  }

  diffMarked(): void {
    const [a, b] = [...this.marks];
    if (!a || !b) return;
    this.host.track(
      (async () => {
        const r = await this.host.acts.call<DiffShown>('diff-fan', { a, b });
        if (this.disposed) return;
        if (!r.ok) return this.host.dock.say(`No diff: ${r.message}`);
        this.diff = r.value;
        this.mode = 'diff';
        this.host.redraw();
      })(),
    );
  }

  askVerify(): void {
    this.verifyLine.clear();
    this.mode = 'verify';
    this.host.redraw();
  }

  askKeep(): void {
    const a = this.selected();
    if (!a || !this.result) return;
    const others = this.result.attempts.filter((o) => o.session !== a.session).map((o) => o.session);
    this.keepQuestion = others.length ? `Keep ${a.session} and remove ${others.join(', ')}? (y: yes)` : `Keep ${a.session}? Nothing else to remove. (y: yes)`;
    this.mode = 'keep';
    this.host.redraw();
  }

  keep(): void {
    const a = this.selected();
    this.mode = 'list';
    if (!a) return;
    // The client goes to the kept attempt first: the session it shows may be one that goes.
    const w = a.window_id ? this.host.svc.model.windows.get(a.window_id) : undefined;
    if (w) {
      this.host.closeOverlay();
      this.host.goToWindow(w);
    }
    this.host.track(
      (async () => {
        const r = await this.host.acts.call<{ kept: string; removed: Array<{ session: string }>; kept_dirty: Array<{ session: string }>; failed: Array<{ session: string }> }>('keep-fan', { session: a.session }, true);
        if (!r.ok) {
          this.host.dock.say(`Nothing was kept: ${r.message}`);
          return this.read();
        }
        const v = r.value;
        const parts = [`Kept ${v.kept}`, v.removed.length ? `removed ${v.removed.map((x) => x.session).join(', ')}` : 'removed none'];
        if (v.kept_dirty.length) parts.push(`${v.kept_dirty.map((x) => x.session).join(', ')} kept: uncommitted work`);
        if (v.failed.length) parts.push(`${v.failed.map((x) => x.session).join(', ')} not removed`);
        this.host.dock.say(`${parts.join('; ')}.`);
        if (!w) this.host.closeOverlay();
      })(),
    );
  }

  cancel(why: string): void {
    this.mode = 'list';
    this.host.dock.say(why);
    this.host.redraw();
  }

  back(): void {
    this.mode = 'list';
    this.diff = null;
    this.host.redraw();
  }

  close(): void {
    this.host.closeOverlay();
  }

  draw(cv: Canvas, area: Rect, now: number): { x: number; y: number } | null {
    return drawCompare(this, cv, area, now);
  }

  dispose(): void {
    this.disposed = true;
  }
}

/** The compare view of the fan the pane is in, or null (the dock says why) for a pane in none. */
export function compareFor(host: TuiHost, w: { sessionId: string } | undefined): CompareView | null {
  const s = w ? host.svc.model.sessions.get(w.sessionId) : undefined;
  if (!s || !s.attrs.get('group') || !s.attrs.get('worktree')) {
    host.dock.say('This pane is not in a fan: there are no attempts to compare.');
    return null;
  }
  return new CompareView(host, s.id);
}
