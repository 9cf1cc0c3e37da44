// Issue 23's benchmark: a turn checkpoint of a 5,000-file work tree with 50 changed files
// (goal <= 150 ms) and with nothing changed since the last one (goal <= 5 ms). Real git, a real
// repository in a temp folder; each round changes 50 files (45 edited, 5 new untracked) and
// takes a checkpoint, then takes one again with nothing changed. Figures are medians.
//
// The peer: the same git commands a checkpoint needs (ls-files against an index of the last
// checkpoint, update-index, write-tree, commit-tree, update-ref), run one after another with
// spawnSync on the same kind of round, nothing else: what git alone costs on this machine.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
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
  // The peer, on rounds of its own (the same edits, other files and folders).
  const peerIndex = join(root, 'peer.index');
  copyFileSync(join(repo, '.git', 'index'), peerIndex);
  const gitSync = (args: string[], input?: string): string => {
    const r = spawnSync('git', args, { cwd: repo, input, env: { ...process.env, GIT_INDEX_FILE: peerIndex, GIT_AUTHOR_NAME: 'b', GIT_AUTHOR_EMAIL: 'b@b', GIT_COMMITTER_NAME: 'b', GIT_COMMITTER_EMAIL: 'b@b' }, encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`git ${args[0]}: ${r.stderr}`);
    return r.stdout;
  };
  gitSync(['add', '-A']);
  const peer: number[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    for (let k = 0; k < CHANGED - 5; k++) put(repo, fileOf((r * 89 + k * 53 + 7) % FILES), `// peer round ${r} edit ${k}\n`.repeat(10));
    for (let k = 0; k < 5; k++) put(repo, `peer/r${r}/n${k}.ts`, `// new in peer round ${r}\n`);
    const t = performance.now();
    const paths = gitSync(['ls-files', '-z', '-t', '--modified', '--deleted', '--others', '--exclude-standard']).split('\0').filter(Boolean).map((e) => e.slice(2));
    gitSync(['update-index', '--add', '--remove', '-z', '--stdin'], paths.join('\0') + '\0');
    const tree = gitSync(['write-tree']).trim();
    const commit = gitSync(['commit-tree', tree, '-p', 'HEAD', '-m', `peer ${r}`]).trim();
    gitSync(['update-ref', `refs/bench/peer/${r}`, commit]);
    peer.push(performance.now() - t);
  }
  const m1 = median(changed);
  const m2 = median(unchanged);
  const mp = median(peer);
  console.log(`checkpoint, ${FILES} files, ${CHANGED} changed: median ${fmt(m1, 1)} ms (min ${fmt(Math.min(...changed), 1)}, max ${fmt(Math.max(...changed), 1)}; goal <= 150 ms) ${m1 <= 150 ? 'ok' : 'OVER'}`);
  console.log(`  peer, its git commands alone one after another: median ${fmt(mp, 1)} ms (min ${fmt(Math.min(...peer), 1)}, max ${fmt(Math.max(...peer), 1)}); ours ${fmt(m1 / mp, 2)}x`);
  console.log(`checkpoint, ${FILES} files, nothing changed: median ${fmt(m2, 1)} ms (min ${fmt(Math.min(...unchanged), 1)}, max ${fmt(Math.max(...unchanged), 1)}; goal <= 5 ms) ${m2 <= 5 ? 'ok' : 'OVER'}`);
} finally {
  removeDir(root);
}
