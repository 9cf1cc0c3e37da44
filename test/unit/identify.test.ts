// Identification over recorded process descriptions (what /proc showed), no live processes.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identify, eligibleToken, isInteractiveShellArgv, tokenNamesPackage, type ProcInfo, type ProcReader } from '../../core/detection/identify.js';
import { loadManifests, findHarness, compileManifest, PathGlob } from '../../core/detection/manifest.js';
import { nullLogger } from '../../core/log.js';
import { ROOT } from '../helpers/daemon.js';

const set = loadManifests(join(ROOT, 'manifests'), null, nullLogger);

type Rec = Omit<ProcInfo, 'ppid' | 'pgrp' | 'cwd'> & { ppid?: number; pgrp?: number; cwd?: string; children?: number[]; env?: Record<string, string> };

function reader(procs: Rec[]): ProcReader {
  const by = new Map(procs.map((p) => [p.pid, p]));
  return {
    info: (pid) => {
      const p = by.get(pid);
      return p ? { pid: p.pid, ppid: p.ppid ?? 1, pgrp: p.pgrp ?? procs[0]!.pid, comm: p.comm, argv: p.argv, exe: p.exe, cwd: p.cwd ?? '/home/u' } : null;
    },
    children: (pid) => by.get(pid)?.children ?? [],
    env: (pid, name) => (by.has(pid) ? (by.get(pid)!.env?.[name] ?? null) : undefined),
    realpath: (path) => LINKS[path] ?? path,
  };
}

/** Symlinks as npm lays them out: a bin in node_modules/.bin points into its package. */
const LINKS: Record<string, string> = {
  '/root/.npm/_npx/1/node_modules/.bin/codex': '/root/.npm/_npx/1/node_modules/@openai/codex/bin/codex.js',
};

function who(procs: Rec[]): string | null {
  const v = identify(procs[0]!.pid, 1, reader(procs), { manifests: set.list, extraBinaries: [], findByName: (n) => findHarness(set, n) });
  return v.kind === 'agent' ? v.harness : null;
}

test('every bundled manifest loads', () => {
  assert.equal(set.failures, []);
  for (const id of ['claude-code', 'codex', 'gemini-cli', 'opencode', 'kilo', 'amp', 'pi', 'omp', 'kimi', 'qwen', 'copilot', 'cursor-agent', 'crush', 'kiro', 'goose', 'cline', 'aider', 'antigravity', 'devin', 'droid', 'qoder', 'grok', 'hermes']) {
    assert.ok(set.byId.has(id), id);
  }
});

test('comm, argv0 and exe_glob on a native binary', () => {
  assert.is(who([{ pid: 10, comm: 'claude', argv: ['claude'], exe: '/home/u/.local/node_modules/@anthropic-ai/claude-code/bin/claude.exe' }]), 'claude-code');
  assert.is(who([{ pid: 10, comm: 'opencode', argv: ['/x/.bin/opencode'], exe: '/x/node_modules/opencode-ai/bin/opencode.exe' }]), 'opencode');
  assert.is(who([{ pid: 10, comm: 'MainThread', argv: ['x'], exe: '/opt/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex' }]), 'codex', 'exe_glob alone');
});

test('argv_path names a package after node_modules, for an interpreter only', () => {
  assert.is(who([{ pid: 10, comm: 'node', argv: ['node', '/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js'], exe: '/usr/bin/node' }]), 'claude-code');
  assert.is(who([{ pid: 10, comm: 'node', argv: ['node', '--max-old-space-size=12052', '/a/node_modules/@google/gemini-cli/dist/index.js'], exe: '/usr/bin/node' }]), 'gemini-cli');
  assert.is(who([{ pid: 10, comm: 'vim', argv: ['vim', '/a/node_modules/@anthropic-ai/claude-code/cli.js'], exe: '/usr/bin/vim' }]), null, 'an editor opening the file is not the agent');
});

test('a directory name is not a program name', () => {
  assert.is(who([{ pid: 10, comm: 'deploy.sh', argv: ['/bin/bash', '/home/u/claude/deploy.sh'], exe: '/usr/bin/bash' }]), null, '~/claude/deploy.sh');
  assert.is(who([{ pid: 10, comm: 'tail', argv: ['tail', '-f', '/home/u/dev/opencode/main.go'], exe: '/usr/bin/tail' }]), null, 'tail -f ~/dev/opencode/main.go');
  assert.is(who([{ pid: 10, comm: 'python3', argv: ['python3', '-m', 'pytest', 'tests/aider/test_x.py'], exe: '/usr/bin/python3.11' }]), null, 'python3 -m pytest tests/aider/test_x.py');
  assert.is(who([{ pid: 10, comm: 'opencode-legacy', argv: ['opencode-legacy'], exe: '/usr/local/bin/opencode-legacy' }]), null, 'opencode-legacy');
  assert.is(who([{ pid: 10, comm: 'build', argv: ['/home/u/dev/claude-code/build'], exe: '/home/u/dev/claude-code/build' }]), null, 'a binary built under ~/dev/claude-code');
});

