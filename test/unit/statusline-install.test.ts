// `tuios integration install claude-code --statusline [--then CMD]` and its uninstall, on the JSON
// alone and on real settings files in a temp HOME (spec: The status line feed): a status line the
// person wrote is refused with the command that keeps it, --then keeps every key of the entry,
// installing again keeps a chain, uninstall puts the person's command back byte for byte.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { integrationFor } from '../../core/integrations/setup/table.js';
import { install, uninstall, status } from '../../core/integrations/setup/install.js';
import { keepCommand, parseOurs, statusLineCommand, statusLineStatus, withStatusLine, withoutStatusLine } from '../../core/integrations/setup/status-line.js';
import { BIN } from '../helpers/daemon.js';

const cc = integrationFor('claude-code')!;

function home(settings?: string): { env: Record<string, string>; dir: string; file: string; done(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-statusline-'));
  mkdirSync(join(dir, '.claude'));
  const file = join(dir, '.claude', 'settings.json');
  if (settings !== undefined) writeFileSync(file, settings);
  return { env: { HOME: dir }, dir, file, done: () => rmSync(dir, { recursive: true, force: true }) };
}

const THEIRS = '{\n    "theme": "dark",\n    "statusLine": {\n        "type": "command",\n        "command": "~/.claude/statusline.sh --color \\"$HOME\\" && echo \'ok\'",\n        "padding": 0\n    }\n}\n';
const THEIR_CMD = '~/.claude/statusline.sh --color "$HOME" && echo \'ok\'';

test('the command: the marker, and --then with the person\'s command quoted as one word', () => {
  assert.is(statusLineCommand('tuios', null), 'tuios agent-statusline claude-code --integration 1');
  assert.is(statusLineCommand('/opt/my tuios/tuios', "it's.sh"), "'/opt/my tuios/tuios' agent-statusline claude-code --integration 1 --then 'it'\\''s.sh'");
  assert.equal(parseOurs(statusLineCommand('tuios', "it's.sh --x 'y'")), { version: 1, then: "it's.sh --x 'y'" });
  assert.equal(parseOurs(statusLineCommand('tuios', null)), { version: 1, then: null });
  assert.is(parseOurs('~/.claude/statusline.sh'), null);
  assert.is(parseOurs(42), null);
});

test('no status line: the entry is written; uninstall removes it', () => {
  const r = withStatusLine({ theme: 'dark' }, 'tuios', null);
  assert.ok(r.ok);
  assert.equal(r.doc, { theme: 'dark', statusLine: { type: 'command', command: 'tuios agent-statusline claude-code --integration 1' } });
  assert.equal(withoutStatusLine(r.doc), { theme: 'dark' });
  assert.equal(statusLineStatus(r.doc), { state: 'installed', version: 1, then: null });
});

test('a status line of the person\'s is refused, and the refusal names the command that keeps it', () => {
  const doc = JSON.parse(THEIRS);
  const r = withStatusLine(doc, 'tuios', null);
  assert.ok(!r.ok);
  assert.match(r.why, /tuios does not replace/);
  assert.ok(r.why.includes(`tuios integration install claude-code --statusline --then '~/.claude/statusline.sh --color "$HOME" && echo '\\''ok'\\'''`), r.why);
  assert.is(keepCommand('~/x.sh'), "tuios integration install claude-code --statusline --then '~/x.sh'");
  // Another command than theirs after --then would replace theirs: refused too.
  assert.ok(!withStatusLine(doc, 'tuios', 'other.sh').ok);
  // A status line that is not a command is not chained.
  assert.ok(!withStatusLine({ statusLine: { type: 'static', text: 'hi' } }, 'tuios', 'hi').ok);
  assert.ok(!withStatusLine({ statusLine: 'x' }, 'tuios', null).ok);
  assert.equal(statusLineStatus(doc), { state: 'other', version: null, then: null });
});

test('--then keeps every key of the entry, padding included, in its order; again without --then keeps the chain', () => {
  const doc = JSON.parse(THEIRS);
  const r = withStatusLine(doc, 'tuios', THEIR_CMD);
  assert.ok(r.ok);
  const entry = r.doc.statusLine as Record<string, unknown>;
  assert.equal(Object.keys(entry), ['type', 'command', 'padding']);
  assert.is(entry.padding, 0);
  assert.equal(parseOurs(entry.command), { version: 1, then: THEIR_CMD });
  const again = withStatusLine(r.doc, '/usr/local/bin/tuios', null);
  assert.ok(again.ok);
  assert.equal(parseOurs((again.doc.statusLine as Record<string, unknown>).command), { version: 1, then: THEIR_CMD }, 'the chain is kept');
  assert.match(String((again.doc.statusLine as Record<string, unknown>).command), /^\/usr\/local\/bin\/tuios /);
  // A different --then over a chain would lose the command chained now: refused.
  const other = withStatusLine(r.doc, 'tuios', 'other.sh');
  assert.ok(!other.ok);
  assert.match(other.why, /already chains/);
  assert.equal(withoutStatusLine(again.doc), doc, 'uninstall puts the person\'s command back, keys and all');
});

test('on disk: refused without a word written, chained, installed again, and uninstalled to the same bytes', () => {
  const h = home(THEIRS);
  assert.throws(() => install(cc, h.env, 'tuios', { statusLine: { then: null } }), (e: Error) => e.message.includes(keepCommand(THEIR_CMD)));
  assert.is(readFileSync(h.file, 'utf8'), THEIRS, 'a refused install writes nothing, hooks included');
  assert.is(install(cc, h.env, 'tuios', { statusLine: { then: THEIR_CMD } }).action, 'written');
  const text = readFileSync(h.file, 'utf8');
  assert.match(text, /\n {4}"theme"/, 'the indent is kept');
  const doc = JSON.parse(text);
  assert.equal(Object.keys(doc.statusLine), ['type', 'command', 'padding']);
  assert.ok(doc.hooks.Stop, 'the hooks are installed with it');
  assert.equal(status(cc, h.env).status_line, { state: 'installed', version: 1, then: THEIR_CMD });
  assert.is(install(cc, h.env, 'tuios', { statusLine: { then: null } }).action, 'unchanged', 'again without --then: the chain stays, nothing is written');
  assert.is(install(cc, h.env).action, 'unchanged', 'a plain install leaves the status line alone');
  assert.is(uninstall(cc, h.env).action, 'written');
  assert.is(readFileSync(h.file, 'utf8'), THEIRS, 'byte for byte');
  assert.equal(status(cc, h.env).status_line, { state: 'other', version: null, then: null });
  h.done();
});

test('on disk: uninstall --statusline takes the status line alone and keeps the hooks', () => {
  const h = home('{"theme":"dark"}');
  install(cc, h.env, 'tuios', { statusLine: { then: null } });
  assert.equal(status(cc, h.env).status_line?.state, 'installed');
  uninstall(cc, h.env, { statusLineOnly: true });
  const doc = JSON.parse(readFileSync(h.file, 'utf8'));
  assert.is(doc.statusLine, undefined);
  assert.ok(doc.hooks.Stop, 'the hooks stay');
  assert.is(status(cc, h.env).state, 'installed');
  uninstall(cc, h.env);
  assert.is(readFileSync(h.file, 'utf8'), '{"theme":"dark"}', 'the file before tuios, byte for byte');
  h.done();
});

test('--statusline is Claude Code\'s alone', () => {
  const h = home('{}');
  mkdirSync(join(h.dir, '.codex'));
  assert.throws(() => install(integrationFor('codex')!, h.env, 'tuios', { statusLine: { then: null } }), /Claude Code/);
  h.done();
});

test('the command line: the refusal on stderr with exit 1, --then without --statusline is a usage error, status --json has status_line', () => {
  const h = home(THEIRS);
  const run = (...args: string[]) => spawnSync(process.execPath, [BIN, 'integration', ...args], { env: { ...process.env, ...h.env }, encoding: 'utf8' });
  const refused = run('install', 'claude-code', '--statusline');
  assert.is(refused.status, 1);
  assert.ok(refused.stderr.includes(keepCommand(THEIR_CMD)), refused.stderr);
  assert.is(refused.stdout, '');
  assert.is(run('install', 'claude-code', '--then', 'x.sh').status, 2);
  assert.is(run('install', 'codex', '--statusline').status, 2);
  const ok = run('install', 'claude-code', '--statusline', '--then', THEIR_CMD);
  assert.is(ok.status, 0, ok.stderr);
  const st = JSON.parse(run('status', 'claude-code', '--json').stdout) as { integrations: Array<{ status_line: unknown }> };
  assert.equal(st.integrations[0]!.status_line, { state: 'installed', version: 1, then: THEIR_CMD });
  assert.match(run('status', 'claude-code').stdout, /status line installed \(version 1\), then runs '~\/\.claude\/statusline\.sh/);
  assert.is(run('uninstall', 'claude-code').status, 0);
  assert.is(readFileSync(h.file, 'utf8'), THEIRS);
  h.done();
});

test.run();
