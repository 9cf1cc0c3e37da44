// A session's workspaces as herdr's tabs (spec: How tuios maps onto herdr): which workspaces are
// tabs, each tab's own number, and the workspaces' names. Pure bookkeeping: the model tells it
// which workspaces hold windows and which one shows, and asks it for numbers and names.
//
// A tab's number is its own. A workspace's number is its position, so reordering workspaces moves
// their tab numbers and names with them. A tab number is never used twice in a session: a
// workspace that stops being a tab gives its number up for good, and a tab made there later gets a
// new one. A new tab takes its workspace's number when that number was never used, so a session
// that was never reordered and never lost a tab has tab number = workspace number.
import { TuiosError } from '../errors.js';
import { MAX_TAB_NUMBER, WORKSPACES } from '../limits.js';

export interface TabEntry {
  workspace: number;
  /** The tab's own number, the one in its herdr id. */
  number: number;
  /** The workspace's name; null: unnamed (its label is the workspace number). */
  name: string | null;
}

/** What the snapshot keeps of a session's tabs. */
export interface TabsRecord {
  tabs: TabEntry[];
  /** Numbers 1..WORKSPACES already given out. */
  used: number[];
  /** The next number above the workspace range. */
  next: number;
}

export class WorkspaceTabs {
  private readonly numbers = new Map<number, number>();
  private readonly names = new Map<number, string>();
  /** Numbers within 1..WORKSPACES given out so far (bounded by WORKSPACES). */
  private readonly usedLow = new Set<number>();
  private next = WORKSPACES + 1;
  /** While a snapshot is restored, windows arrive one by one: no tab is given up meanwhile. */
  held = false;

  numberOf(workspace: number): number | undefined {
    return this.numbers.get(workspace);
  }

  nameOf(workspace: number): string | null {
    return this.names.get(workspace) ?? null;
  }

  /** The workspace whose tab has this number, if that tab still exists. */
  workspaceOf(tab: number): number | undefined {
    for (const [ws, n] of this.numbers) if (n === tab) return ws;
    return undefined;
  }

  /** The tabs in workspace order. */
  list(): TabEntry[] {
    return [...this.numbers]
      .sort((a, b) => a[0] - b[0])
      .map(([workspace, number]) => ({ workspace, number, name: this.nameOf(workspace) }));
  }

  /**
   * Brings the tabs in line with the session: a workspace is a tab when it holds a window, has a
   * name, or is the one that shows. A new tab gets a number; a workspace that stopped being one
   * gives its number up.
   */
  sync(occupied: Iterable<number>, active: number): void {
    const want = new Set<number>(occupied);
    want.add(active);
    for (const ws of this.names.keys()) want.add(ws);
    if (!this.held) for (const ws of [...this.numbers.keys()]) if (!want.has(ws)) this.numbers.delete(ws);
    for (const ws of [...want].sort((a, b) => a - b)) if (!this.numbers.has(ws)) this.numbers.set(ws, this.take(ws));
  }

  /** The last pane of a workspace left it: its tab goes and the workspace loses its name. */
  emptied(workspace: number): void {
    if (this.held) return;
    this.numbers.delete(workspace);
    this.names.delete(workspace);
  }

  /** Names a workspace; null clears the name. The caller checks the name (checkName). */
  setName(workspace: number, name: string | null): void {
    if (name === null) this.names.delete(workspace);
    else this.names.set(workspace, name);
  }

  /**
   * Puts the tabs in a new order, given as their tab numbers: every tab once. The tabs take the
   * workspace numbers they hold between them, in that order; each keeps its number and name.
   * Returns the workspaces that change, old number to new.
   */
  reorder(order: number[]): Map<number, number> {
    const current = this.list();
    const have = new Set(current.map((t) => t.number));
    const seen = new Set<number>();
    for (const n of order) {
      if (!have.has(n)) throw new TuiosError('invalid_params', `There is no tab ${n} in this session.`, `Its tabs are ${[...have].join(', ')}; list them with list-sessions --json.`, { field: 'order' });
      if (seen.has(n)) throw new TuiosError('invalid_params', `Tab ${n} is named twice.`, 'Name every tab once.', { field: 'order' });
      seen.add(n);
    }
    if (seen.size !== have.size) {
      throw new TuiosError('invalid_params', `Name every tab of the session once: ${[...have].filter((n) => !seen.has(n)).join(', ')} missing.`, undefined, { field: 'order' });
    }
    const slots = current.map((t) => t.workspace);
    const byNumber = new Map(current.map((t) => [t.number, t]));
    const moves = new Map<number, number>();
    order.forEach((n, i) => {
      const from = byNumber.get(n)!.workspace;
      if (from !== slots[i]) moves.set(from, slots[i]!);
    });
    renumber(this.numbers, moves);
    renumber(this.names, moves);
    return moves;
  }

  toRecord(): TabsRecord {
    return { tabs: this.list(), used: [...this.usedLow].sort((a, b) => a - b), next: this.next };
  }

  /** Takes a saved record back; a record of the wrong shape is ignored (the tabs start anew). */
  load(rec: unknown): void {
    const r = rec as Partial<TabsRecord> | null;
    if (!r || !Array.isArray(r.tabs) || !Array.isArray(r.used) || typeof r.next !== 'number') return;
    const ok = (n: unknown, max: number): n is number => Number.isInteger(n) && (n as number) >= 1 && (n as number) <= max;
    if (!ok(r.next, MAX_TAB_NUMBER + 1) || r.next <= WORKSPACES) return;
    this.next = r.next;
    for (const n of r.used) if (ok(n, WORKSPACES)) this.usedLow.add(n);
    const taken = new Set<number>();
    for (const t of r.tabs.slice(0, WORKSPACES)) {
      if (!t || !ok(t.workspace, WORKSPACES) || !ok(t.number, MAX_TAB_NUMBER) || taken.has(t.number) || this.numbers.has(t.workspace)) continue;
      if (t.number > WORKSPACES && t.number >= this.next) continue;
      taken.add(t.number);
      this.numbers.set(t.workspace, t.number);
      if (t.number <= WORKSPACES) this.usedLow.add(t.number);
      if (typeof t.name === 'string' && t.name.length > 0 && t.name.length <= 128) this.names.set(t.workspace, t.name);
    }
  }

  /** A number never given out in this session: the workspace's own when still free, else the next. */
  private take(workspace: number): number {
    if (workspace <= WORKSPACES && !this.usedLow.has(workspace)) {
      this.usedLow.add(workspace);
      return workspace;
    }
    // Past MAX_TAB_NUMBER (a billion tabs made in one session) the last number is reused rather
    // than growing a herdr id past what its parser takes.
    const n = this.next;
    if (this.next < MAX_TAB_NUMBER) this.next++;
    return n;
  }
}

/** Moves the entries of a map keyed by workspace number: old number to new, all at once. */
export function renumber<T>(m: Map<number, T>, moves: Map<number, number>): void {
  const moved: Array<[number, T]> = [];
  for (const [from, to] of moves) {
    if (!m.has(from)) continue;
    moved.push([to, m.get(from)!]);
    m.delete(from);
  }
  for (const [to, v] of moved) m.set(to, v);
}