test('the whole token, with a version pin: npx opencode@latest', () => {
  assert.is(who([{ pid: 10, comm: 'npx', argv: ['npx', 'opencode@latest'], exe: '/usr/bin/node' }]), 'opencode');
  assert.is(who([{ pid: 10, comm: 'npx', argv: ['npx', '@openai/codex@0.171.0'], exe: '/usr/bin/node' }]), 'codex');
  assert.ok(tokenNamesPackage('/x/node_modules/opencode-ai/bin/opencode', 'opencode-ai'));
  assert.not.ok(tokenNamesPackage('/x/node_modules/opencode-ai-legacy/bin/x', 'opencode-ai'));
  assert.not.ok(tokenNamesPackage('/home/u/dev/opencode/main.go', 'opencode'), 'a checkout, not a package directory');
  assert.is(eligibleToken(['bun', 'run', 'x.ts']), 'x.ts');
  assert.is(eligibleToken(['node', '-r', 'tsx', 'y.js']), 'y.js');
  assert.is(eligibleToken(['python3', '-c', 'print(1)']), null);
});

test('short names need corroboration, and an unreadable exe fails it', () => {
  assert.is(who([{ pid: 10, comm: 'pi', argv: ['pi          '], exe: '/usr/bin/node' }]), 'pi');
  assert.is(who([{ pid: 10, comm: 'pi', argv: ['pi'], exe: '/usr/bin/python3' }]), null, 'a pi calculator in python');
  assert.is(who([{ pid: 10, comm: 'pi', argv: ['pi'], exe: null }]), null, 'silence is not evidence');
  assert.is(who([{ pid: 10, comm: 'goose', argv: ['goose'], exe: '/opt/homebrew/bin/goose' }]), null, 'homebrew goose is a migration tool');
  assert.is(who([{ pid: 10, comm: 'goose', argv: ['goose'], exe: '/home/u/.local/bin/goose' }]), 'goose');
});

test('a manifest matching a short name without [detect.require] is refused', () => {
  assert.throws(() => compileManifest('id = "x"\nname = "X"\n[detect]\ncomm = ["xy"]\n', 'x.toml', 'bundled'), /shorter than 5/);
});

test('behind wrappers: sh -c, timeout, env; never another process group', () => {
  const agent = { pid: 12, comm: 'claude', argv: ['claude'], exe: '/x/claude-code/bin/claude.exe', pgrp: 10 };
  assert.is(who([{ pid: 10, comm: 'sh', argv: ['sh', '-c', 'claude; true'], exe: '/usr/bin/dash', children: [12] }, agent]), 'claude-code');
  assert.is(who([{ pid: 10, comm: 'timeout', argv: ['timeout', '600', 'claude'], exe: '/usr/bin/timeout', children: [12] }, agent]), 'claude-code');
  assert.is(who([{ pid: 10, comm: 'sh', argv: ['sh', '-c', 'claude &'], exe: '/usr/bin/dash', children: [12] }, { ...agent, pgrp: 12 }]), null, 'a background job is never read');
  assert.is(who([{ pid: 10, comm: 'vim', argv: ['vim'], exe: '/usr/bin/vim', children: [12] }, agent]), null, 'an editor ends the search');
});

test('the walk is bounded: depth 4', () => {
  const chain: Rec[] = [];
  for (let i = 0; i < 6; i++) chain.push({ pid: 10 + i, comm: 'sh', argv: ['sh', '-c', 'x'], exe: '/usr/bin/dash', children: [11 + i], pgrp: 10 });
  chain.push({ pid: 16, comm: 'claude', argv: ['claude'], exe: '/x/claude-code/bin/claude.exe', pgrp: 10 });
  assert.is(who(chain), null, 'six shells deep is past the bound');
  assert.is(who([...chain.slice(0, 3).map((p, i) => (i === 2 ? { ...p, children: [16] } : p)), chain[6]!]), 'claude-code');
});

