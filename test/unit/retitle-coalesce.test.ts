// window-retitled is coalesced per window (issue: a spinner in the title made 599 of 677 events):
// at most one event per interval per window, always the latest title, the final one never lost,
// a title equal to the last one sent sends nothing, and the window's own title stays current.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Bus, type BusEvent } from '../../core/bus.js';
import { Model, RETITLE_INTERVAL_MS, type PaneStarter } from '../../core/model/model.js';
import { nullLogger } from '../../core/log.js';
import { waitFor } from '../helpers/wait.js';

const starter: PaneStarter = {
  prepare: (_s, spec) => ({ name: spec.name ?? 'w', argv: ['x'], startCwd: '/', cols: 80, rows: 24, scrollback: 10, isShell: false, env: {} }),
  start: () => {},
};

function setup(interval: number) {
  const bus = new Bus();
  const model = new Model(bus, nullLogger, starter, '/');
  model.retitleIntervalMs = interval;
  const s = model.createSession({ name: 'sess' });
  const a = model.createWindow(s, { name: 'a' });
  const b = model.createWindow(s, { name: 'b' });
  const seen: Array<BusEvent<'window-retitled'>> = [];
  bus.on('window-retitled', (e) => seen.push(e));
  return { model, a, b, seen, s };
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

test('the shipped interval keeps a 10-a-second spinner to at most 2 events a second', () => {
  assert.ok(RETITLE_INTERVAL_MS >= 334 && RETITLE_INTERVAL_MS <= 1000, String(RETITLE_INTERVAL_MS));
});

test('a burst of spinner frames: the first goes out at once, the last after the interval, nothing between', async () => {
  const { model, a, seen } = setup(200);
  for (let i = 0; i < 50; i++) model.windowRetitled(a, `${FRAMES[i % 10]} project`);
  assert.equal(seen.map((e) => e.title), [`${FRAMES[0]} project`], 'the first title at once');
  await waitFor(() => seen.length >= 2, { timeout: 10_000, what: 'the trailing retitle' });
  assert.equal(seen.map((e) => e.title), [`${FRAMES[0]} project`, `${FRAMES[9]} project`], 'then only the latest');
  const gap = seen[1]!.ts - seen[0]!.ts;
  assert.ok(gap >= 190, `the trailing event waited the interval: ${gap} ms`);
  // The final title is never lost: the spinner stops on the rest title, which goes out.
  model.windowRetitled(a, 'project');
  await waitFor(() => seen.at(-1)?.title === 'project', { timeout: 10_000, what: 'the rest title' });
  assert.is(seen.length, 3);
});

test('a title equal to the last one sent sends nothing; each window has its own interval', async () => {
  const { model, a, b, seen } = setup(200);
  model.windowRetitled(a, 'x');
  model.windowRetitled(b, 'y');
  assert.equal(seen.map((e) => `${e.window_id === a.id ? 'a' : 'b'}:${e.title}`), ['a:x', 'b:y'], 'one window does not hold back another');
  model.windowRetitled(a, 'z');
  model.windowRetitled(a, 'x');
  await waitFor(() => !(model as unknown as { retitles: Map<string, { timer: unknown }> }).retitles.get(a.id)?.timer, { timeout: 10_000, what: 'the interval to pass' });
  assert.is(seen.length, 2, 'the frames came back to the title already sent: no event');
  model.windowRetitled(a, 'x');
  assert.is(seen.length, 2, 'the same title again: no event');
});

test('a closed window sends no trailing retitle', async () => {
  const { model, a, b, seen, s } = setup(150);
  model.windowRetitled(a, '1');
  model.windowRetitled(a, '2');
  model.closeWindow(a);
  model.windowRetitled(b, 'b1');
  model.windowRetitled(b, 'b2');
  await waitFor(() => seen.some((e) => e.title === 'b2'), { timeout: 10_000, what: "b's trailing retitle" });
  assert.equal(seen.map((e) => e.title), ['1', 'b1', 'b2']);
  assert.ok(s);
});

test.run();
