// The agents view as the person's terminal gets it: `tuios attach` on a PTY this process owns,
// ctrl+b i typed into it, and the time until the view's first frame has arrived. The frame is
// known by its header and its footer; its header's counts say how many agents it lists.
import { BIN, type TestDaemon } from './daemon.js';
import { PtyClient, stripEscapes } from './pty-ssh.js';
import { waitFor } from './wait.js';

/** `tuios attach -s SESSION` on a PTY of cols x rows, waited for until it draws. */
export async function attachPty(d: TestDaemon, session: string, cols = 160, rows = 48): Promise<PtyClient> {
  const c = new PtyClient(process.execPath, [BIN, 'attach', '-s', session], d.env, cols, rows);
  await c.waitBytes((b) => b.includes('C-b ? help'), 'the first frame of the attached client', 0, 60_000);
  return c;
}

/** The agent count in the agents view's header (need you + working + to review + idle), or null. */
export function headerTotal(text: string): number | null {
  const m = /Agents\D*?(\d+) need you\D*?(\d+) working\D*?(\d+) to review\D*?(\d+) idle/.exec(text);
  return m ? Number(m[1]) + Number(m[2]) + Number(m[3]) + Number(m[4]) : null;
}

/**
 * Opens the agents view and returns the ms from the keys to the arrival of its first frame, then
 * checks the view lists `total` agents and closes it. A frame is drawn top to bottom and only its
 * changed cells are sent (spaces are often cursor moves), so the frame has arrived when the header's
 * `Agents` and then the footer's `esc close` have, whatever lies between.
 */
export async function timeAgentsView(c: PtyClient, total: number, timeout = 30_000): Promise<number> {
  const mark = c.mark();
  const drawn = (b: string) => /Agents[\s\S]*esc\s*close/.test(stripEscapes(b));
  const arrived = c.arrival(drawn, mark, timeout);
  const t0 = Date.now();
  c.write('\x02i');
  const ms = (await arrived) - t0;
  await waitFor(() => headerTotal(c.screen()) === total, { timeout, what: `the agents view listing ${total} agents` }).catch((e: Error) => {
    throw new Error(`${e.message}\n--- screen ---\n${c.screen()}`);
  });
  c.write('q');
  await waitFor(() => headerTotal(c.screen()) === null, { timeout, what: 'the agents view to close' });
  return ms;
}