test('behind launchers: npx, uvx, mise exec, nix develop -c', () => {
  // npx renames itself ("npm exec @opena"), runs sh -c, which runs the package's bin with node.
  assert.is(
    who([
      { pid: 10, comm: 'npm exec @opena', argv: ['npm exec @openai/codex'], exe: '/usr/bin/node', children: [11] },
      { pid: 11, comm: 'sh', argv: ['sh', '-c', 'codex'], exe: '/usr/bin/dash', children: [12], pgrp: 10 },
      { pid: 12, comm: 'node', argv: ['node', '/root/.npm/_npx/1/node_modules/.bin/codex'], exe: '/usr/bin/node', pgrp: 10 },
    ]),
    'codex',
  );
  assert.is(
    who([
      { pid: 10, comm: 'uvx', argv: ['uvx', 'aider-chat'], exe: '/root/.local/bin/uvx', children: [11] },
      { pid: 11, comm: 'aider', argv: ['/root/.cache/uv/archive-v0/x/bin/python', '/root/.cache/uv/archive-v0/x/bin/aider'], exe: '/usr/bin/python3.12', pgrp: 10 },
    ]),
    'aider',
  );
  assert.is(
    who([
      { pid: 10, comm: 'mise', argv: ['mise', 'exec', '--', 'opencode'], exe: '/usr/local/bin/mise', children: [11] },
      { pid: 11, comm: 'opencode', argv: ['opencode'], exe: '/root/.local/share/mise/installs/node/22/lib/node_modules/opencode-ai/bin/opencode.exe', pgrp: 10 },
    ]),
    'opencode',
  );
  assert.is(
    who([
      { pid: 10, comm: 'nix', argv: ['nix', 'develop', '-c', 'claude'], exe: '/nix/store/abc-nix-2.24/bin/nix', children: [11] },
      { pid: 11, comm: 'bash', argv: ['bash', '-c', 'claude'], exe: '/nix/store/def-bash-5.2/bin/bash', children: [12], pgrp: 10 },
      { pid: 12, comm: 'claude', argv: ['claude'], exe: '/nix/store/ghi-claude-code-2.1/bin/claude', pgrp: 10 },
    ]),
    'claude-code',
  );
});

test('the walk is bounded: 24 processes', () => {
  const kids = Array.from({ length: 30 }, (_, i) => 100 + i);
  const leader: Rec = { pid: 10, comm: 'sh', argv: ['sh', '-c', 'x'], exe: '/usr/bin/dash', children: kids };
  const idle = (pid: number): Rec => ({ pid, comm: 'cat', argv: ['cat'], exe: '/usr/bin/cat', pgrp: 10 });
  const agentAt = (i: number): Rec[] => kids.map((pid, k) => (k === i ? { pid, comm: 'claude', argv: ['claude'], exe: '/x/claude-code/bin/claude.exe', pgrp: 10 } : idle(pid)));
  assert.is(who([leader, ...agentAt(23)]), 'claude-code', 'the 24th process is read');
  assert.is(who([leader, ...agentAt(24)]), null, 'the 25th is past the bound');
  const v = identify(10, 1, reader([leader, ...agentAt(29)]), { manifests: set.list, extraBinaries: [], findByName: (n) => findHarness(set, n) });
  assert.is(v.behind.length, 24);
});

test('argv0 alone names a process whose comm says something else', () => {
  assert.is(who([{ pid: 10, comm: 'MainThread', argv: ['/home/u/.local/bin/claude', '--resume'], exe: '/opt/custom/runtime' }]), 'claude-code');
  assert.is(who([{ pid: 10, comm: 'MainThread', argv: ['/home/u/bin/not-claude'], exe: '/opt/custom/runtime' }]), null);
});

test('TUIOS_AGENT names a harness on what the walk cannot see; a real binary wins', () => {
  assert.is(who([{ pid: 10, comm: 'docker', argv: ['docker', 'run', 'x'], exe: '/usr/bin/docker', env: { TUIOS_AGENT: 'claude-code' } }]), 'claude-code');
  assert.is(who([{ pid: 10, comm: 'ssh', argv: ['ssh', 'box', 'codex'], exe: '/usr/bin/ssh', env: { TUIOS_AGENT: 'codex' } }]), 'codex');
  assert.is(who([{ pid: 10, comm: 'ssh', argv: ['ssh'], exe: '/usr/bin/ssh', env: { TUIOS_AGENT: 'not-a-harness' } }]), null);
  assert.is(who([{ pid: 10, comm: 'opencode', argv: ['opencode'], exe: '/x/opencode-ai/bin/opencode.exe', env: { TUIOS_AGENT: 'codex' } }]), 'opencode');
  assert.is(who([{ pid: 10, comm: 'docker', argv: ['docker'], exe: '/usr/bin/docker', env: { TUIOS_AGENT: 'claude' } }]), 'claude-code', 'by a name the manifest answers to');
  assert.is(who([{ pid: 10, comm: 'docker', argv: ['docker'], exe: '/usr/bin/docker' }]), null, 'an environment without the hint');
});

