// What the prefix keys do to the layout (spec: Panes): the focused pane, moving the focus, a new
// window or split, zoom, and the workspaces. Focusing a pane is also looking at it: a finished
// turn there is marked seen, and a hold on its prompt ends (the person answers it there).
import type { Services } from '../core/daemon/services.js';
import type { Window } from '../core/model/window.js';
import type { Session } from '../core/model/model.js';
import type { Acts } from './acts.js';
import type { Dock } from './alerts.js';
import { layoutOf, neighbour, placeLeaf, type Direction, type Dir } from '../core/model/layout.js';
import type { Rect } from './pane-draw.js';
import { AwayRecaps } from './away-recap.js';

export interface LayoutHost {
  readonly svc: Services;
  readonly acts: Acts;
  readonly dock: Dock;
  session(): Session | undefined;
  /** The tiles as last laid out, and where they go. */
  tiles(): Map<string, Rect>;
  bodyRect(): Rect;
  /** The next frame repaints every pane. */
  invalidate(): void;
  redraw(): void;
  closed(): boolean;
}

export class LayoutActs {
  /** The completion each pane was last marked seen at (one focus-window per finished turn). */
  private readonly seenSent = new Map<string, number>();

  /** The away recap: the dock's line when focus lands on a pane that worked while you were away. */
  readonly recaps: AwayRecaps;

  constructor(private readonly host: LayoutHost) {
    this.recaps = new AwayRecaps(host);
  }


  focusedWindow(): Window | undefined {
    const s = this.host.session();
    if (!s) return undefined;
    const l = layoutOf(s, s.activeWorkspace);
    if (l.zoomed) {
      const z = this.host.svc.model.windows.get(l.zoomed);
      if (z) return z;
    }
    const w = this.host.svc.model.focusedWindow(s);
    return w && w.workspace === s.activeWorkspace ? w : undefined;
  }

  focus(w: Window): void {
    this.host.svc.model.focusWindow(w);
    const s = this.host.session();
    const l = s ? layoutOf(s, w.workspace) : null;
    if (l?.zoomed && l.zoomed !== w.id) l.zoomed = null;
    this.markSeen(w);
    this.host.invalidate();
  }

  /** The pane's turn was marked unread (`u` on the rail): looking at it marks it seen again. */
  forgetSeen(id: string): void {
    this.seenSent.delete(id);
  }

  /** Looking at a pane that finished a turn is what marks it seen (and closes its Done item). */
  markSeen(w: Window): void {
    this.recaps.inFront(w);
    // Focusing a pane whose prompt a hook holds ends the hold: the person answers it there.
    if (this.host.svc.holds.heldFor(w.id) && this.host.acts.canActAsPerson) void this.host.acts.call('release-approval', { window: w.id }, true);
    const info = this.host.svc.agents.info(w);
    if (!info.finished_unread || !this.host.acts.canActAsPerson) return;
    const seq = Number(info.completion_seq ?? 0);
    if (this.seenSent.get(w.id) === seq) return;
    this.seenSent.set(w.id, seq);
    // Quiet: the person did not ask for it, so a failure shows nothing.
    void this.host.acts.call('focus-window', { window: w.id }, true);
  }

  moveFocus(d: Direction): void {
    const w = this.focusedWindow();
    if (!w) return;
    const next = neighbour(this.host.tiles(), w.id, d);
    const target = next ? this.host.svc.model.windows.get(next) : undefined;
    if (target) this.focus(target);
  }

  async newWindow(split: Dir | null): Promise<void> {
    const s = this.host.session();
    if (!s) return;
    const ws = s.activeWorkspace;
    const from = this.focusedWindow();
    // A split is split-window's, the verb herdr's pane.split and the CLI run: one placement rule.
    if (split && from) {
      const r = await this.host.acts.call<{ window: { id: string } }>('split-window', { window: from.id, direction: split === 'row' ? 'right' : 'down' });
      if (this.host.closed()) return;
      if (!r.ok) return this.host.dock.say(`No split: ${r.message}`);
      const w = this.host.svc.model.windows.get(r.value.window.id);
      if (w) this.focus(w);
      this.host.redraw();
      return;
    }
    const r = await this.host.acts.call<{ id: string }>('new-window', { session: s.id, workspace: ws });
    if (this.host.closed()) return;
    if (!r.ok) return this.host.dock.say(`No new window: ${r.message}`);
    const w = this.host.svc.model.windows.get(r.value.id);
    if (!w) return;
    const l = layoutOf(s, ws);
    l.zoomed = null;
    l.root = placeLeaf(l.root, w.id, this.host.bodyRect());
    this.focus(w);
    this.host.redraw();
  }

  toggleZoom(): void {
    const s = this.host.session();
    const w = this.focusedWindow();
    if (!s || !w) return;
    const l = layoutOf(s, s.activeWorkspace);
    l.zoomed = l.zoomed ? null : w.id;
    this.host.invalidate();
  }

  switchWorkspace(n: number): void {
    const s = this.host.session();
    if (!s) return;
    this.host.svc.model.switchWorkspace(s, n);
    this.host.invalidate();
  }

  stepWorkspace(d: number): void {
    const s = this.host.session();
    if (!s) return;
    const used = [...new Set(this.host.svc.model.windowsOf(s).map((w) => w.workspace))].sort((a, b) => a - b);
    if (!used.includes(s.activeWorkspace)) used.push(s.activeWorkspace);
    used.sort((a, b) => a - b);
    const i = used.indexOf(s.activeWorkspace);
    this.switchWorkspace(used[(i + d + used.length) % used.length]!);
  }
}
