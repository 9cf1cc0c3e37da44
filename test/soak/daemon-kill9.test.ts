// issue 26: a daemon killed with kill -9 always comes back on the next `tuios` call, also when the
// killed process stays an unreaped zombie (its parent never calls wait(), as a container's first
// process may not). Ownership is a socket the kernel closes at death (core/daemon/lock.ts), not a
// pid that a zombie still answers kill(pid, 0) for.
//
// Three kinds of round, in turn: the daemon is the test's own child (reaped at once); a child of
// a parent that never waits (a zombie, checked in /proc); the daemon the last `tuios` call
// started on its own (left to this machine's first process, which may not reap). Each round
// kills the daemon with SIGKILL, and runs `tuios list-sessions`, which must
// answer from a new daemon. 20 rounds; `npm run soak` (TUIOS_SOAK=1) runs 50.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { spawnUnreaped, procState, type Unreaped } from '../helpers/unreaped.js';

const ROUNDS = process.env.TUIOS_SOAK === '1' ? 50 : 20;
type Kind = 'reaped' | 'zombie' | 'autostarted';
const KINDS: Kind[] = ['reaped', 'zombie', 'autostarted'];

let d: TestDaemon;
const parents: Unreaped[] = [];

test.before(async () => {
  d = await TestDaemon.start({ start: false });
});

test.after(async () => {
  await d.stop();
  for (const p of parents) p.dispose();
});

async function daemonPid(): Promise<number> {
  const info = await d.call<{ pid: number }>('server-info');
  return info.pid;
}

async function stopGracefully(): Promise<void> {
  if (!(await d.answers())) return;
  await d.call('kill-server').catch(() => undefined);
  await waitFor(async () => !(await d.answers()), { timeout: 20_000, what: 'the daemon to stop' });
}

/** Starts a daemon of the round's kind and returns its pid, and how to see it has died. */
async function startKind(kind: Kind): Promise<{ pid: number; dead: () => boolean }> {
  const argv = [process.execPath, BIN, 'daemon', '--foreground'];
  if (kind === 'autostarted') {
    // The daemon the last round's call brought back; the first round makes one the same way.
    if (!(await d.answers())) assert.is((await d.cli(['list-sessions'])).code, 0);
    const pid = await daemonPid();
    return { pid, dead: () => ['Z', null].includes(procState(pid)) };
  }
  await stopGracefully();
  if (kind === 'reaped') {
    const p = spawn(argv[0]!, argv.slice(1), { env: d.env, cwd: d.home, stdio: 'ignore' });
    let exited = false;
    p.once('exit', () => (exited = true));
    await waitFor(() => d.answers(), { timeout: 30_000, what: 'the reaped daemon to answer' });
    return { pid: p.pid!, dead: () => exited && procState(p.pid!) === null };
  }
  const u = await spawnUnreaped(argv, { env: d.env, cwd: d.home, logFile: join(d.dir, 'unreaped.log') });
  parents.push(u);
  await waitFor(() => d.answers(), { timeout: 30_000, what: 'the daemon under a non-waiting parent to answer' });
  return { pid: u.pid, dead: () => procState(u.pid) === 'Z' };
}

test(`kill -9 of the daemon ${ROUNDS} times: the next tuios call always brings one back`, async () => {
  const seen: Record<Kind, number> = { reaped: 0, zombie: 0, autostarted: 0 };
  let zombiesSeen = 0;
  const started = Date.now();
  for (let round = 0; round < ROUNDS; round++) {
    const kind = KINDS[round % KINDS.length]!;
    const { pid, dead } = await startKind(kind);
    assert.is(await daemonPid(), pid, `round ${round}: the daemon that answers is the one started`);
    process.kill(pid, 'SIGKILL');
    await waitFor(dead, { timeout: 10_000, what: `round ${round} (${kind}): daemon ${pid} to die` });
    if (procState(pid) === 'Z') zombiesSeen++;
    if (kind === 'zombie') assert.is(procState(pid), 'Z', `round ${round}: the killed daemon stays an unreaped zombie`);
    const r = await d.cli(['list-sessions']);
    assert.is(r.code, 0, `round ${round} (${kind}): tuios list-sessions after kill -9 of ${pid} failed: ${r.stderr}`);
    assert.not.match(r.stderr, /did not start/);
    const next = await daemonPid();
    assert.is.not(next, pid, `round ${round}: a new daemon answers`);
    seen[kind]++;
  }
  console.log(`[tuios-test-note] daemon-kill9: ${ROUNDS} kills (reaped ${seen.reaped}, under a non-waiting parent ${seen.zombie}, auto-started ${seen.autostarted}); ${zombiesSeen} left zombies; every next call answered; ${((Date.now() - started) / 1000).toFixed(1)} s`);
});

test.run();
