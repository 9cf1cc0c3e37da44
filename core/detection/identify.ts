// Which harness runs in a pane, from the kernel's view of its foreground process group, never
// from a guess (spec: Recognising a harness). Pure over a process reader, so every predicate is
// unit tested on recorded process descriptions. Only the process's own identity counts: its
// name, its argv[0], its executable, and for an interpreter the one script it was asked to run.
import { basename } from 'node:path';
import type { Manifest } from './manifest.js';
import type { Identity } from '../agent-state/state.js';
import type { ProcInfo, ProcReader } from '../pty/procfs.js';
import { WALK_MAX_DEPTH, WALK_MAX_PROCESSES } from '../limits.js';

// What a process reader answers lives with the reads themselves (core/pty/procfs.ts), below the
// detector; identification only consumes it.
export type { ProcInfo, ProcReader } from '../pty/procfs.js';

const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'fish', 'ksh', 'mksh', 'tcsh', 'csh', 'ash', 'busybox']);
const INTERPRETERS = new Set([...SHELLS, 'node', 'nodejs', 'bun', 'deno', 'ruby', 'perl', 'npx', 'bunx', 'pnpm', 'yarn', 'npm', 'uv', 'uvx', 'pipx', 'tsx', 'ts-node']);
/** Launchers that run the real program as a child: the walk reads behind them. */
const WRAPPERS = new Set([...SHELLS, 'timeout', 'env', 'nice', 'nohup', 'time', 'stdbuf', 'sudo', 'doas', 'npx', 'bunx', 'uvx', 'pipx', 'mise', 'nix', 'nix-shell', 'direnv', 'devbox', 'script', 'caffeinate', 'setsid', 'ionice', 'chrt', 'taskset', 'flock', 'npm', 'pnpm', 'yarn', 'uv']);
/** Subcommands of a runner that come before the script they run (`bun run x`, `npm exec x`). */
const RUNNER_SUBCOMMANDS = new Set(['run', 'exec', 'x', 'dlx', 'tool']);
/** Interpreter flags whose value is the next argument (so it is not the script). */
const VALUE_FLAGS = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '-C', '--conditions', '--inspect-port', '-W', '-X', '--title', '--cwd', '--from', '--with', '-p', '--package', '--config']);
const PACKAGE_DIRS = new Set(['node_modules', 'site-packages', 'dist-packages']);

/** A shell program (its own process in the foreground means the pane is at its prompt). */
export function isShellName(n: string | null | undefined): boolean {
  return !!n && SHELLS.has(n);
}

/**
 * A shell started to take commands from a person: a shell's argv with options only (`bash --norc
 * -i`, a login shell's `-bash`), no `-c` and no script (`sh -c '...'` and `bash script.sh` are
 * wrappers, not prompts).
 */
export function isInteractiveShellArgv(argv: readonly string[]): boolean {
  if (!isShellName(basename(argv[0] ?? '').replace(/^-/, ''))) return false;
  return argv.slice(1).every((a) => a.startsWith('-') && !/^-[a-z]*c/.test(a));
}

export function isInterpreterName(n: string | null): boolean {
  if (!n) return false;
  return INTERPRETERS.has(n) || /^python\d*(\.\d+)?$/.test(n);
}

function exeBase(p: ProcInfo): string | null {
  return p.exe ? basename(p.exe.replace(/ \(deleted\)$/, '')) : null;
}

function argv0Base(p: ProcInfo): string | null {
  const a = p.argv?.[0];
  if (a === undefined) return null;
  // A process that set its title (pi does) leaves its argv[0] padded with spaces.
  return basename(a.split(' ')[0]!.trim());
}

export function isInterpreter(p: ProcInfo): boolean {
  return isInterpreterName(p.comm) || isInterpreterName(exeBase(p));
}

function isWrapper(p: ProcInfo): boolean {
  const c = p.comm ?? '';
  if (WRAPPERS.has(c) || WRAPPERS.has(exeBase(p) ?? '') || WRAPPERS.has(argv0Base(p) ?? '')) return true;
  // npm and pnpm rename themselves: `npm exec @openai/codex` shows as comm "npm exec @opena".
  return /^(npm exec|npx|pnpm dlx|yarn dlx|bunx|uvx)\b/.test(c) || /^(npm exec|npx)\b/.test(p.argv?.[0] ?? '');
}

/**
 * The one argv token an interpreter was asked to run: the first non-flag argument, skipping a
 * runner subcommand and the values of flags that take one. `python -m pkg` names the module.
 */
