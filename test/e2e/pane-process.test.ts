// A pane's process: its terminal read on the main thread while quiet and in the PTY reader thread
// under a flood, back on the main thread once quiet; every byte arrives, in order, across the
// moves and before the exit; flow control pauses the program; a background process holding the
// terminal does not hold the exit; the terminal tells its foreground group; and losing the thread
// falls back to reading on the main thread.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PaneProcess, type ExitStatus } from '../../core/pty/pane-process.js';
import { stopReaderThreadForTest } from '../../core/pty/pty-reader.js';
import { waitFor } from '../helpers/wait.js';
import { readStat } from '../../core/pty/procfs.js';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8', HOME: process.env.HOME ?? '/tmp' };

function spawn(script: string): { p: PaneProcess; out: Buffer[]; exit: Promise<ExitStatus> } {
  const p = PaneProcess.spawn({ argv: ['sh', '-c', script], cwd: '/tmp', cols: 80, rows: 24, env, term: 'xterm-256color' });
  const out: Buffer[] = [];
  p.onData((d) => out.push(d));
  const exit = new Promise<ExitStatus>((resolve) => p.onExit(resolve));
  return { p, out, exit };
}

const text = (out: Buffer[]) => Buffer.concat(out).toString('latin1');

test('a flood is read in the thread, and all of a large output arrives in order before the exit', async () => {
  // 4 MB of numbered lines, then the program exits at once: nothing may be cut at the end.
  const { p, out, exit } = spawn("seq -f '%07g ..................................................' 1 70000; printf 'LAST\\n'");
  const s = await exit;
  assert.ok(p.threadSpells >= 1, 'the flood moved reads to the thread');
  assert.equal(s, { code: 0, signal: null });
  const t = text(out).replace(/\r\n/g, '\n');
  const nums = [...t.matchAll(/^(\d{7}) \.+$/gm)].map((m) => Number(m[1]));
  assert.is(nums.length, 70000);
  for (let i = 0; i < nums.length; i++) if (nums[i] !== i + 1) assert.unreachable(`line ${i + 1} reads ${nums[i]}`);
  assert.ok(t.endsWith('LAST\n'), 'the last line came before the exit');
});

for (const where of ['the main thread', 'the thread'] as const) {
  test(`paused while ${where} reads, the program blocks in write; resumed, its output is whole`, async () => {
    // Paused before the first read, the main thread keeps reading (no flood comes); paused once the
    // flood is in the thread, the thread stops reading.
    const { p, out, exit } = spawn("head -c 6000000 /dev/zero | tr '\\0' 'x' | fold -w 60; echo END");
    if (where === 'the thread') await waitFor(() => p.readsInThread, { timeout: 10_000, what: 'the reader thread' });
    p.pause();
    assert.is(p.readsInThread, where === 'the thread');
    // Paused, bytes stop growing while the program still runs (blocked in write).
    let last = -1;
    await waitFor(
      () => {
        const n = text(out).length;
        const still = n === last;
        last = n;
        return still;
      },
      { timeout: 30_000, interval: 300, what: 'output to stop while paused' },
    );
    assert.ok(last < 6000000, `only ${last} bytes came while paused`);
    assert.is(p.exitStatus, null, 'the program is blocked, not done');
    p.resume();
    await exit;
    const t = text(out).replace(/\r\n/g, '\n');
    const body = t.slice(0, t.lastIndexOf('END'));
    assert.is(body.replace(/\n/g, ''), 'x'.repeat(6000000));
    assert.ok(t.endsWith('END\n'));
  });
}

test('a quiet pane reads on the main thread, a flood in the thread, quiet again on the main thread; every byte in order', async () => {
  const { p, out, exit } = spawn("echo ready; read a; seq -f '%07g' 1 200000; echo done1; read b; echo \"got-$b\"; read c; echo \"also-$c\"");
  try {
    await waitFor(() => /ready/.test(text(out)), { timeout: 10_000, what: 'the first line' });
    assert.not.ok(p.readsInThread, 'a quiet pane is read on the main thread');
    p.write('go\r');
    await waitFor(() => /done1/.test(text(out)), { timeout: 30_000, what: 'the flood' });
    assert.is(p.threadSpells, 1, 'the flood moved reads to the thread');
    await waitFor(() => !p.readsInThread, { timeout: 10_000, what: 'reads back on the main thread after a quiet second' });
    p.write('x\r');
    await waitFor(() => /got-x/.test(text(out)), { timeout: 10_000, what: 'the echo after the move back' });
    assert.not.ok(p.readsInThread);
    p.write('y\r');
    assert.equal(await exit, { code: 0, signal: null });
    const t = text(out).replace(/\r\n/g, '\n');
    const nums = [...t.matchAll(/^(\d{7})$/gm)].map((m) => Number(m[1]));
    assert.is(nums.length, 200000);
    for (let i = 0; i < nums.length; i++) if (nums[i] !== i + 1) assert.unreachable(`line ${i + 1} reads ${nums[i]}`);
    assert.match(t, /done1\n(go\n)?[\s\S]*got-x\n[\s\S]*also-y\n$/);
  } finally {
    p.kill('SIGKILL');
  }
});

