// Windows as a user drives them: real PTYs, the built CLI, a daemon in temp folders.
import { test } from 'uvu';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';

let d: TestDaemon;

test.before(async () => {
  d = await TestDaemon.start();
  await d.ok(['new-session', 'work']);
});

test.after(async () => {
  await d.stop();
});

test('new-window runs a command and capture-pane shows its output', async () => {
  await d.ok(['new-window', '-s', 'work', 'calc', 'sh', '-c', 'echo result-$((6*7)); sleep 60']);
  const screen = await d.waitScreen('calc', /result-42/);
  assert.match(screen, /result-42/);
  const plain = await d.ok(['capture-pane', '-w', 'calc']);
  assert.match(plain, /^result-42$/m);
});

test('tuios new-session starts in the folder it is run from; -c names another (the CLI adds the caller\'s folder, from the verb record)', async () => {
  const here = join(d.home, 'from-here');
  const there = join(d.home, 'over-there');
  mkdirSync(here, { recursive: true });
  mkdirSync(there, { recursive: true });
  const a = await d.cli(['new-session', 'here-one', '--json'], { cwd: here });
  assert.is(a.code, 0, a.stderr);
  const b = await d.cli(['new-session', 'there-one', '-c', 'over-there', '--json'], { cwd: d.home });
  assert.is(b.code, 0, b.stderr);
  const ss = await d.json<{ sessions: Array<{ name: string; cwd: string }> }>(['list-sessions']);
  assert.is(ss.sessions.find((s) => s.name === 'here-one')?.cwd, here);
  assert.is(ss.sessions.find((s) => s.name === 'there-one')?.cwd, there, 'a relative -c is resolved against the caller\'s folder');
  await d.ok(['kill-session', 'here-one']);
  await d.ok(['kill-session', 'there-one']);
});

test('list-windows --json carries every window field', async () => {
  const r = await d.json<{ windows: Array<Record<string, unknown>> }>(['list-windows']);
  const w = r.windows.find((x) => x.name === 'calc')!;
  assert.ok(w, 'the calc window is listed');
  for (const k of ['id', 'short_id', 'name', 'session', 'workspace', 'pid', 'foreground', 'cwd', 'title', 'cols', 'rows', 'exit']) {
    assert.ok(k in w, `field ${k}`);
  }
  assert.is((w.id as string).length, 32);
  assert.is(w.short_id, (w.id as string).slice(0, 12));
  assert.is(w.session, 'work');
  assert.is((w.foreground as { comm: string }).comm, 'sh');
});

