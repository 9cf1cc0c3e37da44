// capture-state on a real daemon and PTY: "this state is wrong" saves what the detector saw as a
// capture in the fixtures' format, with the state the person says it should be. The pane runs a
// toy agent (a user manifest in TUIOS_HARNESS_DIR, a screen rule that reads it as working) from
// an npm-like package folder, so its version is read; it paints a coloured screen, sets a title,
// sends an OSC 9 and an OSC 777 notification, and an OSC 9;4 report on cue.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { waitState } from '../helpers/agent-state.js';
import { refusal } from '../helpers/refusal.js';
import { parseFixture } from '../../core/detection/fixture.js';

const MANIFEST = `id = "toyagent"
name = "Toy Agent"
source = "a test stand-in"
[detect]
comm = ["toyagent"]
[screen]
lines = 24

[[screen.rule]]
id = "thinking"
state = "working"
priority = 10
all = ["esc to interrupt"]
`;

// The toy agent: a title, two notifications, a coloured screen; a line `p` sends an OSC 9;4 report.
const PROGRAM = `
const out = (s) => process.stdout.write(s);
out('\\x1b]0;toy \\u2733 thinking\\x07');
out('\\x1b]9;toy: it needs a look\\x07');
out('\\x1b]777;notify;Toy;turn over\\x07');
out('\\x1b[H\\x1b[2J\\x1b[1;33mToy Agent\\x1b[0m 1.2.3\\r\\n\\r\\n> fix the login test\\r\\n\\x1b[36m* Thinking... (esc to interrupt)\\x1b[0m\\r\\n');
process.stdin.setRawMode(true);
process.stdin.on('data', (d) => { if (d.toString().includes('p')) out('\\x1b]9;4;1;42\\x07'); });
process.on('SIGTERM', () => process.exit(0));
setInterval(() => {}, 1 << 30);
`;

let d: TestDaemon;
let toy: string;
let harnesses = '';
const captures = () => join(d.dir, 'state', 'tuios', 'captures');
const mode = (p: string) => statSync(p).mode & 0o777;

test.before(async () => {
  harnesses = mkdtempSync(join(tmpdir(), 'tuios-harnesses-'));
  writeFileSync(join(harnesses, 'toyagent.toml'), MANIFEST);
  d = await TestDaemon.start({ env: { TUIOS_HARNESS_DIR: harnesses, TUIOS_AGENT_DETECT_SECONDS: '0.3', TUIOS_AGENT_STALL_SECONDS: '0' } });
  // An installed package, as npm lays it out: the version is in its package.json.
  const pkg = join(d.dir, 'lib', 'node_modules', 'toy-agent');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'toy-agent', version: '1.2.3' }));
  writeFileSync(join(pkg, 'cli.mjs'), PROGRAM);
  const bin = join(d.dir, 'bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'toyagent'));
  await d.ok(['new-session', 'cap', 'sleep', '3600']);
  toy = (await d.call<{ id: string }>('new-window', { session: 'cap', name: 'toy', argv: [join(bin, 'toyagent'), join(pkg, 'cli.mjs')], cols: 100, rows: 30 })).id;
  await waitState(d, toy, (a) => a.harness_id === 'toyagent' && a.state === 'working', { timeout: 20_000, what: 'the toy agent working by its screen rule' });
});

test.after(async () => {
  await d?.stop();
  if (harnesses) rmSync(harnesses, { recursive: true, force: true });
});

