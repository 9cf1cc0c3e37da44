// The ASCII marks on every surface, through a real attached client: `tuios attach` on a PTY the
// test owns, reading the raw bytes (the title escape is among them; tmux would eat it) and the
// screen an emulator draws from them. Agents in every state: working, needs you, finished not
// looked at, errored, unknown, idle. Under --ascii-only and under appearance.glyphs = "ascii" no
// Unicode state mark reaches the terminal, on the rail, in the agents view, on the dock's alert
// or in the title, and the title carries the focused pane's mark; nor does the chrome's own
// punctuation (the · between a row's parts, the … of a cut, the borders). A glyph set of one's own
// (✋ for needs you) draws in the title, and gives way to `!` under --ascii-only.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { PtyClient, stripEscapes } from '../helpers/pty-ssh.js';

/** Every Unicode mark of the Indicator table, and the glyph set's own used below. */
const UNICODE_MARKS = /[●▲■○×□✋]/u;
/** The chrome's own punctuation, each East Asian Ambiguous width: an ASCII-only client draws none. */
const CHROME_PUNCTUATION = /[·…—–→←↑↓≥≤─│┌┐└┘]/u;
/** The titles the client set (OSC 0 or 2), in order. */
const titles = (b: string) => [...b.matchAll(/\x1b\][02];([^\x07\x1b]*)(?:\x07|\x1b\\)/g)].map((m) => m[1]!);

const clients: PtyClient[] = [];
const daemons: TestDaemon[] = [];

test.after(async () => {
  for (const c of clients) c.kill();
  for (const d of daemons) await d.stop();
});

/** A daemon with agents in every state; main:first (the pane the client shows) needs you. */
async function fleet(config?: string): Promise<TestDaemon> {
  const d = await TestDaemon.start(config ? { config } : {});
  daemons.push(d);
  await d.ok(['new-session', 'main', '--window-name', 'first', 'sleep', '3600']);
  const states: Array<[string, string[]]> = [
    ['run', ['working']],
    ['fin', ['done', '-m', 'finished it']],
    ['err', ['errored', '-m', 'the build broke']],
    ['unk', ['unknown']],
    ['idl', ['idle']],
  ];
  for (const [name] of states) await d.ok(['new-session', `s-${name}`, '--window-name', name, 'sleep', '3600']);
  for (const [name, st] of states) {
    // A finished pane was working first; nobody has looked at it.
    if (st[0] === 'done') await d.ok(['set-agent-state', '-w', `s-${name}:${name}`, 'working', '--harness', 'x']);
    await d.ok(['set-agent-state', '-w', `s-${name}:${name}`, ...st, '--harness', 'x']);
  }
  await d.ok(['set-agent-state', '-w', 'main:first', 'needs_input', '--kind', 'question', '-m', 'which branch?', '--harness', 'x']);
  return d;
}

function attach(d: TestDaemon, flags: string[] = []): PtyClient {
  const c = new PtyClient(process.execPath, [BIN, 'attach', '-s', 'main', ...flags], d.env, 160, 48);
  clients.push(c);
  return c;
}

/** Rail, dock alert, agents view, title: every one ASCII, and the title carries the focused pane's mark. */
async function everySurfaceAscii(d: TestDaemon, c: PtyClient): Promise<void> {
  // The rail: every agent row with its ASCII mark (the focused pane's row too).
  // (The emulator parses the bytes as they come: wait for every row at once.)
  await c.waitScreen(/^(?=[\s\S]*\* run)(?=[\s\S]*# fin)(?=[\s\S]*x err)(?=[\s\S]*\? unk)(?=[\s\S]*o idl)(?=[\s\S]*! first)/, 'the rail with every agent row and its ASCII mark');
  // The title: the focused pane's mark, the session and the window.
  await c.waitBytes((b) => titles(b).includes('! main: first'), 'the title with the needs-you mark');
  // A dock alert for an approval in another session wears the state's ASCII mark.
  await d.ok(['new-session', 's-new', '--window-name', 'asker', 'sleep', '3600']);
  await d.ok(['set-agent-state', '-w', 's-new:asker', 'needs_input', '--kind', 'approval', '-m', 'approve Bash: make', '--harness', 'x']);
  await c.waitScreen(/! s-new: x needs approval/, 'the dock alert with the ASCII mark');
  // The agents view (prefix, i): its rows' marks.
  c.write('\x02i');
  const view = await c.waitScreen(/the build broke/, 'the agents view');
  assert.match(view, /x +err/);
  assert.not.match(view, UNICODE_MARKS, 'no Unicode mark in the agents view');
  c.write('\x1b');
  // The focused pane goes working: the title follows with its mark.
  await d.ok(['set-agent-state', '-w', 'main:first', 'working', '--harness', 'x']);
  await c.waitBytes((b) => titles(b).includes('* main: first'), 'the title with the working mark');
  const all = c.bytes();
  assert.not.match(stripEscapes(all), UNICODE_MARKS, 'no Unicode mark anywhere in what was drawn');
  const drawn = stripEscapes(all);
  const stray = CHROME_PUNCTUATION.exec(drawn);
  assert.ok(!stray, `no separator, cut or border drawn outside ASCII: ${JSON.stringify(drawn.slice(Math.max(0, (stray?.index ?? 0) - 40), (stray?.index ?? 0) + 20))}`);
  for (const t of titles(all)) assert.ok(/^[\x20-\x7e]*$/.test(t), `the title ${JSON.stringify(t)} is ASCII`);
}

test('--ascii-only: the ASCII marks on the rail, the dock alert, the agents view and the title', async () => {
  const d = await fleet();
  const c = attach(d, ['--ascii-only']);
  await everySurfaceAscii(d, c);
  c.kill();
});

test('appearance.glyphs = "ascii": the same, with no flag', async () => {
  const d = await fleet('[appearance]\nglyphs = "ascii"\n');
  const c = attach(d);
  await everySurfaceAscii(d, c);
  c.kill();
});

test('a glyph set of one\'s own draws its mark in the title and on the rail; under --ascii-only ✋ gives way to !', async () => {
  const d = await fleet('[appearance]\nglyphs = "mine"\n\n[appearance.glyph_sets.mine]\nstate_needs_input = "✋"\n');
  const own = attach(d);
  await own.waitBytes((b) => titles(b).includes('✋ main: first'), 'the title with the set\'s needs-you mark');
  await own.waitScreen(/✋ +first/, 'the set\'s mark on the rail');
  // The states the set leaves alone keep the table's marks.
  await own.waitScreen(/● run/, 'the working mark of the table');
  own.kill();
  const ascii = attach(d, ['--ascii-only']);
  await ascii.waitBytes((b) => titles(b).includes('! main: first'), 'the ASCII form in the title');
  await ascii.waitScreen(/! first/, 'the ASCII form on the rail');
  assert.not.match(stripEscapes(ascii.bytes()), UNICODE_MARKS);
  ascii.kill();
});

test.run();
