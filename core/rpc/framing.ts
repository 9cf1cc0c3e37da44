// JSON-lines framing: bytes in, whole lines out, with a hard cap on a line's length. A line past
// the cap cannot be resynchronised (we cannot know where the next message starts), so the
// splitter reports it once and drops everything after; the owner closes the connection.

export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private overflowed = false;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: string) => void,
    private readonly onOverflow: () => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.overflowed) return;
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      if (this.size + piece.length > this.maxBytes) return this.overflow();
      const line = this.size === 0 ? piece.toString('utf8') : Buffer.concat([...this.parts, piece]).toString('utf8');
      this.parts = [];
      this.size = 0;
      start = nl + 1;
      const trimmed = line.endsWith('\r') ? line.slice(0, -1) : line;
      if (trimmed.length > 0) this.onLine(trimmed);
      if (this.overflowed) return;
    }
    const rest = chunk.subarray(start);
    if (rest.length === 0) return;
    if (this.size + rest.length > this.maxBytes) return this.overflow();
    this.parts.push(Buffer.from(rest));
    this.size += rest.length;
  }

  private overflow(): void {
    this.overflowed = true;
    this.parts = [];
    this.size = 0;
    this.onOverflow();
  }
}
