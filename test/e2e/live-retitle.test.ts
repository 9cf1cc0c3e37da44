// A spinner in the title does not flood subscribers (issue: 599 of 677 events were
// window-retitled: Codex retitles about ten times a second and every frame became an event).
// The real pinned Codex works on a turn whose answer the fake model holds until the window's own
// title has turned through 8 spinner frames (read from list-windows, which reads the window:
// what the detector reads stays current); the window-retitled events a subscriber gets over the
// turn stay within 3 per second of work, and the last one carries the title the window ends on.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { waitFor } from '../helpers/wait.js';
import { waitForQuiet } from '../helpers/agents.js';
import { RealAgent } from '../helpers/real-agent.js';

const t = suite('live retitle: codex');
const a = new RealAgent('codex', { name: 'codex', subscribe: ['agent-state', 'window-retitled'], fake: { command: null, finalText: 'Nothing to do here.' } });
const it = a.gate(t);
t.before(() => a.start());
t.after(() => a.stop());

async function title(): Promise<string> {
  const r = await a.d.call<{ windows: Array<{ id: string; title?: string }> }>('list-windows', {});
  return r.windows.find((w) => w.id === a.window)?.title ?? '';
}

const retitles = (from: number) => a.events.slice(from).filter((e) => e.type === 'window-retitled');

it('a turn of spinner frames: the window title moves on, the events stay within 3 a second', async () => {
  await a.waitRow('idle', { what: 'codex at rest at its prompt' });
  await waitForQuiet(a.d, a.window, 2000, 60_000);
  const from = a.events.length;
  a.fake.hold();
  const t0 = Date.now();
  await a.d.call('send-text', { window: a.window, text: 'Please say something', submit: true });
  await a.fake.waitHeld(1, 60_000);
  // The work goes on until the window's own title has shown 8 different spinner frames.
  const titles = new Set<string>();
  await waitFor(
    async () => {
      titles.add(await title());
      return titles.size >= 8;
    },
    { timeout: 60_000, interval: 40, what: '8 titles on the window while codex works' },
  ).catch((e: Error) => {
    throw new Error(`${e.message}; seen: ${[...titles].join(' | ')}`);
  });
  a.fake.release();
  await a.waitRow('idle', { timeout: 60_000, what: 'codex at rest after the turn' });
  const seconds = (Date.now() - t0) / 1000;
  const seen = retitles(from);
  const bound = Math.ceil(3 * seconds) + 2;
  console.log(`[tuios-test-note] live retitle: ${seen.length} window-retitled events over ${seconds.toFixed(1)} s of codex work; the window showed ${titles.size} titles`);
  assert.ok(seen.length <= bound, `${seen.length} window-retitled events over ${seconds.toFixed(1)} s of work (bound ${bound}); the window showed ${titles.size} titles`);
  assert.ok(seen.length >= 2, `the retitles still go out: ${seen.length}`);
  // The final title is never lost: once the title is still, the last event says it.
  const last = await waitFor(
    async () => {
      const now = await title();
      const ev = retitles(from).at(-1);
      return ev && ev.title === now ? now : null;
    },
    { timeout: 10_000, what: 'the last window-retitled event to carry the window\'s title' },
  );
  assert.type(last, 'string');
});

t.run();
