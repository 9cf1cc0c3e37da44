// Waiting on conditions, never on fixed sleeps: a loaded 2-core machine is slow, so deadlines are
// generous and the check runs until it holds.

export interface WaitOptions {
  timeout?: number;
  interval?: number;
  what?: string;
}

/** Polls `fn` until it returns a truthy value, and returns it; throws with `what` at the deadline. */
export async function waitFor<T>(fn: () => T | Promise<T>, opts: WaitOptions = {}): Promise<NonNullable<T>> {
  const timeout = opts.timeout ?? 20_000;
  const interval = opts.interval ?? 50;
  const deadline = Date.now() + timeout;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as NonNullable<T>;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      const why = last instanceof Error ? `; last error: ${last.message}` : '';
      throw new Error(`timed out after ${timeout} ms waiting for ${opts.what ?? 'a condition'}${why}`);
    }
    await new Promise((r) => setTimeout(r, interval));
  }
}