test('agent_binaries mark a name with no manifest', () => {
  const v = identify(10, 1, reader([{ pid: 10, comm: 'myagent', argv: ['myagent'], exe: '/opt/myagent' }]), { manifests: set.list, extraBinaries: ['myagent'], findByName: (n) => findHarness(set, n) });
  assert.equal([v.kind, v.harness, v.identity], ['agent', 'myagent', 'list']);
});

test('invalid manifests are dropped whole; a user manifest replaces a bundled one whole', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-manifests-'));
  mkdirSync(join(dir, 'user'));
  writeFileSync(join(dir, 'user', 'bad.toml'), 'id = "bad"\nname = "Bad"\n[detect]\ncomm = [1]\n');
  writeFileSync(join(dir, 'user', 'broken.toml'), 'id = "broken\n');
  writeFileSync(join(dir, 'user', 'codex.toml'), 'id = "codex"\nname = "My Codex"\n[detect]\ncomm = ["mycodex"]\n');
  // A pattern RE2 refuses (a lookahead) drops its manifest whole, detect block and all.
  writeFileSync(join(dir, 'user', 'lookahead.toml'), 'id = "lookahead"\nname = "L"\n[detect]\ncomm = ["lookbot"]\n[[screen.rule]]\nid = "x"\nstate = "working"\nregion = "bottom_non_empty_lines(4)"\nmessage_from = "(?=esc)"\nall = ["esc to interrupt"]\n');
  const warns: Array<Record<string, unknown>> = [];
  const log = { ...nullLogger, warn: (_m: string, f?: Record<string, unknown>) => void warns.push(f ?? {}) };
  const s = loadManifests(join(ROOT, 'manifests'), join(dir, 'user'), log);
  assert.is(s.failures.length, 3, JSON.stringify(s.failures));
  assert.ok(s.failures.every((f) => f.reason.length > 0));
  assert.equal(warns.map((w) => w.file).sort(), s.failures.map((f) => f.file).sort(), 'each is logged at warn with its file');
  assert.ok(warns.every((w) => typeof w.reason === 'string' && w.reason.length > 0), 'and the reason');
  assert.not.ok(s.byId.has('lookahead') || s.byId.has('bad') || s.byId.has('broken'), 'dropped whole');
  const codex = s.byId.get('codex')!;
  assert.is(codex.name, 'My Codex');
  assert.ok(codex.replacesBundled);
  assert.equal(codex.detect!.argv_path, [], 'nothing is inherited from the bundled file');
  assert.is(s.list[0]!.id, 'codex', 'user manifests come first in lookup order');
});

test('exe_glob components: * and ? inside one, ** across, a relative pattern matches a suffix', () => {
  assert.ok(new PathGlob('**/claude').test('/usr/bin/claude'));
  assert.ok(new PathGlob('*/claude').test('/usr/bin/claude'));
  assert.not.ok(new PathGlob('/usr/*/claude').test('/usr/local/bin/claude'));
  assert.ok(new PathGlob('/usr/**/claude').test('/usr/local/bin/claude'));
  assert.ok(new PathGlob('bin/cl?ude').test('/usr/bin/claude'));
  assert.not.ok(new PathGlob('claude').test('/usr/bin/xclaude'));
});

test('an interactive shell by its argv: options only, a login shell, never -c or a script', () => {
  for (const a of [['bash'], ['bash', '--norc', '--noprofile', '-i'], ['-bash'], ['/usr/bin/zsh', '-l'], ['sh', '-i']]) assert.ok(isInteractiveShellArgv(a), a.join(' '));
  // The window's command `env FOO=1 bash`: env is the wrapper; the bash it exec'd is read from the process.
  for (const a of [['env', 'FOO=1', 'bash'], ['bash', '-c', 'claude'], ['sh', '-ec', 'x'], ['bash', 'script.sh'], ['claude'], []]) assert.not.ok(isInteractiveShellArgv(a), a.join(' '));
});

test.run();
