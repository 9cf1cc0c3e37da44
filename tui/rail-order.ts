// The orders of the rail's agents section (spec: The rail's agents section): `you` (the default)
// groups rows by what they need from you; `pri` is the older order by state; `rec` puts the newest
// state change first. Inside a group rows keep spawn order (the order they come in), so a row
// moves only when its own group changes. The collapsed strip lists agents in the same order. Pure.
import { railGroup, type RailGroup, type RailRow } from './rows.js';

export const RAIL_ORDERS = ['you', 'pri', 'rec'] as const;
export type RailOrder = (typeof RAIL_ORDERS)[number];

const YOU: RailGroup[] = ['needs', 'done', 'working', 'rest'];

/** `pri`: errored, needs_input, working, done unread, done read, idle, then the rest. */
function priRank(r: RailRow): number {
  if (r.state === 'errored') return 0;
  if (r.state === 'needs_input') return 1;
  if (r.state === 'working') return 2;
  if (r.state === 'done') return r.finishedUnread ? 3 : 4;
  if (r.state === 'idle') return 5;
  return 6;
}

/** The next order the sort control steps to. */
export function nextOrder(o: RailOrder): RailOrder {
  return RAIL_ORDERS[(RAIL_ORDERS.indexOf(o) + 1) % RAIL_ORDERS.length]!;
}

export function isRailOrder(v: unknown): v is RailOrder {
  return typeof v === 'string' && (RAIL_ORDERS as readonly string[]).includes(v);
}

/** The rows in the section's order, each with its `you` group (what its second line is about). */
export function orderRows<R extends RailRow>(rows: readonly R[], order: RailOrder): Array<{ a: R; g: RailGroup }> {
  const withGroup = rows.map((a, i) => ({ a, g: railGroup(a), i }));
  const cmp =
    order === 'you'
      ? (x: (typeof withGroup)[number], y: (typeof withGroup)[number]) => YOU.indexOf(x.g) - YOU.indexOf(y.g) || x.i - y.i
      : order === 'pri'
        ? (x: (typeof withGroup)[number], y: (typeof withGroup)[number]) => priRank(x.a) - priRank(y.a) || x.i - y.i
        : (x: (typeof withGroup)[number], y: (typeof withGroup)[number]) => y.a.stateSince - x.a.stateSince || x.i - y.i;
  return withGroup.sort(cmp).map(({ a, g }) => ({ a, g }));
}
