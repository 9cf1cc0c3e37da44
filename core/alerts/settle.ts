// The settle window (spec: Alerts): an alert waits this long, and a state that flips back in the
// meantime (the pane leaves it, the item closes) raises nothing. One alert waits per key (a pane
// or an item); a newer one for the same key replaces it. Bounded: past ALERT_SETTLING_MAX the
// oldest goes out at once rather than being dropped.
import { ALERT_SETTLING_MAX } from '../limits.js';

export class Settler {
  private readonly waiting = new Map<string, { timer: NodeJS.Timeout; fire: () => void }>();

  /** Fires `fire` after `ms` unless cancel(key) comes first; 0 fires now. */
  hold(key: string, ms: number, fire: () => void): void {
    this.cancel(key);
    if (ms <= 0) return fire();
    if (this.waiting.size >= ALERT_SETTLING_MAX) {
      const [oldest] = this.waiting.keys();
      this.release(oldest!);
    }
    const timer = setTimeout(() => this.release(key), ms);
    timer.unref();
    this.waiting.set(key, { timer, fire });
  }

  /** The state flipped back: what waits for `key` raises nothing. */
  cancel(key: string): boolean {
    const w = this.waiting.get(key);
    if (!w) return false;
    clearTimeout(w.timer);
    this.waiting.delete(key);
    return true;
  }

  get size(): number {
    return this.waiting.size;
  }

  private release(key: string): void {
    const w = this.waiting.get(key);
    if (!w) return;
    clearTimeout(w.timer);
    this.waiting.delete(key);
    w.fire();
  }

  dispose(): void {
    for (const w of this.waiting.values()) clearTimeout(w.timer);
    this.waiting.clear();
  }
}
