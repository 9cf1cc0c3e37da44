// A large paste in a reply to a real Claude Code, through the real TUI in tmux (spec: Large
// pastes): a 3 MB log pasted into the reply editor shows as one block, goes to a file of the
// paste folder on the pane's machine when the reply is typed (0600, beside the socket), the agent
// gets the spec's label naming the file (the fake Anthropic API sees the path in the request),
// and the file is gone once the daemon stops. Before it, a reply with hidden characters is stopped
// once, and the next reply's up brings it back from the history. The fake model answers with text
// only.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RealAgent } from '../helpers/real-agent.js';
import { Terminal, openReply } from '../helpers/terminal.js';
import { BIN } from '../helpers/daemon.js';

// The model answers after 1.5 s, as a real one does: a turn the fake answered at once could end
// before Claude Code reported it working (CI saw it: no state but idle was ever published, and
// the queue, which takes a typed reply as taken on such a report, held it as stalled, so the next
// reply waited behind it).
const a = new RealAgent('claude-code', { fake: { command: null, finalText: 'Read the log.', delayMs: 1500 } });
const it = a.gate(test);
let t: Terminal | null = null;
let stopped = false;

test.before(() => a.start());
test.after(async () => {
  t?.kill();
  if (!stopped) await a.stop();
});

/** A log of about 3 MB: numbered lines, so the line count in the label is known. */
function log(lines: number): string {
  return Array.from({ length: lines }, (_, i) => `2026-12-04T17:00:00.${String(i % 1000).padStart(3, '0')}Z worker[${i}] retry ${i} backoff=${(i * 37) % 1000}ms status=503`).join('\n') + '\n';
}

it('a reply with hidden bidi and zero-width characters is stopped once with the spec\'s message, then sent without them', async () => {
  await a.waitState(['idle', 'unknown']);
  t = await openReply(a.d.env, BIN, 'agents', /claude/i);
  t.type('check the \u202Egnp.exe\u202C file\u200B now');
  await t.wait(/› check the/, 'the typed words');
  t.keys('Enter');
  await t.wait(/Removed 3 invisible characters\. Read the message and press enter to send\./, 'the notice');
  assert.match(t.screen(), /Reply to /, 'the editor stays open with the draft');
  t.keys('Enter');
  await t.wait(/Queued for /, 'the queued line', 30_000);
  const req = await a.waitRequest((r) => r.role === 'main' && JSON.stringify(r.body).includes('check the gnp.exe file now'), 120_000);
  assert.not.match(JSON.stringify(req.body), /\\u202e|\u202E|\\u200b|\u200B/i, 'none reached the agent');
  t.keys('Escape');
  t.kill();
  t = null;
  await a.waitState(['idle', 'done', 'unknown']);
});

it('a 3 MB log pasted into a reply reaches Claude Code as a labelled file, removed when the daemon stops', async () => {
  await a.waitState(['idle', 'unknown']);
  const body = log(40_000);
  assert.ok(body.length > 3_000_000 && body.length < 3_500_000, `the log is ${body.length} bytes`);
  const file = join(a.d.dir, 'build.log');
  writeFileSync(file, body);

  t = await openReply(a.d.env, BIN, 'agents', /claude/i);
  // The reply sent before to this harness in this folder comes back with up; down goes back.
  t.keys('Up');
  await t.wait(/› check the gnp\.exe file now/, 'the last reply, from the history');
  t.keys('Down');
  await t.wait(/›\s*\n/, 'the empty draft again');
  t.type('summarise the failures in this run: ');
  await t.wait(/› summarise the failures/, 'the typed words');
  t.pasteFile(file);
  await t.wait(/\[Pasted text #1 · 40000 lines\]/, 'the block', 60_000);
  t.keys('Enter');
  await t.wait(/Queued for /, 'the queued line', 30_000);

  const req = await a.waitRequest((r) => r.role === 'main' && JSON.stringify(r.body).includes('tuios-paste-reply-'), 120_000);
  const sent = JSON.stringify(req.body);
  const m = /\[Pasted text #1: ([^,\]"]+), 40,000 lines\]/.exec(sent);
  assert.ok(m, `the label with the path in the request: ${sent.slice(0, 400)}`);
  assert.match(sent, /summarise the failures in this run: \[Pasted text #1: /);
  assert.not.match(sent, /worker\[39999\]/, 'the log itself was not typed');
  const path = m![1]!;
  assert.is(dirname(path), join(dirname(a.d.socket), 'paste'), 'in the paste folder beside the socket');
  assert.is(statSync(path).mode & 0o777, 0o600);
  assert.is(statSync(dirname(path)).mode & 0o777, 0o700);
  assert.is(readFileSync(path, 'utf8'), body, 'the file holds the paste as pasted');

  t.kill();
  stopped = true;
  await a.stop();
  assert.not.ok(existsSync(path), 'the paste file is removed when the daemon stops');
});

test.run();
