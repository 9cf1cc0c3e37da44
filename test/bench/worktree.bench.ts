// Issue 11's benchmark: `worktree pull` of a repository with 5,000 files and 50 MB of changes
// (two commits and uncommitted work: modified, staged and untracked files), against what a person
// does by hand: `git bundle` of the commits plus a tar of the changed files, copied over OpenSSH
// with scp, then fetched and unpacked. With /usr/sbin/sshd, both copies go through a private sshd
// on a high port (tuios's stream through `ssh ... cat`); without it the copy is a local cp, and the
// output says so. And the real thing: `tuios worktree pull build:SESSION` between two daemons, each
// with its own XDG folders, linked over loopback through tuios's own SSH server, into a fresh
// clone each round; its CPU is both daemons' and their git's.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { listHaves, packWorktree, unpackWorktree } from '../../core/git/transfer.js';
import { waitFor } from '../helpers/wait.js';
import { identity, log, removeDir, sh, status, tempDir } from '../helpers/worktree-repos.js';
import { fmt, mb, median } from './helpers.js';
import { link, startHost, type Host } from '../helpers/link.js';
import { cpus } from 'node:os';

const FILES = Number(process.env.BENCH_FILES ?? 5000);
const CHANGE_MB = Number(process.env.BENCH_CHANGE_MB ?? 50);
const SSHD = '/usr/sbin/sshd';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** Deterministic text that compresses about as source code does. */
function textOf(seed: number, bytes: number): string {
  const words = ['const', 'return', 'function', 'if', 'else', 'retry', 'client', 'request', 'error', 'await', 'value', 'index', 'map', 'filter', '=>', '{', '}', '(', ')', ';'];
  let s = (Math.imul(seed + 1, 2654435761) ^ 0x9e3779b9) | 1;
  const rnd = () => {
    // xorshift32: a full-period generator in 32-bit integers.
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x100000000;
  };
  let out = '';
  while (out.length < bytes) {
    let line = '  '.repeat(Math.floor(rnd() * 4));
    const n = 3 + Math.floor(rnd() * 9);
    // Words, and identifiers that are new in every line, as source code has: zlib gets about 2:1.
    for (let i = 0; i < n; i++) line += (rnd() < 0.5 ? words[Math.floor(rnd() * words.length)]! : Math.floor(rnd() * 0xffffffff).toString(36)) + ' ';
    out += line + '\n';
  }
  return out.slice(0, bytes);
}

function fileOf(i: number): string {
  return `src/m${Math.floor(i / 100)}/f${i}.ts`;
}

function writeFile(dir: string, rel: string, text: string): void {
  const p = join(dir, rel);
  mkdirSync(join(p, '..'), { recursive: true });
  writeFileSync(p, text);
}

const t = () => performance.now();
const secs = (ms: number) => `${fmt(ms / 1000, 2)} s`;

/** CPU seconds of a process itself, and of every child it has waited for (git, tar, scp, ssh). */
function cpuParts(pid: number | 'self'): { own: number; children: number } {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const x = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return { own: (Number(x[11]) + Number(x[12])) / 100, children: (Number(x[13]) + Number(x[14])) / 100 };
}

function cpuOf(pid: number | 'self'): number {
  const c = cpuParts(pid);
  return c.own + c.children;
}

let daemons: Host[] = [];
/** This process's CPU and, once started, the two linked daemons' (with the git they ran). */
function cpu(): number {
  return cpuOf('self') + daemons.reduce((a, h) => a + (h.d.pid ? cpuOf(h.d.pid) : 0), 0);
}

// ---- an sshd of our own ----

interface Ssh {
  args: string[];
  dest: string;
  proc: ChildProcess;
  how: string;
}

async function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

