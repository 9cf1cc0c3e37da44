// `worktree pull` progress on the terminal: the CLI run under a real PTY (node-pty) draws one
// line on stderr, redrawn in place with a carriage return (phase, bytes, objects, rate) and ended
// as done; with stderr not a terminal, or with --json, it prints none of it and the result is the
// same. The source worktree holds ~40 MB of random files, which do not compress, so the transfer
// has many progress events.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as pty from 'node-pty';
import { BIN, TestDaemon } from '../helpers/daemon.js';
import { identity, makeRepo, removeDir, sh, status, tempDir } from '../helpers/worktree-repos.js';

let d: TestDaemon;
let root: string;
let session: string;
let srcPath: string;
let n = 0;

test.before(async () => {
  root = tempDir('tuios-wt-progress-');
  const origin = makeRepo(join(root, 'origin'));
  d = await TestDaemon.start();
  const made = JSON.parse(await d.ok(['worktree', 'new', 'feat/big', '--json'], { cwd: origin })) as { path: string; session: string };
  session = made.session;
  srcPath = made.path;
  for (let i = 0; i < 10; i++) writeFileSync(join(srcPath, `blob-${i}.bin`), randomBytes(4 * 1024 * 1024));
});

test.after(async () => {
  await d?.stop();
  removeDir(root);
});

/** A fresh clone to pull into: each pull is a new worktree of its own clone. */
function clone(): string {
  const dir = join(root, `clone-${++n}`);
  sh(root, ['clone', '-q', join(root, 'origin'), dir]);
  identity(dir);
  return dir;
}

/** The CLI under a real terminal: everything it wrote (stdout and stderr, as a terminal shows both), and its exit code. */
function underPty(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve, reject) => {
    const p = pty.spawn(process.execPath, [BIN, ...args], { name: 'xterm-256color', cols: 160, rows: 40, cwd: root, env: d.env });
    let out = '';
    const t = setTimeout(() => {
      p.kill();
      reject(new Error(`tuios ${args.join(' ')} under a terminal ran past 120 s:\n${out}`));
    }, 120_000);
    p.onData((s) => (out += s));
    p.onExit(({ exitCode }) => {
      clearTimeout(t);
      resolve({ code: exitCode, out });
    });
  });
}

test('at a terminal, worktree pull draws its progress on one line, redrawn in place, and ends it as done', async () => {
  const dest = clone();
  const r = await underPty(['worktree', 'pull', session, '--repo', dest]);
  assert.is(r.code, 0, r.out);
  // A terminal turns \n into \r\n; a draw is a bare \r before the line.
  const text = r.out.replace(/\r\n/g, '\n');
  const draws = text.split('\r').filter((x) => x.startsWith('worktree pull: ')).map((x) => x.split('\n')[0]!);
  assert.ok(draws.length >= 3, `several draws (${draws.length}):\n${JSON.stringify(text)}`);
  assert.ok(draws.some((x) => /^worktree pull: receive \d/.test(x)), 'the receive phase is drawn');
  assert.ok(draws.some((x) => /[\d,]+ files/.test(x)), 'the files sent as they are are counted');
  const lines = text.split('\n').filter((l) => l.includes('worktree pull: '));
  assert.is(lines.length, 1, `one line, redrawn in place:\n${JSON.stringify(text)}`);
  // The rate is drawn once the receive has run 0.2 s: 40 MB of files within one machine may take
  // less (the line's parts are checked in unit pull-progress).
  assert.match(draws[draws.length - 1]!, /^worktree pull: done \d+\.\d MB, [\d,]+ objects, [\d,]+ files(, [\d.]+ (KB|MB|GB)\/s)?, \d+ s\x1b\[K$/);
  // The result follows on its own line, as without a terminal.
  assert.match(text, /\n\S+  \/\S+  \(feat\/big(-\d+)? at [0-9a-f]{12}, \d+ KB\)\n$/);
  const pulled = JSON.parse(await d.ok(['worktree', 'ls', '--json'])) as { worktrees: Array<{ path: string; branch: string }> };
  assert.ok(pulled.worktrees.some((w) => w.branch === 'feat/big' && w.path !== srcPath && status(w.path) === status(srcPath)));
});

test('without a terminal, worktree pull prints no progress and the same result', async () => {
  const r = await d.cli(['worktree', 'pull', session, '--repo', clone()], { timeoutMs: 120_000 });
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stderr, '', 'nothing on stderr');
  assert.match(r.stdout, /^\S+  \/\S+  \(feat\/big(-\d+)? at [0-9a-f]{12}, \d+ KB\)\n$/);
});

test('with --json at a terminal, worktree pull prints only its JSON', async () => {
  const r = await underPty(['worktree', 'pull', session, '--repo', clone(), '--json']);
  assert.is(r.code, 0, r.out);
  assert.not.match(r.out, /worktree pull:/);
  const j = JSON.parse(r.out.replace(/\r\n/g, '\n')) as { branch: string; bytes: number };
  assert.match(j.branch, /^feat\/big/);
  assert.ok(j.bytes > 40 * 1024 * 1024);
});

test.run();
