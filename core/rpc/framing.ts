// JSON-lines framing: bytes in, whole lines out, with a hard cap on a line's length. A line past
// the cap cannot be resynchronised (we cannot know where the next message starts), so the
// splitter reports it once and drops everything after; the owner closes the connection.

/**
 * Bytes of unfinished lines held across many connections: each connection holds at most one
 * line, but connections are many, and half lines from a few hundred of them would add up.
 */
export class PartialBudget {
  private held = 0;
  constructor(readonly maxBytes: number) {}
  take(n: number): boolean {
    if (this.held + n > this.maxBytes) return false;
    this.held += n;
    return true;
  }
  give(n: number): void {
    this.held = Math.max(0, this.held - n);
  }
  get bytes(): number {
    return this.held;
  }
}

export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private overflowed = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: () => void,
    /** Shared with the other connections; past it, onBudget is told and the rest is dropped. */
    private readonly budget?: { pool: PartialBudget; onExhausted: () => void },
  ) {}

  /** The connection closed: what it held goes back to the shared budget. */
  dispose(): void {
    this.drop();
    this.overflowed = true;
  }

  push(chunk: Buffer): void {
    if (this.overflowed) return;
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      if (this.size + piece.length > this.maxBytes) return this.overflow();
      const line = this.size === 0 ? piece.toString('utf8') : Buffer.concat([...this.parts, piece]).toString('utf8');
      this.drop();
      start = nl + 1;
      const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
      if (trimmed.length > 0) this.onLine(trimmed);
      if (this.overflowed) return;
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0) return;
    if (this.size + rest.length > this.maxBytes) return this.overflow();
    if (this.budget && !this.budget.pool.take(rest.length)) {
      this.overflowed = true;
      this.drop();
      this.budget.onExhausted();
      return;
    }
    this.parts.push(Buffer.from(rest));
    this.size += rest.length;
  }

  private drop(): void {
    this.budget?.pool.give(this.size);
    this.parts = [];
    this.size = 0;
  }

  private overflow(): void {
    this.overflowed = true;
    this.drop();
    this.onOverflow();
  }
}
