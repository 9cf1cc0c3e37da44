// Standard input for the commands a harness runs (agent-hook, agent-statusline): read to its end
// asynchronously, so a writer that leaves the pipe open cannot hold the command past its deadline
// (a blocking read would stop its timer too), and kept only up to a cap.
import { read } from 'node:fs';

/**
 * Stdin as text, or null once it passed `max` bytes. Without `pass`, reading stops at the cap.
 * With it, every byte still goes to `pass` (the next read waits until it has taken the last, so
 * nothing piles up here) and reading goes on to the end.
 */
export function readStdinCapped(max: number, pass?: (b: Buffer) => Promise<void>): Promise<string | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const next = () =>
      read(0, Buffer.alloc(64 * 1024), 0, 64 * 1024, null, (e, n, buf) => {
        if (e && e.code === 'EAGAIN') return void setTimeout(next, 5);
        if (e || n <= 0) return resolve(total > max ? null : Buffer.concat(chunks).toString('utf8'));
        const got = buf.subarray(0, n);
        total += n;
        if (total <= max) chunks.push(got);
        else if (!pass) return resolve(null);
        else chunks.length = 0;
        if (pass) void pass(got).then(next);
        else next();
      });
    next();
  });
}
