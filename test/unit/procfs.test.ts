// readStat against the kernel's own file: every field it returns equals the field read by
// splitting the text, for this process, its parent, init, and a process whose name holds
// spaces and parentheses (comm runs to the last ')').
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readStat } from '../../core/pty/procfs.js';
import { waitFor } from '../helpers/wait.js';

/** The fields by splitting the file, as procfs(5) numbers them. */
function reference(pid: number) {
  const raw = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const close = raw.lastIndexOf(')');
  const f = raw.slice(close + 2).split(' ');
  const num = (field: number) => Number(f[field - 3]);
  return { pid, comm: raw.slice(raw.indexOf('(') + 1, close), state: f[0], ppid: num(4), pgrp: num(5), session: num(6), ttyNr: num(7), tpgid: num(8), startTime: num(22) };
}

test('every field equals the split file, for this process, its parent and init', () => {
  for (const pid of [process.pid, process.ppid, 1]) assert.equal(readStat(pid), reference(pid), `pid ${pid}`);
  // A process with no terminal reports tpgid -1, and it reads as -1.
  const tp = reference(1).tpgid;
  assert.is(readStat(1)!.tpgid, tp);
});

test('a name with spaces and parentheses is read whole, and the fields after it stay right', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-procfs-'));
  try {
    const odd = join(dir, 'a b) (c');
    symlinkSync('/bin/sleep', odd);
    const child = spawn(odd, ['30'], { stdio: 'ignore' });
    try {
      await waitFor(() => readStat(child.pid!)?.comm === 'a b) (c', { timeout: 10_000, what: 'the child to exec' });
      const st = readStat(child.pid!)!;
      assert.equal(st, reference(child.pid!));
      assert.is(st.ppid, process.pid);
      assert.ok(st.startTime > 0);
    } finally {
      child.kill('SIGKILL');
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a process that is gone reads as null', () => {
  assert.is(readStat(2 ** 22 + 12345), null);
});

test.run();
