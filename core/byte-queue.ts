// Bytes that came in pieces (a socket's reads, a link's frames), taken off the front in the sizes a
// frame format asks for. What a take returns is a view of the piece that holds it when one does
// (the usual case: a frame inside one read), else a copy of those bytes alone; the bytes after
// them stay as they came. Joining everything held on each take instead copied every byte again
// with each frame that followed it.

export class ByteQueue {
  private parts: Buffer[] = [];
  private held = 0;

  /** Bytes held. */
  get size(): number {
    return this.held;
  }

  push(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.parts.push(chunk);
    this.held += chunk.length;
  }

  /** The next `n` bytes, taken off; `n` must not be more than `size`. */
  take(n: number): Buffer {
    const out = this.peek(n);
    this.drop(n);
    return out;
  }

  /**
   * Up to `max` bytes off the front, only as many as the first piece holds: always a view, never a
   * copy (empty when nothing is held). For a reader that passes a long payload on as it comes.
   */
  takeUpTo(max: number): Buffer {
    const first = this.parts[0];
    if (!first || max <= 0) return Buffer.alloc(0);
    const out = first.length <= max ? first : first.subarray(0, max);
    this.drop(out.length);
    return out;
  }

  /** The next `n` bytes, left held; `n` must not be more than `size`. */
  peek(n: number): Buffer {
    if (n > this.held) throw new RangeError(`${n} bytes asked of ${this.held} held`);
    const first = this.parts[0];
    if (!first) return Buffer.alloc(0);
    if (first.length >= n) return first.subarray(0, n);
    const out = Buffer.allocUnsafe(n);
    let at = 0;
    for (const p of this.parts) {
      if (at === n) break;
      const k = Math.min(p.length, n - at);
      p.copy(out, at, 0, k);
      at += k;
    }
    return out;
  }

  /** Forgets everything held. */
  clear(): void {
    this.parts = [];
    this.held = 0;
  }

  private drop(n: number): void {
    this.held -= n;
    while (n > 0) {
      const p = this.parts[0]!;
      if (p.length <= n) {
        this.parts.shift();
        n -= p.length;
      } else {
        this.parts[0] = p.subarray(n);
        n = 0;
      }
    }
  }
}
