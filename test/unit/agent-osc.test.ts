// What a pane's own escape sequences say: OSC 7501 program status, OSC 9;4 progress and the
// OSC 9 / 777 / 99 notifications, read by the emulator and capped before they reach an event.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Emulator } from '../../core/screen/emulator.js';
import type { Notification, ProgressReport } from '../../core/screen/osc-reports.js';
import { parseProgramStatus, formatProgramStatus } from '../../core/detection/program-status.js';
import { PROGRAM_MESSAGE_MAX } from '../../core/limits.js';
import { progressMeaning } from '../../core/detection/osc.js';
import { Bus, type BusEvent } from '../../core/bus.js';
import { Model, type PaneStarter } from '../../core/model/model.js';
import { AgentStore } from '../../core/agent-state/store.js';
import { nullLogger } from '../../core/log.js';

/** Feeds an emulator and collects what its OSC hooks hand on. */
async function feed(data: string): Promise<{ notes: Notification[]; progress: ProgressReport[]; status: string[]; e: Emulator }> {
  const e = new Emulator({ cols: 80, rows: 10, scrollback: 100 });
  const notes: Notification[] = [];
  const progress: ProgressReport[] = [];
  const status: string[] = [];
  e.setHooks({ onNotification: (n) => notes.push(n), onProgress: (p) => progress.push(p), onProgramStatus: (s) => status.push(s) });
  await new Promise<void>((r) => e.write(data, r));
  return { notes, progress, status, e };
}

test('OSC 7501: state, percent-encoded message, kind and progress', () => {
  assert.equal(parseProgramStatus('state=working;message=building%20docs%3B%20step%201;progress=40'), { state: 'working', message: 'building docs; step 1', kind: '', progress: 40 });
  assert.equal(parseProgramStatus('kind=auth;state=needs_input'), { state: 'needs_input', message: '', kind: 'auth', progress: null });
  assert.is((parseProgramStatus('state=working;progress=250') as { progress: number }).progress, 100, 'progress is clamped to 0-100');
  assert.is((parseProgramStatus('state=done;future=1') as { state: string }).state, 'done', 'unknown keys are ignored');
  const long = parseProgramStatus(`state=working;message=${'x'.repeat(500)}`) as { message: string };
  assert.is(long.message.length, PROGRAM_MESSAGE_MAX);
  assert.is((parseProgramStatus('state=working;message=a%1B%5B31mb') as { message: string }).message, 'a[31mb', 'control characters removed');
});

test('OSC 7501: what does not parse changes nothing', () => {
  for (const bad of ['', 'message=x', 'state=busy', 'state=unknown', 'state=needs_input;kind=maybe', 'state=working;progress=lots', 'state=working;message=%E0%A4%A', 'state']) {
    assert.ok('error' in parseProgramStatus(bad), bad);
  }
  assert.ok('error' in parseProgramStatus(`state=working;message=${'y'.repeat(5000)}`), 'a report longer than 4096 bytes');
});

test('tuios status writes what the reader reads back', () => {
  const seq = formatProgramStatus({ state: 'needs_input', message: 'insert the key; then press go', kind: 'question', progress: 40 });
  assert.ok(seq.startsWith('\x1b]7501;') && seq.endsWith('\x07'));
  assert.equal(parseProgramStatus(seq.slice(7, -1)), { state: 'needs_input', message: 'insert the key; then press go', kind: 'question', progress: 40 });
});

test('the emulator hands OSC 7501 on with either terminator', async () => {
  const { status } = await feed('\x1b]7501;state=working\x07text\x1b]7501;state=done\x1b\\');
  assert.equal(status, ['state=working', 'state=done']);
});

test('OSC 9;4 progress: kept on the emulator, and its published meaning', async () => {
  const { progress, notes, e } = await feed('\x1b]9;4;1;30\x07');
  assert.equal(progress, [{ state: 1, percent: 30 }]);
  assert.equal(notes, [], 'a progress report is not a notification');
  assert.equal(e.lastProgress, { state: 1, percent: 30 });
  assert.is(progressMeaning({ state: 1, percent: 30 }), 'working');
  assert.is(progressMeaning({ state: 3, percent: null }), 'working');
  assert.is(progressMeaning({ state: 0, percent: null }), 'idle');
  assert.is(progressMeaning({ state: 2, percent: null }), 'errored');
  assert.is(progressMeaning({ state: 4, percent: 10 }), 'needs_input');
});

test('notifications: OSC 9, OSC 777 notify, OSC 99 with chunks and base64', async () => {
  const { notes } = await feed(
    '\x1b]9;Build finished\x07' +
      '\x1b]777;notify;Codex;Approve: rm -rf; now\x07' +
      '\x1b]99;i=1:d=0;Hello \x1b\\\x1b]99;i=1:d=0:p=body;wor\x1b\\\x1b]99;i=1:p=body;ld\x1b\\' +
      `\x1b]99;e=1;${Buffer.from('Kitty title').toString('base64')}\x07`,
  );
  assert.equal(notes, [
    { osc: 9, title: '', body: 'Build finished' },
    { osc: 777, title: 'Codex', body: 'Approve: rm -rf; now' },
    { osc: 99, title: 'Hello ', body: 'world' },
    { osc: 99, title: 'Kitty title', body: '' },
  ]);
});

test('OSC 99 chunks are bounded: a notification past 4096 characters is dropped, not kept growing', async () => {
  const chunk = `\x1b]99;i=big:d=0;${'z'.repeat(1000)}\x07`;
  const { notes, e } = await feed(chunk.repeat(20) + '\x1b]99;i=big;end\x07');
  const pending = (e as unknown as { kittyPending: Map<string, { title: string }> }).kittyPending;
  assert.is(pending.size, 0);
  assert.ok(notes.every((n) => n.title.length <= 4096), 'nothing past the bound is kept');
});

test('a notification event carries title and body capped at 512 bytes, controls removed', () => {
  const bus = new Bus();
  const starter: PaneStarter = {
    prepare: (_s, spec) => ({ name: spec.name ?? 'w', argv: ['x'], startCwd: '/', cols: 80, rows: 24, scrollback: 10, isShell: false, env: {} }),
    start: () => {},
  };
  const model = new Model(bus, nullLogger, starter, '/');
  const store = new AgentStore({ bus, model, log: nullLogger, stallMs: 0 });
  const w = model.createWindow(model.createSession({ name: 's' }), { name: 'a' });
  const got: Array<BusEvent<'notification'>> = [];
  bus.on('notification', (e) => got.push(e));
  store.notification(w, { title: 'é'.repeat(400), body: 'a\x07b' + 'x'.repeat(1000), osc: 777 });
  assert.is(got.length, 1);
  assert.ok(Buffer.byteLength(got[0]!.title) <= 512 && Buffer.byteLength(got[0]!.title) >= 510);
  assert.is(got[0]!.title, 'é'.repeat(256), 'cut on a character boundary');
  assert.is(Buffer.byteLength(got[0]!.body), 512);
  assert.ok(got[0]!.body.startsWith('ab'));
  assert.is(got[0]!.osc, 777);
  assert.is(store.stateOf(w), 'none', 'a notification alone sets no state');
});

test.run();