export function eligibleToken(argv: string[]): string | null {
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-m') return argv[i + 1] ?? null;
    if (a === '-c' || a === '-e' || a === '--eval') return null; // code, not a script
    if (a === '--') continue;
    if (a.startsWith('-')) {
      if (VALUE_FLAGS.has(a)) i++;
      continue;
    }
    if (i === 1 && RUNNER_SUBCOMMANDS.has(a)) continue;
    return a;
  }
  return null;
}

/** A package name as path components; a scoped name is two. */
function pkgParts(pkg: string): string[] {
  return pkg.split('/').filter(Boolean);
}

function stripPin(component: string): string {
  const at = component.lastIndexOf('@');
  return at > 0 ? component.slice(0, at) : component;
}

/**
 * argv_path: the package name right after node_modules / site-packages / dist-packages (or an
 * npm scope there), or the whole token (`npx opencode@latest`, `@openai/codex`), compared by
 * components, never as a substring. The last component may carry a version pin.
 */
export function tokenNamesPackage(token: string, pkg: string): boolean {
  const want = pkgParts(pkg);
  if (want.length === 0) return false;
  const tokParts = token.split('/').filter(Boolean);
  const eqAt = (i: number) => {
    for (let k = 0; k < want.length; k++) {
      const got = tokParts[i + k];
      if (got === undefined) return false;
      const last = k === want.length - 1;
      if (got !== want[k] && !(last && stripPin(got) === want[k])) return false;
    }
    return true;
  };
  // The whole token is the package (`opencode`, `opencode@latest`, `@openai/codex@1.2`).
  if (!token.startsWith('/') && !token.startsWith('.') && tokParts.length === want.length && eqAt(0)) return true;
  for (let i = 0; i < tokParts.length; i++) {
    if (PACKAGE_DIRS.has(tokParts[i]!) && eqAt(i + 1)) return true;
  }
  return false;
}

export interface ManifestCheck {
  id: string;
  matched: string | null;
  /** Why it refused: what each predicate compared against. */
  reasons: string[];
}

export interface ProcessMatch {
  manifest: Manifest;
  predicate: string;
}

/** Tries every manifest in lookup order on one process; the first match decides. */
export function matchProcess(p: ProcInfo, manifests: Manifest[], checks?: ManifestCheck[]): ProcessMatch | null {
  const interp = isInterpreter(p);
  const token = interp && p.argv ? eligibleToken(p.argv) : null;
  const eb = exeBase(p);
  const a0 = argv0Base(p);
  for (const m of manifests) {
    const d = m.detect;
    if (!d) continue;
    const reasons: string[] = [];
    let hit: string | null = null;
    const nameHit = (() => {
      if (p.comm && d.comm.some((c) => c.slice(0, 15) === p.comm)) return `comm=${p.comm}`;
      if (a0 && d.argv0.includes(a0)) return `argv0=${a0}`;
      return null;
    })();
    if (nameHit) {
      const req = d.require;
      if (!req) hit = nameHit;
      else {
        // Either kind of evidence corroborates: the runtime behind the name, or where it lives.
        const baseOk = !!req.exe_base?.length && eb !== null && req.exe_base.includes(eb);
        const globOk = !!req.exe_glob?.length && p.exe !== null && m.requireGlobs.some((g) => g.test(p.exe!));
        if (baseOk || globOk) hit = nameHit;
        else reasons.push(`${nameHit} needs corroboration: exe ${p.exe ?? '(unreadable)'} is not ${[...(req.exe_base ?? []), ...(req.exe_glob ?? [])].join(' or ')}`);
      }
    } else if (d.comm.length || d.argv0.length) {
      reasons.push(`comm ${JSON.stringify(p.comm)} and argv0 ${JSON.stringify(a0)} are not ${[...new Set([...d.comm, ...d.argv0])].join(', ')}`);
    }
    if (!hit && p.exe && m.exeGlobs.length) {
      const g = m.exeGlobs.find((x) => x.test(p.exe!));
      if (g) hit = `exe_glob=${g.source}`;
      else reasons.push(`exe ${p.exe} matches no exe_glob`);
    }
    if (!hit && d.argv_path.length) {
      if (!interp) reasons.push('argv_path is read only for an interpreter');
      else if (!token) reasons.push('the interpreter has no script token');
      else {
        const pkg = d.argv_path.find((x) => tokenNamesPackage(token, x) || (p.argvResolved && tokenNamesPackage(p.argvResolved, x)));
        if (pkg) hit = `argv_path=${pkg}`;
        else reasons.push(`the script ${token} names no package ${d.argv_path.join(', ')}`);
      }
    }
    checks?.push({ id: m.id, matched: hit, reasons });
    if (hit) return { manifest: m, predicate: hit };
  }
  return null;
}

