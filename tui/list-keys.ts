// The keys that move a list's selection, shared by the lists of the TUI's views (agents view,
// mailbox): a step of one, or to either end.
const MOVES: Record<string, number> = { j: 1, Down: 1, k: -1, Up: -1, g: -1e9, Home: -1e9, G: 1e9, End: 1e9 };

/** How far the key moves the selection (±1, or ±1e9 for an end), or null when it is not a move. */
export function listMove(key: string): number | null {
  return Object.hasOwn(MOVES, key) ? MOVES[key]! : null;
}

/** Every key listMove takes. */
export const LIST_MOVE_KEYS: readonly string[] = Object.keys(MOVES);