async function startSshd(dir: string): Promise<Ssh | { why: string }> {
  if (!existsSync(SSHD)) return { why: `${SSHD} is not installed` };
  mkdirSync(dir, { recursive: true });
  const key = join(dir, 'client');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', join(dir, 'host')]);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
  writeFileSync(join(dir, 'authorized_keys'), execFileSync('cat', [`${key}.pub`]));
  chmodSync(join(dir, 'authorized_keys'), 0o600);
  const port = 20000 + (process.pid % 20000);
  const user = execFileSync('id', ['-un'], { encoding: 'utf8' }).trim();
  const cfg = join(dir, 'sshd_config');
  writeFileSync(cfg, [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, 'host')}`, `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'PubkeyAuthentication yes', 'PermitRootLogin prohibit-password',
    'StrictModes no', 'UsePAM no', 'PidFile none', 'Subsystem sftp internal-sftp', `AllowUsers ${user}`, '',
  ].join('\n'));
  const tries: Array<{ how: string; cmd: string; argv: string[] }> = [{ how: 'sshd', cmd: SSHD, argv: ['-D', '-e', '-f', cfg] }];
  // As root, sshd wants its privilege separation folder (/run/sshd); where the host has none, a
  // private /run in a mount namespace of its own gives it one without touching the host.
  if (process.getuid?.() === 0 && !existsSync('/run/sshd')) {
    tries.unshift({ how: 'sshd (a private /run in its own mount namespace)', cmd: 'unshare', argv: ['-m', 'sh', '-c', `mount -t tmpfs tmpfs /run && mkdir -m 755 /run/sshd && exec ${SSHD} -D -e -f ${cfg}`] });
  }
  let why = '';
  for (const tr of tries) {
    const proc = spawn(tr.cmd, tr.argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    proc.stderr!.on('data', (d) => (err += d));
    try {
      await waitFor(async () => {
        if (proc.exitCode !== null) throw new Error(err.trim() || `exit ${proc.exitCode}`);
        return portAnswers(port);
      }, { timeout: 10_000, what: 'sshd to listen' });
    } catch (e) {
      why = (e as Error).message;
      proc.kill('SIGKILL');
      continue;
    }
    const args = ['-p', String(port), '-i', key, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes', '-o', 'LogLevel=ERROR'];
    const probe = spawnSync('ssh', [...args, `${user}@127.0.0.1`, 'true']);
    if (probe.status !== 0) {
      why = `ssh to it failed: ${probe.stderr.toString().trim()}`;
      proc.kill('SIGKILL');
      continue;
    }
    return { args, dest: `${user}@127.0.0.1`, proc, how: `OpenSSH ${tr.how} on 127.0.0.1:${port}` };
  }
  return { why };
}

// ---- the repositories ----

const root = tempDir('tuios-bench-wt-');
let sshd: Ssh | null = null;
let hub: Host | null = null;
let build: Host | null = null;
try {
  const origin = join(root, 'origin');
  mkdirSync(origin);
  sh(origin, ['init', '-q', '-b', 'main']);
  identity(origin);
  const t0 = t();
  for (let i = 0; i < FILES; i++) writeFile(origin, fileOf(i), textOf(i, 2048));
  sh(origin, ['add', '-A']);
  sh(origin, ['commit', '-q', '-m', 'base']);
  sh(root, ['clone', '-q', '--no-local', origin, join(root, 'clone')]);
  const clone = join(root, 'clone');
  identity(clone);
  const wt = join(root, 'wt');
  sh(origin, ['worktree', 'add', '-q', '-b', 'feat/big', wt]);

  // 50 MB of changes: 40% in two commits, 60% uncommitted (modified, staged, untracked).
  const total = CHANGE_MB * 1024 * 1024;
  const per = 10 * 1024;
  const n = Math.round(total / per);
  const committed = Math.round(n * 0.4);
  let k = 0;
  for (let c = 0; c < 2; c++) {
    for (let i = 0; i < committed / 2; i++, k++) writeFile(wt, k % 2 ? fileOf(k % FILES) : `new/c${c}/f${i}.ts`, textOf(100_000 + k, per));
    sh(wt, ['add', '-A']);
    sh(wt, ['commit', '-q', '-m', `change ${c + 1}`]);
  }
  for (; k < n; k++) {
    const rel = k % 3 === 0 ? `untracked/f${k}.ts` : fileOf((k * 7) % FILES);
    writeFile(wt, rel, textOf(200_000 + k, per));
    if (k % 3 === 1) sh(wt, ['add', '--', rel]);
  }
  const st = status(wt).trim().split('\n');
  console.log(`setup: ${FILES} files, ${mb(total)} of changes (${committed} files in 2 commits, ${st.length} uncommitted entries) in ${secs(t() - t0)}`);

  // Every round starts from what the clone had before any pull (the same offer of haves), so
  // each one sends the commits again; rounds alternate so the machine's load falls on all alike.
  const haves = await listHaves(clone);
  const started = await startSshd(join(root, 'ssh'));
  if ('proc' in started) sshd = started;
  const over = sshd ? sshd.how : `a local cp (no sshd: ${(started as { why: string }).why})`;
  const spoolDir = join(root, 'remote-spool');
  mkdirSync(spoolDir);
  let wireBytes = 0;
  let handBytes = 0;

  const inProcess = async (i: number) => {
    const pipe = new PassThrough({ highWaterMark: 1024 * 1024 });
    const dest = join(root, 'pulled', `in-process-${i}`);
    const [u, p] = await Promise.all([unpackWorktree(pipe, { repo: clone, dest, branch: `feat/in-process-${i}` }), packWorktree(wt, pipe, { haves })]);
    wireBytes = p.bytes;
    if (log(dest).join() !== log(wt).join() || status(dest) !== status(wt)) throw new Error('the pulled worktree differs from its source');
    return `${mb(u.bytes)}`;
  };
  // pack → ssh → a file on "the other machine", then unpack from it: the bytes cross OpenSSH once.
  const overSsh = async (i: number) => {
    const spool = join(spoolDir, `pull-${i}.stream`);
    if (sshd) {
      const ssh = spawn('ssh', [...sshd.args, sshd.dest, `cat > ${spool}`], { stdio: ['pipe', 'ignore', 'inherit'] });
      const exited = new Promise<number | null>((r) => ssh.once('close', r));
      await packWorktree(wt, ssh.stdin!, { haves });
      if ((await exited) !== 0) throw new Error('ssh cat failed');
    } else await packWorktree(wt, createWriteStream(spool), { haves });
    const dest = join(root, 'pulled', `over-ssh-${i}`);
    await unpackWorktree(createReadStream(spool), { repo: clone, dest, branch: `feat/over-ssh-${i}` });
    if (status(dest) !== status(wt)) throw new Error('the pulled worktree differs from its source');
    return '';
  };
  // Two linked daemons: `build` serves the worktree (files = true for the hub), the hub pulls it.
  // WORKTREE_BENCH_NODE_ARGS: node's flags for both daemons (--cpu-prof --cpu-prof-dir=DIR, say).
  const nodeArgs = { TUIOS_TEST_NODE_ARGS: process.env.WORKTREE_BENCH_NODE_ARGS ?? '' };
  build = await startHost('build', { config: '[hosts.hub]\nfiles = true\n', env: nodeArgs });
  hub = await startHost('hub', { env: nodeArgs });
  await link(hub, build);
  daemons = [hub, build];
  await build.d.ok(['new-session', 'src', '--cwd', wt]);
  let linkedBytes = 0;
  // Where the linked pull's CPU went: each daemon's own (its JS) and its git's, summed over rounds.
  const split = { hub: { own: 0, children: 0 }, build: { own: 0, children: 0 } };
  const linked = async (i: number) => {
    const before = { hub: cpuParts(hub!.d.pid!), build: cpuParts(build!.d.pid!) };
    const a = t();
    const r = await hub!.d.cli(['worktree', 'pull', 'build:src', '--repo', linkedClones[i]!, '--json'], { timeoutMs: 30 * 60_000 });
    const ms = t() - a;
    for (const [k, h] of [['hub', hub!], ['build', build!]] as const) {
      const now = cpuParts(h.d.pid!);
      split[k].own += now.own - before[k].own;
      split[k].children += now.children - before[k].children;
    }
    if (r.code !== 0) throw new Error(`worktree pull build:src failed: ${r.stderr}`);
    const out = JSON.parse(r.stdout) as { path: string; bytes: number };
    linkedBytes = out.bytes;
    if (log(out.path).join() !== log(wt).join() || status(out.path) !== status(wt)) throw new Error('the pulled worktree differs from its source');
    return `${fmt(ms / 1000, 2)}`;
  };
  // A fresh clone per round, made before the timing: each pull has the same offer of haves.
  const linkedClones: string[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const c = join(root, `linked-clone-${i}`);
    sh(root, ['clone', '-q', '--no-local', clone, c]); // the clone as it was: main only, as the others' offer
    identity(c);
    linkedClones.push(c);
  }
  const notHaves = haves.filter((h) => spawnSync('git', ['cat-file', '-e', h], { cwd: wt }).status === 0).map((h) => `^${h}`);
  const byHand = async (i: number) => {
    const out = join(root, `by-hand-${i}`);
    mkdirSync(out);
    const bundle = join(out, 'feat.bundle');
    sh(wt, ['bundle', 'create', '-q', bundle, 'feat/big', ...notHaves]);
    const changed = execFileSync('git', ['ls-files', '-z', '--modified', '--others', '--exclude-standard'], { cwd: wt, maxBuffer: 64 << 20 });
    const tar = join(out, 'changes.tar');
    execFileSync('tar', ['--null', '-T', '-', '-cf', tar], { cwd: wt, input: changed });
    const remote = join(root, `by-hand-remote-${i}`);
    mkdirSync(remote);
    if (sshd) execFileSync('scp', [...sshd.args.map((x) => (x === '-p' ? '-P' : x)), '-q', bundle, tar, `${sshd.dest}:${remote}/`]);
    else execFileSync('cp', [bundle, tar, remote]);
    sh(clone, ['fetch', '-q', join(remote, 'feat.bundle'), `feat/big:feat/by-hand-${i}`]);
    const dest = join(root, 'pulled', `by-hand-${i}`);
    sh(clone, ['worktree', 'add', '-q', dest, `feat/by-hand-${i}`]);
    execFileSync('tar', ['-xf', join(remote, 'changes.tar')], { cwd: dest });
    handBytes = statSync(bundle).size + statSync(tar).size;
    return status(dest) === status(wt) ? 'identical' : 'differs';
  };

  const methods: Array<{ name: string; run: (i: number) => Promise<string>; wall: number[]; cpu: number[]; note: string }> = [
    { name: 'tuios worktree pull, in-process stream', run: inProcess, wall: [], cpu: [], note: '' },
    { name: `tuios worktree pull through ${sshd ? 'ssh' : 'a file'}`, run: overSsh, wall: [], cpu: [], note: '' },
    { name: `git bundle + tar, ${sshd ? 'scp' : 'cp'}, fetch, worktree add, untar`, run: byHand, wall: [], cpu: [], note: '' },
    { name: 'tuios worktree pull build:src, two daemons linked through tuios\'s SSH server on loopback', run: linked, wall: [], cpu: [], note: '' },
  ];
  for (let i = 0; i < ROUNDS; i++) {
    for (const m of methods) {
      const a = t();
      const c0 = cpu();
      m.note = await m.run(i);
      m.wall.push(t() - a);
      m.cpu.push((cpu() - c0) * 1000);
    }
  }
  console.log(`copies over ${over}; ${ROUNDS} rounds each, medians; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')} on ${cpus().length} cores`);
  for (const m of methods) console.log(`  ${m.name}: ${secs(median(m.wall))} wall, ${secs(median(m.cpu))} CPU (this process and its children${m.run === linked ? ', both daemons and their git' : ''})`);
  const hand = median(methods[2]!.wall);
  const real = median(methods[3]!.wall);
  console.log(`  linked pull against bundle+${sshd ? 'scp' : 'cp'}: ${secs(real)} vs ${secs(hand)}, ratio ${fmt(real / hand, 2)} (rounds: ${methods[3]!.wall.map((x) => fmt(x / 1000, 2)).join(', ')} s against ${methods[2]!.wall.map((x) => fmt(x / 1000, 2)).join(', ')} s); the linked pull moved ${mb(linkedBytes)}`);
  const aRound = (x: number) => `${fmt(x / ROUNDS, 2)} s`;
  console.log(`  the linked pull's CPU a round: the hub ${aRound(split.hub.own)} (its git ${aRound(split.hub.children)}), the build host ${aRound(split.build.own)} (its git ${aRound(split.build.children)})`);
  console.log(`  moved: tuios ${mb(wireBytes)} (the exact state: commits, staged, unstaged, deleted, untracked), by hand ${mb(handBytes)} (git status after it: ${methods[2]!.note}: staged changes arrive unstaged and deletions are lost)`);
} finally {
  for (const h of [hub, build]) await h?.d.stop().catch(() => undefined);
  sshd?.proc.kill('SIGTERM');
  if (process.env.BENCH_KEEP) console.log(`kept ${root}`);
  else removeDir(root);
}
process.exit(0);
