// The after-agent-state hook with real processes: its environment, its time bound (the whole
// process group is killed), its concurrency bound, and a burst that never blocks the publisher.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bus } from '../../core/bus.js';
import { Model, type PaneStarter } from '../../core/model/model.js';
import { AfterStateHook } from '../../core/integrations/hook-runner.js';
import { AFTER_STATE_HOOK_CONCURRENCY as HOOK_CONCURRENCY, AFTER_STATE_HOOK_QUEUE_MAX as HOOK_QUEUE_MAX } from '../../core/limits.js';
import type { AgentStateEvent } from '../../core/agent-state/store.js';
import { nullLogger, type Logger } from '../../core/log.js';
import { waitFor } from '../helpers/wait.js';

const starter: PaneStarter = {
  prepare: (_s, spec) => ({ name: spec.name ?? 'w', argv: ['x'], startCwd: '/', cols: 80, rows: 24, scrollback: 10, isShell: false, env: {} }),
  start: () => {},
};

function setup(command: string, timeoutMs: number) {
  const bus = new Bus();
  const model = new Model(bus, nullLogger, starter, '/');
  const s = model.createSession({ name: 'sess' });
  const w = model.createWindow(s, { name: 'win' });
  const warns: string[] = [];
  const log: Logger = { ...nullLogger, warn: (m) => warns.push(m), child: () => log };
  const hook = new AfterStateHook(bus, model, log, () => ({ command, timeoutMs }), { PATH: process.env.PATH });
  const publish = (state: AgentStateEvent['state'], message = '') =>
    bus.publish('agent-state', { window_id: w.id, session_id: s.id, name: w.name, harness: 'claude-code', state, old_state: 'working', kind: '', message, source: 'report', completion_seq: 3, needs_you: false });
  return { hook, publish, warns, w, s };
}

function lines(f: string): string[] {
  return existsSync(f) ? readFileSync(f, 'utf8').split('\n').filter(Boolean) : [];
}

/**
 * A shell line that holds a run until the test opens `DIR/gate`, which it does once every publish
 * has returned: a run gets past it only if publishing did not wait for it. Were publishing to wait,
 * the gate would never open; so that this fails instead of hanging, a run held for 600 polls (30 s
 * and more) writes its message to `DIR/gave-up` and opens the gate itself.
 */
function heldUntilPublished(dir: string): string {
  return `i=0; while [ ! -e ${dir}/gate ]; do i=$((i+1)); if [ $i -ge 600 ]; then echo "$TUIOS_MESSAGE" >> ${dir}/gave-up; : > ${dir}/gate; fi; sleep 0.05; done`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('the environment names the window, session, harness, both states and the message', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-hook-'));
  const { hook, publish, w, s } = setup(`env | grep ^TUIOS_ | sort > ${dir}/env`, 10_000);
  publish('idle', 'all done; $(not run)');
  await waitFor(() => lines(join(dir, 'env')).some((l) => l.startsWith('TUIOS_WINDOW_ID')), { what: 'the hook output' });
  const env = Object.fromEntries(lines(join(dir, 'env')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  assert.equal(
    [env.TUIOS_WINDOW_ID, env.TUIOS_WINDOW_NAME, env.TUIOS_SESSION, env.TUIOS_SESSION_ID, env.TUIOS_HARNESS, env.TUIOS_OLD_STATE, env.TUIOS_NEW_STATE, env.TUIOS_MESSAGE, env.TUIOS_COMPLETION_SEQ],
    [w.id, 'win', 'sess', s.id, 'claude-code', 'working', 'idle', 'all done; $(not run)', '3'],
  );
  hook.dispose();
});

test('bounded in time and concurrency: at most 4 at once, each killed with its children at the timeout', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-hook-'));
  const started = join(dir, 'started');
  // Each run notes when it started, waits until every publish has returned, records its shell's
  // pid, its sleep child's pid and that time, then hangs.
  const { hook, publish, warns } = setup(`t=$(date +%s%N); ${heldUntilPublished(dir)}; sleep 600 & echo "$$ $! $t" >> ${started}; wait`, 1500);
  for (let i = 0; i < HOOK_CONCURRENCY + 2; i++) publish('idle', `m${i}`);
  writeFileSync(join(dir, 'gate'), '');
  await waitFor(() => lines(started).length >= HOOK_CONCURRENCY || lines(join(dir, 'gave-up')).length > 0, { what: 'the first four runs past the gate (none gets there if publishing waits for them)' });
  assert.equal(lines(join(dir, 'gave-up')), [], 'publishing does not wait for the hooks: they ran on once it returned');
  const first = lines(started).slice(0, HOOK_CONCURRENCY).map((l) => l.split(' ').map(Number));
  await waitFor(() => lines(started).length === HOOK_CONCURRENCY + 2, { timeout: 30_000, what: 'the two queued runs to start once slots free' });
  const fifth = Number(lines(started)[HOOK_CONCURRENCY]!.split(' ')[2]) / 1e6;
  const firstStart = Math.min(...first.map((x) => x[2]! / 1e6));
  assert.ok(fifth - firstStart >= 1400, `the fifth run waited for a slot (${Math.round(fifth - firstStart)} ms)`);
  // The timed-out runs are gone, their children with them (the whole group is killed).
  await waitFor(() => first.every(([sh, child]) => !alive(sh!) && !alive(child!)), { timeout: 20_000, what: 'the timed-out hooks and their children killed' });
  assert.ok(warns.some((m) => /ran too long and was killed/.test(m)));
  await waitFor(() => lines(started).slice(HOOK_CONCURRENCY).every((l) => !alive(Number(l.split(' ')[1]))), { timeout: 20_000, what: 'the last runs killed too' });
  hook.dispose();
});

test('a burst past the queue drops the oldest and says so, and never blocks the publisher', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-hook-'));
  // Each run is held until the whole burst is published (its timeout, 60 s, is past the give-up).
  const { hook, publish, warns } = setup(`echo "$TUIOS_MESSAGE" >> ${dir}/ran; ${heldUntilPublished(dir)}; echo "$TUIOS_MESSAGE" >> ${dir}/passed`, 60_000);
  const n = HOOK_CONCURRENCY + HOOK_QUEUE_MAX + 10;
  for (let i = 0; i < n; i++) publish('idle', `m${i}`);
  writeFileSync(join(dir, 'gate'), '');
  await waitFor(() => lines(join(dir, 'passed')).length === HOOK_CONCURRENCY + HOOK_QUEUE_MAX || lines(join(dir, 'gave-up')).length > 0, { timeout: 60_000, what: 'every kept run' });
  assert.equal(lines(join(dir, 'gave-up')), [], 'the burst is queued, not run in line: no run waited on the publisher');
  assert.ok(warns.some((m) => /queue full/.test(m)));
  const ran = new Set(lines(join(dir, 'ran')));
  assert.ok(ran.has(`m${n - 1}`), 'the newest is kept');
  assert.not.ok(ran.has(`m${HOOK_CONCURRENCY}`), 'the oldest queued one was dropped');
  hook.dispose();
});

test.run();
