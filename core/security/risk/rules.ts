// The shipped risk rules, exactly the spec's table (Risk rules). Each reads one simple command,
// after wrappers, and says why it matched in a few words that name the command.
import { gitCall } from './git.js';
import { hasFlag, parseOpts } from './options.js';
import { normalizePath, type PathJudge } from './paths.js';
import { HOME, VAR, hasMarker, shown, type SimpleCommand, type Word } from './words.js';
import { writtenPaths } from './writes.js';

export const RULE_NAMES = [
  'recursive delete',
  'force push',
  'hard reset',
  'clean',
  'discard changes',
  'pipe to shell',
  'sudo',
  'disk',
  'wide permissions',
  'database',
  'infrastructure',
  'outside the worktree',
] as const;
export type RuleName = (typeof RULE_NAMES)[number];

export interface RuleEnv {
  judge: PathJudge;
  home: string | null;
  /** Every command of the call, for rules that look across a pipeline. */
  all: readonly SimpleCommand[];
}

interface Rule {
  name: RuleName;
  /** Why the command matched, or null. */
  check(cmd: SimpleCommand, env: RuleEnv): string | null;
}

const DOWNLOADERS = new Set(['curl', 'wget']);
/** What runs a script it is given: the shells and interpreters of the table. */
const RUNNERS = /^(sh|bash|zsh|dash|ksh|mksh|ash|fish|python[0-9.]*|node|nodejs)$/;
const SOURCES = new Set(['eval', 'source', '.']);
const BLOCK_DEVICE = /^\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|md\d|dm-\d|loop\d|nbd\d|zd\d|rbd\d|disk\/|mapper\/)/;
const FORMATTERS = /^(mkfs(\..+)?|mke2fs|mkswap|wipefs|blkdiscard)$/;
const SQL = /\b(drop\s+(?:table|database)|truncate\s+table)\b/i;
const WHOLE_TREE = new Set(['.', './', ':/', ':/.', ':(top)']);

/** The command as written, short enough for a why. */
const named = (cmd: SimpleCommand) => {
  const t = shown(cmd.text);
  return t.length > 48 ? t.slice(0, 47) + '…' : t;
};

const list = (xs: string[]) => (xs.length <= 3 ? xs.join(', ') : `${xs.slice(0, 3).join(', ')} and ${xs.length - 3} more`);

/** The index of the first word after `start` that is not an option or an option's value. */
function subcommandAt(w: readonly Word[], start: number, valued: readonly string[]): number {
  let i = start;
  while (i < w.length) {
    const v = w[i]!.value;
    if (!v.startsWith('-') && !v.startsWith('+')) return i;
    i += valued.includes(v) ? 2 : 1;
  }
  return -1;
}

/** The absolute path a value names, or null when it has an expansion or no folder to read it from. */
function absolute(value: string, cwd: string | null, home: string | null): string | null {
  const lead = value.startsWith(HOME);
  const rest = lead ? value.slice(1) : value;
  if (rest.includes(VAR) || rest.includes(HOME)) return null;
  if (lead) return home === null ? null : normalizePath(home + '/' + rest);
  if (rest.startsWith('/')) return normalizePath(rest);
  return cwd === null ? null : normalizePath(cwd + '/' + rest);
}

/** `/`, the home folder, or a folder above it (`/home`), also as `/*` or `~/*`. */
function isTop(value: string, cwd: string | null, home: string | null): boolean {
  const abs = absolute(value.replace(/\/\*$/, '/').replace(/^\*$/, '.'), cwd, home);
  if (abs === null) return false;
  return abs === '/' || (home !== null && (home === abs || home.startsWith(abs + '/')));
}

/** Anyone may write: an octal mode with the others' write bit, or `a+w`, `o+rwx`, `o=w`... */
function worldWritable(mode: string): boolean {
  if (/^[0-7]{3,4}$/.test(mode)) return (parseInt(mode[mode.length - 1]!, 8) & 2) !== 0;
  return mode.split(',').some((m) => /^[ugo]*[ao][ugo]*[+=][rwxXst]*w/.test(m));
}

function downloadRunsIn(cmd: SimpleCommand, all: readonly SimpleCommand[]): SimpleCommand | null {
  for (const p of cmd.pipes) {
    for (const c of all) {
      if (c === cmd) continue;
      const later = c.pipes.some((q) => q.id === p.id && q.stage > p.stage);
      if (later && ((c.program !== null && RUNNERS.test(c.program)) || c.sudo)) return c;
    }
  }
  return null;
}

