// The captures capture-state keeps (core/detection/captures.ts): at most N, the oldest removed with
// their colours; what a wanted state asks a screen rule to decide.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureFolder, captureStamp, pruneCaptures, writeCapture } from '../../core/detection/captures.js';
import { expectFor } from '../../core/verbs/capture-state.js';

const tmp = mkdtempSync(join(tmpdir(), 'tuios-captures-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

test('the newest N captures are kept; an older one goes with its .ansi, other files stay', () => {
  const root = join(tmp, 'prune');
  for (const [folder, n] of [['claude-code', 3], ['unknown', 2]] as const) {
    mkdirSync(join(root, folder), { recursive: true });
    for (let i = 0; i < n; i++) {
      const base = join(root, folder, `c${i}`);
      writeFileSync(`${base}.screen`, 'x');
      writeFileSync(`${base}.ansi`, 'x');
      // claude-code's c0 is the oldest of all, unknown's c1 the newest.
      const at = new Date(Date.UTC(2026, 0, 1, 0, folder === 'unknown' ? 10 + i : i));
      utimesSync(`${base}.screen`, at, at);
    }
  }
  writeFileSync(join(root, 'claude-code', 'NOTES.md'), 'mine');
  writeFileSync(join(root, 'unknown', 'orphan.ansi'), 'left by a crash');
  assert.is(pruneCaptures(root, 3), 2);
  assert.equal(readdirSync(join(root, 'claude-code')).sort(), ['NOTES.md', 'c2.ansi', 'c2.screen']);
  assert.equal(readdirSync(join(root, 'unknown')).sort(), ['c0.ansi', 'c0.screen', 'c1.ansi', 'c1.screen'], 'the orphan .ansi went');
  assert.is(pruneCaptures(root, 3), 0, 'at the bound, nothing more goes');
});

test('writeCapture: 0600 files in 0700 folders, a second capture in the same second gets its own name, the bound holds', () => {
  const root = join(tmp, 'write');
  const a = writeCapture(root, 'toy', '20261202T140512Z-idle-80x24', (ansi) => `ansi_file = "${ansi}"\n`, 'A', 2);
  const b = writeCapture(root, 'toy', '20261202T140512Z-idle-80x24', (ansi) => `ansi_file = "${ansi}"\n`, 'B', 2);
  assert.ok(a.path.endsWith('/toy/20261202T140512Z-idle-80x24.screen'));
  assert.ok(b.path.endsWith('/toy/20261202T140512Z-idle-80x24-2.screen'));
  assert.ok(b.ansiPath.endsWith('-2.ansi'));
  for (const p of [a.path, a.ansiPath, b.path]) assert.is(statSync(p).mode & 0o777, 0o600, p);
  for (const p of [root, join(root, 'toy')]) assert.is(statSync(p).mode & 0o777, 0o700, p);
  const c = writeCapture(root, 'toy', '20261202T140513Z-working-80x24', () => '', '', 2);
  assert.is(c.removed, 1);
  assert.is(readdirSync(join(root, 'toy')).filter((n) => n.endsWith('.screen')).length, 2);
});

test('a harness id is a safe folder name', () => {
  assert.is(captureFolder('claude-code'), 'claude-code');
  assert.is(captureFolder(null), 'unknown');
  assert.is(captureFolder('..'), 'unknown');
  assert.is(captureFolder('../x/y'), '.._x_y');
  assert.is(captureStamp(new Date(Date.UTC(2026, 11, 2, 14, 5, 12, 345))), '20261202T140512Z');
});

test('what a wanted state asks a screen rule to decide', () => {
  assert.equal(
    (['working', 'needs_input', 'idle', 'done', 'errored', 'unknown', 'none'] as const).map(expectFor),
    ['working', 'needs_input', 'idle', 'idle', 'none', 'none', 'none'],
  );
});

test.run();