test('input: keys written at once, keys the full terminal refused and a large paste reach the program in the order written', async () => {
  // Typed keys are written to the terminal in the call (writeNow); what it does not take waits in
  // node-pty's queue, and nothing written after may pass it. The program reads nothing for a while,
  // so the terminal's input buffer (4 KB) fills under the single keys; then a paste far larger than
  // it, then single keys again.
  const dir = mkdtempSync(join(tmpdir(), 'tuios-input-'));
  const file = join(dir, 'got');
  const keys = (n: number, from: number) => Array.from({ length: n }, (_, i) => String.fromCharCode(0x61 + ((from + i) % 26)));
  const first = keys(6000, 0);
  const paste = 'P'.repeat(200_000) + '|';
  const last = keys(300, 7);
  const total = first.length + paste.length + last.length;
  const { p, exit } = spawn(`stty raw -echo; touch ${dir}/ready; sleep 1; head -c ${total} > ${file}`);
  try {
    await waitFor(() => existsSync(join(dir, 'ready')), { timeout: 10_000, what: 'the program to set its terminal raw' });
    for (const k of first) p.write(k);
    p.write(paste);
    for (const k of last) p.write(k);
    assert.equal(await exit, { code: 0, signal: null });
    const got = readFileSync(file, 'latin1');
    const want = first.join('') + paste + last.join('');
    assert.is(got.length, want.length);
    if (got !== want) {
      let i = 0;
      while (got[i] === want[i]) i++;
      assert.unreachable(`byte ${i} is "${got.slice(i, i + 20)}", "${want.slice(i, i + 20)}" was written there`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a background process that keeps the terminal open does not hold the exit', async () => {
  const { p, out, exit } = spawn('sleep 30 & echo started; exit 3');
  const s = await Promise.race([exit, new Promise<null>((r) => setTimeout(() => r(null), 20_000))]);
  assert.equal(s, { code: 3, signal: null });
  assert.match(text(out), /started/);
  p.kill('SIGKILL');
});

test('the terminal tells its foreground group as /proc does, and follows a foreground job', async () => {
  const p = PaneProcess.spawn({ argv: ['sh', '-i'], cwd: '/tmp', cols: 80, rows: 24, env: { ...env, PS1: '$ ' }, term: 'xterm-256color' });
  p.onData(() => {});
  try {
    // At the prompt the shell's own group is in the foreground.
    await waitFor(() => p.foregroundGroup() === p.pid && readStat(p.pid)?.tpgid === p.pid, { timeout: 10_000, what: 'the shell in the foreground' });
    p.write('sleep 30\r');
    let job = 0;
    await waitFor(() => {
      const g = p.foregroundGroup();
      if (g === null || g === p.pid || readStat(p.pid)?.tpgid !== g) return false;
      job = g;
      return readStat(g)?.comm === 'sleep';
    }, { timeout: 10_000, what: 'the job in the foreground' });
    assert.ok(job > 0);
  } finally {
    p.kill('SIGKILL');
  }
});

test('read on the main thread, a program that writes 58 KB and exits has all of it told before its exit', async () => {
  // Under the flood mark, so node-pty reads it here: its stream ends when the terminal hangs up,
  // with what the kernel still held unread (8 KB of 66 were lost before the drain at exit).
  for (let i = 0; i < 3; i++) {
    const { p, out, exit } = spawn("seq 1 10000; printf 'LAST\\n'");
    await exit;
    assert.is(p.threadSpells, 0, 'read on the main thread');
    const t = text(out);
    assert.match(t, /9999\r\n10000\r\nLAST/);
  }
});

test('when the reader thread is lost, the pane goes on reading on the main thread', async () => {
  // A flood first (past PTY_THREAD_FLOOD_BYTES), so the thread reads; then a line, and input.
  const { p, out, exit } = spawn("seq 1 40000; echo before; read line; echo \"after-$line\"; read line2");
  try {
    await waitFor(() => /before/.test(text(out)), { timeout: 10_000, what: 'the first line' });
    assert.is(p.threadSpells, 1, 'the flood was read in the thread');
    stopReaderThreadForTest();
    // The pane goes back to main-thread reads once the thread has exited, not before: until then
    // the thread may still read, and a byte read there after the switch would be lost.
    await waitFor(() => !p.readsInThread, { timeout: 10_000, what: 'reads to come back to the main thread' });
    p.write('one\r');
    await waitFor(() => /after-one/.test(text(out)), { timeout: 10_000, what: 'output after the thread was lost' });
    // A new pane after the loss reads on the main thread from the start.
    // ~130 KB: read by node-pty on this thread, whose stream ends at the hang-up with the last
    // few KB unread; the pane reads them before it tells the exit.
    const q = spawn('seq 1 20000; echo fresh');
    await q.exit;
    assert.is(q.p.threadSpells, 0, 'a flood stays on the main thread once the thread is lost');
    assert.match(text(q.out), /fresh/);
    p.write('two\r');
    // Input still reaches the program, and its exit is told, on main-thread reads.
    assert.equal(await exit, { code: 0, signal: null });
  } finally {
    p.kill('SIGKILL'); // a failed step must not leave the program holding the test open
  }
});

test.run();