/** A substitution in the command's words or redirects that runs a download. */
function substitutedDownload(cmd: SimpleCommand): string | null {
  const words = [...cmd.words, ...cmd.redirects.flatMap((r) => (r.target ? [r.target] : []))];
  for (const w of words) for (const s of w.subs) for (const c of s.commands) if (c.program && DOWNLOADERS.has(c.program)) return c.program;
  return null;
}

const RULES: Rule[] = [
  {
    name: 'recursive delete',
    check(cmd) {
      if (cmd.program !== 'rm') return null;
      const o = parseOpts(cmd.words, 1);
      if (!hasFlag(o, '-r', '-R', '--recursive') || !hasFlag(o, '-f', '--force')) return null;
      const what = o.operands.map((a) => a.text);
      return `rm -rf deletes ${what.length > 0 ? list(what) : 'what it is given'} and everything under it, without asking`;
    },
  },
  {
    name: 'force push',
    check(cmd, env) {
      const g = gitCall(cmd, env.home);
      if (!g || g.sub !== 'push') return null;
      const o = parseOpts(g.args, 0, { valued: 'o', longValued: ['repo', 'push-option', 'receive-pack', 'exec'] });
      const flag = ['--force', '-f', '--force-with-lease'].find((f) => o.flags.has(f));
      const plus = o.operands.find((a) => a.value.length > 1 && a.value.startsWith('+'));
      if (!flag && !plus) return null;
      return `git push ${flag ?? shown(plus!.value)} overwrites the remote branch's history`;
    },
  },
  {
    name: 'hard reset',
    check(cmd, env) {
      const g = gitCall(cmd, env.home);
      if (!g || g.sub !== 'reset' || !parseOpts(g.args, 0).flags.has('--hard')) return null;
      return 'git reset --hard throws away uncommitted changes';
    },
  },
  {
    name: 'clean',
    check(cmd, env) {
      const g = gitCall(cmd, env.home);
      if (!g || g.sub !== 'clean') return null;
      const o = parseOpts(g.args, 0, { valued: 'e', longValued: ['exclude'] });
      if (!hasFlag(o, '-f', '--force') || hasFlag(o, '-n', '--dry-run')) return null;
      return `git clean -f deletes untracked files${hasFlag(o, '-x') ? ', ignored ones too' : ''}`;
    },
  },
  {
    name: 'discard changes',
    check(cmd, env) {
      const g = gitCall(cmd, env.home);
      if (!g) return null;
      if (g.sub === 'checkout') {
        const o = parseOpts(g.args, 0, { valued: 'bB', longValued: ['orphan', 'conflict', 'pathspec-from-file'] });
        if (o.operands.some((a) => WHOLE_TREE.has(a.value))) return `${named(cmd)} throws away uncommitted changes`;
      }
      if (g.sub === 'restore') {
        const o = parseOpts(g.args, 0, { valued: 's', longValued: ['source', 'conflict', 'pathspec-from-file'] });
        const stagedOnly = hasFlag(o, '-S', '--staged') && !hasFlag(o, '-W', '--worktree');
        if (!stagedOnly && o.operands.some((a) => WHOLE_TREE.has(a.value))) return `${named(cmd)} throws away uncommitted changes`;
      }
      return null;
    },
  },
  {
    name: 'pipe to shell',
    check(cmd, env) {
      const p = cmd.program;
      if (p === null) return null;
      if (DOWNLOADERS.has(p)) {
        const runner = downloadRunsIn(cmd, env.all);
        if (runner) return `${p}'s download is piped to ${runner.program ?? 'a command'}${runner.sudo ? ' under sudo' : ''}`;
      }
      if (RUNNERS.test(p) || SOURCES.has(p)) {
        const d = substitutedDownload(cmd);
        if (d) return `${p} runs what ${d} downloads`;
      }
      return null;
    },
  },
  {
    name: 'sudo',
    check(cmd) {
      if (cmd.program === 'sudoedit') return 'sudoedit edits a file as root';
      if (!cmd.sudo) return null;
      return `${cmd.program ?? 'a command'} runs as root through sudo`;
    },
  },
  {
    name: 'disk',
    check(cmd, env) {
      const p = cmd.program;
      if (p === 'dd') {
        const of = cmd.words.find((w) => w.value.startsWith('of='));
        if (of) return `dd writes straight to ${shown(of.value.slice(3)) || 'a file'}`;
      }
      if (p !== null && FORMATTERS.test(p)) return `${p} wipes or formats a disk`;
      for (const t of writtenPaths(cmd, env.home)) {
        if (!t.value.includes('dev') && !(t.cwd ?? '').startsWith('/dev')) continue; // cheap before resolving
        const abs = absolute(t.value, t.cwd, env.home);
        if (abs !== null && BLOCK_DEVICE.test(abs)) return `${p ?? 'a redirect'} writes to the disk ${abs}`;
      }
      return null;
    },
  },
  {
    name: 'wide permissions',
    check(cmd, env) {
      const p = cmd.program;
      if (p !== 'chmod' && p !== 'chown' && p !== 'chgrp') return null;
      const w = cmd.words.slice(1);
      const recursive = w.some((x) => x.value === '--recursive' || /^-[Rvcfh]*R[Rvcfh]*$/.test(x.value));
      if (!recursive) return null;
      const ops = w.filter((x) => !/^-[Rvcfh]+$/.test(x.value) && !x.value.startsWith('--'));
      const [mode, ...targets] = ops;
      const top = targets.find((t) => isTop(t.value, cmd.cwd, env.home));
      if (p === 'chmod' && mode && !hasMarker(mode.value) && worldWritable(mode.value)) return `chmod -R ${mode.value} lets anyone write every file under ${targets.length > 0 ? list(targets.map((t) => shown(t.value))) : 'it'}`;
      if (top) return `${p} -R changes every file under ${shown(top.value)}`;
      return null;
    },
  },
  {
    name: 'database',
    check(cmd) {
      const texts = [cmd.text, ...cmd.redirects.map((r) => r.body ?? '')];
      for (const t of texts) {
        const m = SQL.exec(t);
        if (m) return `${cmd.program ?? 'the command'} runs ${m[1]!.toUpperCase().replace(/\s+/g, ' ')}, which deletes data`;
      }
      return null;
    },
  },
  {
    name: 'infrastructure',
    check(cmd) {
      const p = cmd.program;
      const w = cmd.words;
      const sub = (valued: string[], from = 1) => w[subcommandAt(w, from, valued)]?.value;
      if (p === 'terraform') {
        const s = sub([]);
        if (s === 'apply' || s === 'destroy') return `terraform ${s} changes live infrastructure`;
      }
      if (p === 'kubectl') {
        const valued = ['-n', '--namespace', '--context', '--cluster', '--kubeconfig', '-s', '--server', '--user', '--token', '--as', '--as-group', '--cache-dir', '--request-timeout', '-v'];
        if (sub(valued) === 'delete') return 'kubectl delete removes live cluster resources';
      }
      if (p === 'docker') {
        const valued = ['-H', '--host', '--context', '-c', '--config', '-l', '--log-level', '--tlscacert', '--tlscert', '--tlskey'];
        const i = subcommandAt(w, 1, valued);
        if (i !== -1 && w[i]!.value === 'system' && w[subcommandAt(w, i + 1, [])]?.value === 'prune') return 'docker system prune deletes containers, images and volumes';
      }
      if (p === 'npm' && sub(['--registry', '--prefix', '--userconfig', '--cache', '-w', '--workspace']) === 'publish') return 'npm publish publishes a package to the registry';
      if (p === 'cargo' && sub(['-C', '--config', '-Z', '--color', '--manifest-path']) === 'publish') return 'cargo publish publishes a crate to crates.io';
      return null;
    },
  },
  {
    name: 'outside the worktree',
    check(cmd, env) {
      const out = writtenPaths(cmd, env.home).filter((t) => env.judge.outside(t.value, t.partial, t.cwd));
      if (out.length === 0) return null;
      return `${cmd.program ?? 'a redirect'} writes ${list(out.map((t) => (t.partial ? t.text + '…' : t.text)))}, outside the worktree`;
    },
  },
];

export interface RuleHit {
  rule: RuleName;
  why: string;
}

/** The shipped rules that match one command. */
export function shippedHits(cmd: SimpleCommand, env: RuleEnv): RuleHit[] {
  const hits: RuleHit[] = [];
  for (const r of RULES) {
    const why = r.check(cmd, env);
    if (why !== null) hits.push({ rule: r.name, why });
  }
  return hits;
}