test('capture-state saves the screen, the title and the verdict as a fixture that expects the state the person named', async () => {
  const out = await d.ok(['capture-state', '-w', toy, '--want', 'idle', '-m', 'should be idle']);
  const path = out.split('\n')[0]!;
  assert.match(out, /tuios said working \(screen, rule thinking\); you said idle/);
  assert.is(dirname(path), join(captures(), 'toyagent'), 'under the state folder, in the harness\'s folder');
  assert.match(basename(path), /^\d{8}T\d{6}Z-idle-100x30\.screen$/);
  assert.is(mode(path), 0o600, 'the capture is 0600');
  assert.is(mode(captures()), 0o700, 'captures/ is 0700');
  assert.is(mode(dirname(path)), 0o700, 'captures/toyagent/ is 0700');

  const f = parseFixture(readFileSync(path, 'utf8'), path);
  const pane = await d.call<{ lines: string[]; title: string }>('capture-pane', { window: toy });
  assert.equal(f.lines, pane.lines.map((l) => l.replace(/\s+$/, '')), 'the lines are capture-pane\'s');
  assert.equal([f.cols, f.rows], [100, 30]);
  assert.is(f.title, 'toy ✳ thinking');
  assert.is(f.title, pane.title);
  assert.is(f.harness, 'toyagent');
  assert.is(f.program_version, '1.2.3', 'the version from the package the program runs from');
  assert.match((f.extra.version as { read_from: string }).read_from, /node_modules\/toy-agent\/package\.json$/, 'where the detector read it');
  assert.is(f.provenance, 'measured');
  assert.match(f.obtained, /^captured by tuios capture-state on \d{4}-\d\d-\d\dT[\d:.]+Z from window toy; the person said it should be idle: should be idle$/);
  assert.equal({ ...f.expect }, { state: 'idle' });
  assert.is(f.progress, undefined, 'no progress report yet');
  const x = f.extra as Record<string, any>;
  assert.is(x.want, 'idle');
  assert.is(x.note, 'should be idle');
  assert.equal([x.verdict.state, x.verdict.source, x.verdict.rule, x.verdict.harness], ['working', 'screen', 'thinking', 'toyagent'], 'tuios\'s verdict then');
  assert.equal([x.explain.state, x.explain.rule], ['working', 'thinking'], 'the rules\' explanation');
  assert.match(x.explain.manifest_source, /toyagent\.toml$/, 'the user manifest that read it');
  assert.ok(x.explain.rules.some((l: string) => /^FIRED thinking \[working, p10/.test(l)), 'each rule\'s trace, one line');
  assert.not.ok('tail' in x.explain || 'text' in x.explain, 'not what the capture holds already');
  assert.is(x.detect.harness, 'toyagent');
  assert.match(x.detect.text, /toyagent/);
  assert.equal(x.notifications.map((n: { osc: number; title: string; body: string }) => [n.osc, n.title, n.body]), [[9, '', 'toy: it needs a look'], [777, 'Toy', 'turn over']]);
  assert.is(x.process.comm, 'toyagent');

  // The colours, beside it.
  assert.is(x.ansi_file, basename(path).replace(/\.screen$/, '.ansi'));
  const ansiPath = join(dirname(path), x.ansi_file);
  assert.is(mode(ansiPath), 0o600);
  const ansi = readFileSync(ansiPath, 'utf8');
  assert.match(ansi, /\x1b\[0;1;33mToy Agent/);
  assert.equal(ansi.replace(/\x1b\[[0-9;]*m/g, '').replace(/\n$/, '').split('\n'), f.lines, 'the same rows, with SGR');

  // It drives a rule: explain-agent-screen reads it back, as a manifest author would.
  const back = await d.call<{ state: string; rule: string }>('explain-agent-screen', { screen_file: path });
  assert.equal([back.state, back.rule], ['working', 'thinking']);
});

test('capture-state --json: the path and the verdict; a progress report goes in the header; done expects idle', async () => {
  await d.call('send-text', { window: toy, text: 'p' });
  await waitFor(async () => (await d.call<{ progress: string | null }>('capture-pane', { window: toy })).progress === '4;1;42', { what: 'the progress report' });
  const r = await d.json<{ path: string; ansi_path: string; want: string; expect_state: string; harness: string; program_version: string; verdict: { state: string; source: string } }>(['capture-state', '-w', toy, '--want', 'done']);
  assert.equal([r.want, r.expect_state, r.harness, r.program_version], ['done', 'idle', 'toyagent', '1.2.3']);
  assert.match(basename(r.path), /-done-100x30\.screen$/);
  assert.ok(existsSync(r.ansi_path));
  const f = parseFixture(readFileSync(r.path, 'utf8'), r.path);
  assert.is(f.progress, '4;1;42');
  assert.is(f.expect.state, 'idle', 'a finished turn looks like its prompt');
  assert.is((f.extra as Record<string, any>).want, 'done');
  assert.is(f.extra.note, undefined, 'no note given, none written');
  assert.is(r.verdict.state, 'working');
});

test('the note is one clean line', async () => {
  const r = await d.call<{ path: string }>('capture-state', { window: toy, want: 'needs_input', note: 'it asks\x1b[31m to run\nrm -rf\u202e x\x07' });
  const f = parseFixture(readFileSync(r.path, 'utf8'), r.path);
  assert.is(f.extra.note, 'it asks[31m to run rm -rf x');
  assert.match(f.obtained, /should be needs_input: it asks\[31m to run rm -rf x$/);
  assert.is(f.expect.state, 'needs_input');
});

test('a pane no harness claims is captured under unknown', async () => {
  const w = await d.call<{ id: string }>('new-window', { session: 'cap', name: 'plain', argv: ['sh', '-c', "printf 'just a shell\\n'; exec sleep 3600"] });
  await d.waitScreen(w.id, /just a shell/);
  const r = await d.call<{ path: string; harness: string | null; verdict: { state: string } }>('capture-state', { window: w.id, want: 'unknown' });
  assert.is(dirname(r.path), join(captures(), 'unknown'));
  assert.is(r.harness, null);
  const f = parseFixture(readFileSync(r.path, 'utf8'), r.path);
  assert.equal([f.harness, f.program_version, f.expect.state], ['unknown', 'unknown', 'none']);
  assert.is(f.lines[0], 'just a shell');
  assert.not.ok('explain' in f.extra, 'no harness, no rules to explain');
});

test('bad input is refused with a typed error, and nothing is written', async () => {
  const before = readdirSync(join(captures(), 'toyagent')).length;
  const bad = await refusal(d.call('capture-state', { window: toy, want: 'sleepy' }));
  assert.equal([bad.code, bad.field], ['invalid_params', 'want']);
  const missing = await refusal(d.call('capture-state', { window: toy }));
  assert.equal([missing.code, missing.field], ['invalid_params', 'want']);
  const nowin = await refusal(d.call('capture-state', { window: 'no-such-window', want: 'idle' }));
  assert.is(nowin.code, 'window_not_found');
  const long = await refusal(d.call('capture-state', { window: toy, want: 'idle', note: 'x'.repeat(1025) }));
  assert.equal([long.code, long.field], ['invalid_params', 'note']);
  // 400 characters, 1200 bytes: the bound is in bytes.
  const wide = await refusal(d.call('capture-state', { window: toy, want: 'idle', note: '€'.repeat(400) }));
  assert.equal([wide.code, wide.field], ['invalid_params', 'note']);
  assert.match(wide.message, /1200 bytes/);
  // The CLI says it too, as a usage error.
  const cli = await d.cli(['capture-state', '-w', toy, '--want', 'sleepy']);
  assert.is(cli.code, 2);
  assert.match(cli.stderr, /want/);
  assert.is(readdirSync(join(captures(), 'toyagent')).length, before, 'no file for a refused call');
});

test.run();
