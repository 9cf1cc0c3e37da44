// core/daemon/lock.ts: one owner per socket, and a dead owner holds nothing, even as a zombie.
// Both forms are tried here: the abstract name (Linux) and the lock socket file the other
// platforms use. The holder is a process under a parent that never waits, killed with SIGKILL.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { acquireLock } from '../../core/daemon/lock.js';
import { spawnUnreaped, procState, type Unreaped } from '../helpers/unreaped.js';
import { waitFor } from '../helpers/wait.js';

const LOCK_TS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'core', 'daemon', 'lock.ts');
const dir = mkdtempSync(join(tmpdir(), 'tuios-lock-'));
const parents: Unreaped[] = [];
test.after(() => {
  for (const p of parents) p.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** A process that takes the lock, says so in a file, and holds it until killed. */
async function holder(socket: string, abstract: boolean): Promise<number> {
  const ready = `${socket}.held`;
  const code = `const { acquireLock } = await import(${JSON.stringify(LOCK_TS)}); const l = await acquireLock(${JSON.stringify(socket)}, { abstract: ${abstract} }); if (!l.ok) process.exit(3); (await import('node:fs')).writeFileSync(${JSON.stringify(ready)}, 'x'); setInterval(() => {}, 1000);`;
  const u = await spawnUnreaped([process.execPath, '--import', 'tsx', '--input-type=module', '-e', code], { env: { ...process.env } as Record<string, string>, cwd: process.cwd(), logFile: join(dir, 'holder.log') });
  parents.push(u);
  await waitFor(() => existsSync(ready), { timeout: 20_000, what: 'the holder to take the lock' });
  return u.pid;
}

for (const abstract of [true, false]) {
  const form = abstract ? 'abstract name' : 'lock socket file';

  test(`${form}: one owner at a time; released, it can be taken again`, async () => {
    const socket = join(dir, `a-${abstract}.sock`);
    const a = await acquireLock(socket, { abstract });
    assert.ok(a.ok);
    const b = await acquireLock(socket, { abstract, waitMs: 0 });
    assert.is(b.ok, false);
    if (a.ok) await a.release();
    const c = await acquireLock(socket, { abstract });
    assert.ok(c.ok);
    if (c.ok) await c.release();
  });

  test(`${form}: a live holder in another process keeps it; killed with SIGKILL and left a zombie, it holds nothing`, async () => {
    const socket = join(dir, `z-${abstract}.sock`);
    const pid = await holder(socket, abstract);
    const held = await acquireLock(socket, { abstract, waitMs: 0 });
    assert.is(held.ok, false, 'a live holder keeps the lock');
    process.kill(pid, 'SIGKILL');
    await waitFor(() => procState(pid) === 'Z', { timeout: 10_000, what: 'the holder to be a zombie' });
    // kill(pid, 0) still succeeds on the zombie: what the old pid lock was fooled by.
    assert.not.throws(() => process.kill(pid, 0));
    // The leader shows Z while its other threads still exit (tens of ms); the lock waits for that.
    const taken = await acquireLock(socket, { abstract });
    assert.ok(taken.ok, 'the lock of a zombie is free');
    if (taken.ok) await taken.release();
  });
}

test('lock socket file: a regular file left where the lock goes (an old pid lock) is taken over', async () => {
  const socket = join(dir, 'old.sock');
  writeFileSync(`${socket}.lock`, '12345');
  const l = await acquireLock(socket, { abstract: false });
  assert.ok(l.ok);
  if (l.ok) await l.release();
});

test.run();