export interface Verdict {
  /** agent: a harness runs; shell: the pane's shell is in the foreground; other: something else. */
  kind: 'agent' | 'shell' | 'other' | 'unreadable';
  harness: string | null;
  identity: Identity;
  manifest: Manifest | null;
  /** The foreground process group leader. */
  leader: ProcInfo | null;
  /** The process that was recognised (the leader or one behind it). */
  process: ProcInfo | null;
  /** Processes read behind a wrapper, in walk order. */
  behind: ProcInfo[];
  predicate: string | null;
  checks: ManifestCheck[];
  notCounted: string[];
  evidence: string[];
  interpreter: boolean;
  token: string | null;
  hint: string | null;
}

export interface IdentifyOptions {
  manifests: Manifest[];
  /** agent_binaries and TUIOS_AGENT_BINARIES: names marked as agents with no manifest. */
  extraBinaries: string[];
  findByName(name: string): Manifest | undefined;
}

function resolveToken(p: ProcInfo, r: ProcReader): void {
  if (!isInterpreter(p) || !p.argv) return;
  const t = eligibleToken(p.argv);
  p.argvResolved = t ? r.realpath(t, p.cwd) : null;
}

/** The words of a process a person might read as a harness name, which tuios does not count. */
function wordsNotCounted(p: ProcInfo, manifests: Manifest[], counted: string | null): string[] {
  const words = new Set<string>();
  for (const m of manifests) for (const n of [...m.names, ...(m.detect?.argv_path ?? []).map((x) => pkgParts(x).pop()!)]) if (n.length >= 3) words.add(n);
  const out: string[] = [];
  const args = (p.argv ?? []).slice(1);
  for (const a of args) {
    if (counted && a === counted) continue;
    for (const w of words) {
      const re = new RegExp(`(^|[^A-Za-z0-9])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^A-Za-z0-9])`);
      if (re.test(a)) {
        out.push(`The argument ${JSON.stringify(a)} contains the word "${w}". A word inside an argument is not evidence.`);
        break;
      }
    }
  }
  if (p.exe) {
    const dirs = p.exe.split('/').slice(0, -1);
    for (const w of words) {
      if (dirs.includes(w)) out.push(`The executable's folder ${JSON.stringify(p.exe)} contains the word "${w}". A directory name is not a program name.`);
    }
  }
  return out;
}

function nameOf(p: ProcInfo): string {
  return p.comm ?? argv0Base(p) ?? `pid ${p.pid}`;
}