test('send-text pastes are bracketed only after the program sets DECSET 2004', async () => {
  await d.ok(['new-window', '-s', 'work', 'plain', 'cat', '-v']);
  await d.ok(['new-window', '-s', 'work', 'bracket', 'sh', '-c', 'printf "\\033[?2004h"; exec cat -v']);
  await waitFor(async () => {
    const w = await d.call<{ lines: string[] }>('capture-pane', { window: 'bracket' });
    return w.lines !== undefined;
  });
  // Wait until each program runs before typing.
  await waitFor(async () => {
    const ws = await d.call<{ windows: Array<{ name: string; foreground: { comm: string } | null }> }>('list-windows', {});
    return ws.windows.filter((w) => (w.name === 'plain' || w.name === 'bracket') && w.foreground?.comm === 'cat').length === 2;
  }, { what: 'both cat processes' });
  await d.ok(['send-text', '-w', 'plain', 'alpha\n']);
  await d.ok(['send-text', '-w', 'bracket', 'beta\n']);
  const plain = await d.waitScreen('plain', /alpha\n.*alpha/s);
  assert.not.match(plain, /200~/);
  const br = await d.waitScreen('bracket', /\^\[\[200~beta/);
  assert.match(br, /\^\[\[200~beta/);
});

test('send-text removes control characters so a paste cannot end its bracket', async () => {
  await d.ok(['send-text', '-w', 'bracket', 'x\u001b[201~y\u0007z\n']);
  const s = await d.waitScreen('bracket', /x\[201~yz/);
  // The ESC inside the text is gone: cat -v would show it as ^[ otherwise.
  assert.not.match(s, /x\^\[\[201~y/);
});

test('send-keys delivers arrows and C-c to the program', async () => {
  // The trap is set before READY prints; keys typed before cat reads wait in the tty's queue.
  await d.ok(['new-window', '-s', 'work', 'keys', 'sh', '-c', "trap 'echo GOT-INT' INT; echo READY; cat -v; echo CAT-DONE; sleep 60"]);
  await d.waitScreen('keys', /READY/);
  await d.ok(['send-keys', '-w', 'keys', 'Up', 'Left', 'Enter']);
  await d.waitScreen('keys', /\^\[\[A\^\[\[D/);
  await d.ok(['send-keys', '-w', 'keys', 'C-c']);
  const s = await d.waitScreen('keys', /CAT-DONE/);
  assert.match(s, /CAT-DONE/);
});

test('wait-for window-output returns on a match and exits 124 on timeout', async () => {
  await d.ok(['new-window', '-s', 'work', 'later', 'sh', '-c', 'sleep 0.5; echo ready-now; sleep 60']);
  const r = await d.cli(['wait-for', 'window-output', '-w', 'later', 'ready-\\w+', '--timeout', '20000']);
  assert.is(r.code, 0, r.stderr);
  assert.match(r.stdout, /ready-now/);
  const t = await d.cli(['wait-for', 'window-output', '-w', 'later', 'never-printed', '--timeout', '300']);
  assert.is(t.code, 124);
  assert.match(t.stderr, /timeout/);
});

test('a program that exits stays listed with its exit status until closed', async () => {
  await d.ok(['new-window', '-s', 'work', 'brief', 'sh', '-c', 'exit 3']);
  const w = await waitFor(async () => {
    const ws = await d.call<{ windows: Array<{ name: string; exit: { code: number } | null }> }>('list-windows', {});
    const b = ws.windows.find((x) => x.name === 'brief');
    return b?.exit ? b : null;
  }, { what: 'the brief window to exit' });
  assert.is(w.exit!.code, 3);
  const typed = await d.cli(['send-text', '-w', 'brief', 'hello']);
  assert.is(typed.code, 1);
  assert.match(typed.stderr, /window_exited/);
  await d.ok(['close-window', '-w', 'brief']);
  const after = await d.cli(['capture-pane', '-w', 'brief']);
  assert.is(after.code, 1);
  assert.match(after.stderr, /window_not_found/);
});

test('resize-window reaches the program', async () => {
  await d.ok(['new-window', '-s', 'work', 'sized', 'sh', '-c', 'sleep 0.3; while :; do stty size; sleep 0.2; done']);
  await d.ok(['resize-window', '-w', 'sized', '--cols', '100', '--rows', '30']);
  await d.waitScreen('sized', /^30 100$/m);
});

test('an ambiguous window name is an error, never a guess', async () => {
  await d.ok(['new-window', '-s', 'work', 'twin', 'sleep', '60']);
  await d.ok(['new-window', '-s', 'work', 'twin', 'sleep', '60']);
  const r = await d.cli(['capture-pane', '-w', 'twin']);
  assert.is(r.code, 1);
  assert.match(r.stderr, /ambiguous_target/);
});

test('a pane printing at full speed loses no line, and the daemon stays bounded while it does', async () => {
  // About 14 MB (lines of 70 bytes, narrower than the pane), thirty times the high watermark:
  // whenever the parser falls behind the PTY waits, and no line may be lost either way.
  const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${d.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  const before = rss();
  let peak = before;
  const sample = setInterval(() => (peak = Math.max(peak, rss())), 50);
  try {
    await d.ok(['new-window', '-s', 'work', 'flood', 'sh', '-c', "seq -f '%08g ............................................................' 1 200000; echo flood-en''d; sleep 60"]);
    await d.waitScreen('flood', /^flood-end$/m, 120_000);
  } finally {
    clearInterval(sample);
  }
  const r = await d.call<{ lines: string[] }>('capture-pane', { window: 'flood', lines: 4000 });
  const nums = r.lines.map((l) => /^(\d{8}) \.+$/.exec(l)?.[1]).filter((x): x is string => !!x).map(Number);
  assert.ok(nums.length > 3500, `${nums.length} lines of the flood in the last 4000`);
  assert.is(nums[nums.length - 1], 200000);
  for (let i = 1; i < nums.length; i++) if (nums[i] !== nums[i - 1]! + 1) assert.unreachable(`line ${nums[i - 1]} is followed by ${nums[i]}`);
  // A loose ceiling: the daemon grows by its scrollback and heap, not by what it has not parsed.
  assert.ok(peak - before < 96 * 1024 * 1024, `the daemon grew ${Math.round((peak - before) / 1048576)} MB during the flood`);
});

test('a program that asks the terminal gets its answer: the cursor position (CSI 6n) and the device attributes (CSI c)', async () => {
  // As under tmux, the pane's terminal answers; a program that waits on it (Codex before 0.100
  // asks for the cursor position at start and exits when no answer comes) goes on.
  const ask = "process.stdin.setRawMode(true); let got = ''; process.stdin.on('data', (d) => { got += d; if (/R[\\s\\S]*c/.test(got)) { console.log('REPLY ' + JSON.stringify(got)); process.exit(0); } }); process.stdout.write('\\x1b[3;5H\\x1b[6n\\x1b[c');";
  await d.ok(['new-window', '-s', 'work', 'asks', process.execPath, '-e', ask]);
  const screen = await d.waitScreen('asks', /REPLY /);
  const reply = JSON.parse(/REPLY (".*")/.exec(screen)![1]!) as string;
  assert.ok(reply.startsWith('\x1b[3;5R'), `the cursor position, row 3 column 5: ${JSON.stringify(reply)}`);
  assert.match(reply, /\x1b\[\?[\d;]+c$/, 'the primary device attributes');
});

test.run();
