// Issue 23's benchmark: a turn checkpoint of a 5,000-file work tree with 50 changed files
// (goal <= 150 ms) and with nothing changed since the last one (goal <= 5 ms). Real git, a real
// repository in a temp folder; each round changes 50 files (45 edited, 5 new untracked) and
// takes a checkpoint, then takes one again with nothing changed. Figures are medians.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Checkpoints } from '../../core/git/checkpoints.js';
import { identity, removeDir, sh, tempDir } from '../helpers/worktree-repos.js';
import { fmt, median } from './helpers.js';

const FILES = Number(process.env.BENCH_FILES ?? 5000);
const CHANGED = Number(process.env.BENCH_CHANGED ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const W = 'b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0';

function fileOf(i: number): string {
  return `src/m${Math.floor(i / 100)}/f${i}.ts`;
}

function put(dir: string, rel: string, text: string): void {
  const p = join(dir, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
}

const root = tempDir('tuios-cp-bench-');
try {
  const repo = join(root, 'repo');
  mkdirSync(repo);
  sh(repo, ['init', '-q', '-b', 'main']);
  identity(repo);
  put(repo, '.gitignore', 'node_modules/\n*.log\n');
  for (let i = 0; i < FILES; i++) put(repo, fileOf(i), `// file ${i}\nexport const v${i} = ${i};\n`.repeat(20));
  sh(repo, ['add', '-A']);
  sh(repo, ['commit', '-q', '-m', 'five thousand files']);
  const cps = new Checkpoints(join(root, 'cache'));
  // The first checkpoint builds the pane's private index from the repository's.
  put(repo, fileOf(0), 'first turn\n');
  await cps.take(repo, W, { turn: 0 });

  const changed: number[] = [];
  const unchanged: number[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    for (let k = 0; k < CHANGED - 5; k++) put(repo, fileOf((r * 97 + k * 61) % FILES), `// round ${r} edit ${k}\n`.repeat(10));
    for (let k = 0; k < 5; k++) put(repo, `new/r${r}/n${k}.ts`, `// new in round ${r}\n`);
    let t = performance.now();
    const a = await cps.take(repo, W, { turn: r, state: 'done', label: `round ${r}` });
    changed.push(performance.now() - t);
    if (!a.checkpoint) throw new Error(`round ${r}: no checkpoint for 50 changed files`);
    t = performance.now();
    const b = await cps.take(repo, W, { turn: r, state: 'done' });
    unchanged.push(performance.now() - t);
    if (b.checkpoint) throw new Error(`round ${r}: a checkpoint with nothing changed`);
  }
  const m1 = median(changed);
  const m2 = median(unchanged);
  console.log(`checkpoint, ${FILES} files, ${CHANGED} changed: median ${fmt(m1, 1)} ms (min ${fmt(Math.min(...changed), 1)}, max ${fmt(Math.max(...changed), 1)}; goal <= 150 ms) ${m1 <= 150 ? 'ok' : 'OVER'}`);
  console.log(`checkpoint, ${FILES} files, nothing changed: median ${fmt(m2, 1)} ms (min ${fmt(Math.min(...unchanged), 1)}, max ${fmt(Math.max(...unchanged), 1)}; goal <= 5 ms) ${m2 <= 5 ? 'ok' : 'OVER'}`);
} finally {
  removeDir(root);
}