/** Identifies the harness in a foreground process group. `shellPid` is the pane's own shell. */
export function identify(fgPgid: number, shellPid: number, r: ProcReader, o: IdentifyOptions): Verdict {
  const v: Verdict = { kind: 'other', harness: null, identity: '', manifest: null, leader: null, process: null, behind: [], predicate: null, checks: [], notCounted: [], evidence: [], interpreter: false, token: null, hint: null };
  if (fgPgid === shellPid) {
    v.kind = 'shell';
    v.leader = r.info(shellPid);
    v.evidence.push('The pane\'s shell is in the foreground.');
    return v;
  }
  const leader = r.info(fgPgid);
  if (!leader) {
    v.kind = 'unreadable';
    v.evidence.push(`The foreground process ${fgPgid} cannot be read.`);
    return v;
  }
  v.leader = leader;
  v.interpreter = isInterpreter(leader);
  v.token = v.interpreter && leader.argv ? eligibleToken(leader.argv) : null;

  const tryProcess = (p: ProcInfo, checks: ManifestCheck[]): boolean => {
    resolveToken(p, r);
    const m = matchProcess(p, o.manifests, checks);
    if (m) {
      v.kind = 'agent';
      v.harness = m.manifest.id;
      v.manifest = m.manifest;
      v.identity = 'manifest';
      v.process = p;
      v.predicate = m.predicate;
      return true;
    }
    const names = [p.comm, argv0Base(p)].filter((x): x is string => !!x);
    const listed = o.extraBinaries.find((b) => names.includes(b));
    if (listed) {
      const mm = o.findByName(listed);
      v.kind = 'agent';
      v.harness = mm?.id ?? listed;
      v.manifest = mm ?? null;
      v.identity = 'list';
      v.process = p;
      v.predicate = `agent_binaries=${listed}`;
      return true;
    }
    return false;
  };

  if (tryProcess(leader, v.checks)) {
    v.evidence.push(`The process ${nameOf(leader)} matched the manifest ${v.harness} on ${v.predicate}.`);
  } else if (isWrapper(leader)) {
    // Depth first through the leader's own process group, bounded.
    const seen = new Set<number>([leader.pid]);
    const stack: Array<{ pid: number; depth: number }> = r.children(leader.pid).reverse().map((pid) => ({ pid, depth: 1 }));
    while (stack.length > 0 && v.behind.length < WALK_MAX_PROCESSES) {
      const { pid, depth } = stack.pop()!;
      if (seen.has(pid)) continue;
      seen.add(pid);
      const p = r.info(pid);
      if (!p || p.pgrp !== leader.pgrp) continue; // a background job is never read
      v.behind.push(p);
      const checks: ManifestCheck[] = [];
      if (tryProcess(p, checks)) {
        v.checks = checks;
        v.evidence.push(`The foreground process ${nameOf(leader)} is a wrapper, so tuios read the processes behind it.`);
        v.evidence.push(`The process ${nameOf(p)} matched the manifest ${v.harness} on ${v.predicate}.`);
        break;
      }
      if (depth < WALK_MAX_DEPTH && isWrapper(p)) for (const c of r.children(pid).reverse()) stack.push({ pid: c, depth: depth + 1 });
    }
    if (v.kind !== 'agent') v.evidence.push(`The process ${nameOf(leader)} is a wrapper. None of the ${v.behind.length} processes behind it is an agent.`);
  } else {
    v.evidence.push(`The foreground process is ${nameOf(leader)}, which is neither an agent nor a wrapper; its children are not its identity.`);
  }

  if (v.kind !== 'agent') {
    // TUIOS_AGENT on the foreground process names the harness, for what the walk cannot see.
    const hint = r.env(leader.pid, 'TUIOS_AGENT');
    if (hint) {
      const m = o.findByName(hint);
      if (m) {
        v.kind = 'agent';
        v.harness = m.id;
        v.manifest = m;
        v.identity = 'hint';
        v.process = leader;
        v.hint = hint;
        v.predicate = `TUIOS_AGENT=${hint}`;
        v.evidence.push(`named by TUIOS_AGENT=${hint} on pid ${leader.pid}`);
      } else {
        v.evidence.push(`TUIOS_AGENT=${hint} on pid ${leader.pid} names no manifest, so it is ignored.`);
      }
    }
  }
  const counted = v.kind === 'agent' && v.predicate?.startsWith('argv_path') ? (v.process?.argv ? eligibleToken(v.process.argv) : null) : null;
  for (const p of [leader, ...v.behind]) v.notCounted.push(...wordsNotCounted(p, o.manifests, p === v.process ? counted : null));
  if (v.kind === 'agent') v.evidence.push(v.identity === 'hint' ? 'A hint is strong evidence, and a real agent binary would win over it.' : 'A process name is strong evidence.');
  return v;
}

/** The verdict as the spec's explain text. */
export function explainText(v: Verdict): string {
  const lines: string[] = [];
  if (v.kind === 'agent') {
    const behind = v.process && v.leader && v.process.pid !== v.leader.pid ? ` behind ${nameOf(v.leader)}` : '';
    lines.push(`This pane runs ${v.harness}${behind}.`);
  } else if (v.kind === 'shell') lines.push('This pane does not run an agent. Its shell is in the foreground.');
  else if (v.kind === 'unreadable') lines.push('This pane\'s foreground process cannot be read, so tuios has no opinion.');
  else lines.push(`This pane does not run an agent. The foreground process is ${v.leader ? nameOf(v.leader) : 'unknown'}.`);
  for (const e of v.evidence) lines.push(`  ${e}`);
  if (v.notCounted.length) {
    lines.push('', 'words tuios saw and did not count:');
    for (const n of v.notCounted) lines.push(`  ${n}`);
  }
  const show = (label: string, p: ProcInfo) => `  ${label} pid ${p.pid}: comm=${JSON.stringify(p.comm)} argv=${JSON.stringify(p.argv)} exe=${JSON.stringify(p.exe)}`;
  if (v.leader) {
    lines.push('', 'read:');
    lines.push(show('leader', v.leader));
    lines.push(`  interpreter: ${v.interpreter ? 'yes' : 'no'}${v.token ? `, eligible token ${JSON.stringify(v.token)}` : ''}`);
    for (const p of v.behind) lines.push(show('behind', p));
  }
  if (v.checks.length) {
    lines.push('', 'manifests, in lookup order:');
    for (const c of v.checks) lines.push(`  ${c.id}: ${c.matched ? `matched on ${c.matched}` : c.reasons.join('; ') || 'refused'}`);
  }
  return lines.join('\n');
}
