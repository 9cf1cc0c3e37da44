// Reviewing an agent's changes with a real daemon and real git: review-diff reads a worktree's
// commits and uncommitted work against its base, one patch per file; notes sit on FILE:LINE and
// are found again after edits; send-review types them into the stand-in agent as one message,
// cleaned of control characters; the spec's limits and grants refuse what they must.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, TestDaemon } from '../helpers/daemon.js';
import { installStandin } from '../helpers/worktree-standin.js';
import { commit, makeRepo, removeDir, sh, tempDir, write } from '../helpers/worktree-repos.js';
import { refusal } from '../helpers/refusal.js';
import { waitFor } from '../helpers/wait.js';

let d: TestDaemon;
let root: string;
let repo: string;
let wt: string;
let win: string;
let received: string;
const S = 'api-feat';

interface Note {
  id: string;
  file: string;
  line: number | null;
  outdated: boolean;
  quote: string;
  text: string;
  author: string;
  sent_at: number | null;
}
interface Diff {
  base: string;
  files: Array<{ path: string; status: string; patch: string | null; why: string | null; changed: boolean; added: number | null }>;
  notes: Note[];
  commits: number;
  untrusted: boolean;
}

const review = (extra: Record<string, unknown> = {}) => d.call<Diff>('review-diff', { session: S, ...extra });
const note = (at: string, text: string, extra: Record<string, unknown> = {}) => d.call<{ note: Note; notes: Note[] }>('review-note', { session: S, at, text, ...extra });

test.before(async () => {
  root = tempDir('tuios-review-e2e-');
  repo = makeRepo(join(root, 'api'));
  write(join(repo, 'long.txt'), Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
  sh(repo, ['add', 'long.txt']);
  sh(repo, ['commit', '-q', '-m', 'long']);
  const tools = tempDir('tuios-review-tools-');
  const env = installStandin(tools);
  // An agent that takes bracketed paste, as the real ones do, and keeps what it is typed.
  writeFileSync(join(tools, 'bin', 'reviewee'), "#!/bin/sh\nprintf '\\033[?2004h'\nexec cat >> \"$0.received\"\n");
  chmodSync(join(tools, 'bin', 'reviewee'), 0o755);
  writeFileSync(join(tools, 'harnesses', 'reviewee.toml'), 'id = "reviewee"\nname = "Reviewee"\n[detect]\ncomm = ["reviewee"]\nargv0 = ["reviewee"]\n');
  received = join(tools, 'bin', 'reviewee.received');
  d = await TestDaemon.start({ env, config: '[agents.checkpoints]\nmax_untracked_mb = 1\n' });
  const r = await d.json<{ path: string; window_id: string; session: string }>(['worktree', 'new', 'feat', '--agent', 'reviewee', '--repo', repo]);
  assert.is(r.session, S);
  wt = r.path;
  win = r.window_id;
  commit(wt, 'feature.txt', 'feature v1\n', 'feature');
  write(join(wt, 'mod.txt'), 'mod.txt changed\nsecond line\n');
  write(join(wt, 'new/untracked.txt'), 'a new file\n');
  write(join(wt, 'debug.log'), 'ignored\n');
});

test.after(async () => {
  await d.stop();
  removeDir(root);
});

test('review-diff: commits and uncommitted work against the worktree\'s base, one patch per file, untrusted', async () => {
  const r = await review();
  assert.is(r.base, 'main');
  assert.is(r.commits, 1);
  assert.is(r.untrusted, true);
  const byPath = new Map(r.files.map((f) => [f.path, f]));
  assert.equal([...byPath.keys()].sort(), ['feature.txt', 'mod.txt', 'new/untracked.txt']);
  assert.is(byPath.get('new/untracked.txt')!.status, 'U');
  assert.match(byPath.get('mod.txt')!.patch!, /^diff --git a\/mod.txt b\/mod.txt[\s\S]*\+mod.txt changed/);
  assert.not.match(byPath.get('mod.txt')!.patch!, /feature v1/, 'each file carries only its own part');
  // Only what is not committed: the commit's file goes.
  const u = await review({ uncommitted: true });
  assert.not.ok(u.files.some((f) => f.path === 'feature.txt'));
  assert.is(u.base, 'HEAD');
  // The CLI: `tuios review SESSION` prints the diff.
  const out = await d.ok(['review', S]);
  assert.match(out, /\+mod\.txt changed/);
});

test('an untracked file past [agents.checkpoints] max_untracked_mb is never read: listed as skipped, with no counts', async () => {
  write(join(wt, 'big.bin'), 'x'.repeat(1024 * 1024 + 10));
  try {
    const r = await review();
    assert.not.ok(r.files.some((f) => f.path === 'big.bin'));
    assert.equal((r as unknown as { skipped: Array<{ path: string; bytes: number }> }).skipped, [{ path: 'big.bin', bytes: 1024 * 1024 + 10 }]);
  } finally {
    rmSync(join(wt, 'big.bin'));
  }
});

test('a note on FILE:LINE keeps its line\'s text, follows it when lines move, is outdated when it goes and found when it comes back', async () => {
  write(join(wt, 'long.txt'), Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\nadded at the end\n');
  const n = (await note('long.txt:20', 'look at line 20')).note;
  assert.is(n.quote, 'line 20');
  assert.is(n.line, 20);
  // Five lines above it, and its indentation changed: still found, five lines down.
  const lines = ['a', 'b', 'c', 'd', 'e', ...Array.from({ length: 30 }, (_, i) => (i === 19 ? '    line 20' : `line ${i + 1}`)), 'added at the end'];
  write(join(wt, 'long.txt'), lines.join('\n') + '\n');
  let placed = (await review()).notes.find((x) => x.id === n.id)!;
  assert.is(placed.line, 25);
  assert.is(placed.outdated, false);
  // Gone: outdated, and listed under its file.
  write(join(wt, 'long.txt'), lines.filter((l) => l.trim() !== 'line 20').join('\n') + '\n');
  placed = (await review()).notes.find((x) => x.id === n.id)!;
  assert.is(placed.outdated, true);
  assert.is(placed.line, null);
  // Back: found again.
  write(join(wt, 'long.txt'), lines.join('\n') + '\n');
  placed = (await review()).notes.find((x) => x.id === n.id)!;
  assert.is(placed.outdated, false);
  assert.is(placed.line, 25);
  await d.call('review-note', { session: S, id: n.id, remove: true });
});

test('a file no longer changed that still has notes is listed, with changed false', async () => {
  const n = (await note('keep.txt:1', 'is this file needed?')).note;
  const r = await review();
  const f = r.files.find((x) => x.path === 'keep.txt');
  assert.ok(f, 'keep.txt is listed for its note');
  assert.is(f!.changed, false);
  await d.call('review-note', { session: S, id: n.id, remove: true });
});

test('limits: a note past 1000 bytes, a bad place, and a line past the file are refused with typed errors', async () => {
  let e = await refusal(note('mod.txt:1', 'x'.repeat(1001)));
  assert.is(e.code, 'invalid_params');
  assert.match(e.message, /1000 bytes/);
  e = await refusal(note('../etc/passwd:1', 'no'));
  assert.is(e.code, 'invalid_params');
  e = await refusal(note('mod.txt:99', 'no such line'));
  assert.is(e.code, 'invalid_params');
  e = await refusal(note('mod.txt:0', 'lines count from 1'));
  assert.is(e.code, 'invalid_params');
});

test('at most 200 notes on a worktree: the 201st is limit_reached; clear removes them', async () => {
  const c = await d.client();
  try {
    for (let i = 0; i < 200; i++) await c.call('review-note', { session: S, at: 'mod.txt:1', text: `note ${i}` });
    const e = await refusal(c.call('review-note', { session: S, at: 'mod.txt:1', text: 'one too many' }));
    assert.is(e.code, 'limit_reached');
    const r = await c.call<{ removed: number; kept: number; notes: Note[] }>('review-note', { session: S, clear: true });
    assert.is(r.removed, 200);
    assert.is(r.notes.length, 0);
  } finally {
    c.close();
  }
});

test('a message past 16 KiB is refused, and nothing is marked sent', async () => {
  for (let i = 0; i < 20; i++) await note('mod.txt:1', `${i} `.padEnd(990, 'y'));
  const e = await refusal(d.call('send-review', { session: S }));
  assert.is(e.code, 'limit_reached');
  assert.match(e.hint ?? '', /--ids/);
  const r = await d.call<{ notes: Note[] }>('review-note', { session: S });
  assert.ok(r.notes.every((n) => n.sent_at === null));
  await d.call('review-note', { session: S, clear: true });
});

/** What the agent was typed, the bracketed paste's own markers taken off. */
function typedText(): string {
  return existsSync(received) ? readFileSync(received, 'utf8').replaceAll('\x1b[200~', '').replaceAll('\x1b[201~', '') : '';
}

test('send-review: the notes reach the agent as one message when it rests, ordered by file and line, control characters left out', async () => {
  await note('mod.txt:2', 'second: use a constant');
  await note('mod.txt:1', 'first: \x1b[31mred\x1b[0m and a bell\x07 gone\nkeeps its second line');
  await note('feature.txt:1', 'feature: name it better');
  // The agent is working: the message waits in the queue.
  await d.ok(['set-agent-state', '-w', win, 'working', '--harness', 'reviewee']);
  const r = await d.call<{ queued: string; sent: string[]; by: string }>('send-review', { session: S });
  assert.is(r.sent.length, 3);
  assert.is(r.by, 'shell');
  const listed = await d.call<{ notes: Note[] }>('review-note', { session: S });
  assert.ok(listed.notes.every((n) => n.sent_at !== null), 'marked sent when queued');
  assert.is(typedText(), '', 'nothing typed while it works');
  await d.ok(['set-agent-state', '-w', win, 'idle', '--harness', 'reviewee']);
  const text = await waitFor(() => (/Address each note/.test(typedText()) ? typedText() : null), { timeout: 30_000, what: 'the review typed into the agent' });
  assert.match(text, /Review notes on your changes \(vs main\), from a script:/);
  const i1 = text.indexOf('feature.txt:1');
  const i2 = text.indexOf('mod.txt:1, on "mod.txt changed"');
  const i3 = text.indexOf('mod.txt:2, on "second line"');
  assert.ok(i1 >= 0 && i2 > i1 && i3 > i2, `ordered by file then line:\n${text}`);
  assert.match(text, /first: red and a bell gone/, JSON.stringify(text));
  assert.match(text, /keeps its second line/);
  // eslint-disable-next-line no-control-regex
  assert.not.match(text, /[\x1b\x07]/);
  // Sent already: a second send has nothing unsent.
  const e = await refusal(d.call('send-review', { session: S }));
  assert.is(e.code, 'not_found');
  await d.call('review-note', { session: S, clear: true });
});

test('send-review --now: refused while the agent works (not_ready) or waits on a prompt (agent_blocked)', async () => {
  await note('mod.txt:1', 'now or never');
  await d.ok(['set-agent-state', '-w', win, 'working', '--harness', 'reviewee']);
  let e = await refusal(d.call('send-review', { session: S, now: true }));
  assert.is(e.code, 'not_ready');
  await d.ok(['set-agent-state', '-w', win, 'needs_input', '--harness', 'reviewee', '--kind', 'question', '-m', 'which one?']);
  e = await refusal(d.call('send-review', { session: S, now: true }));
  assert.is(e.code, 'agent_blocked');
  await d.ok(['set-agent-state', '-w', win, 'idle', '--harness', 'reviewee']);
  await d.call('review-note', { session: S, clear: true });
});

test('notes are saved to review/notes.json (0600) and a pane closing drops them', async () => {
  const file = join(d.dir, 'state', 'tuios', 'review', 'notes.json');
  const n = (await note('mod.txt:1', 'saved')).note;
  assert.is(statSync(file).mode & 0o777, 0o600);
  assert.match(readFileSync(file, 'utf8'), new RegExp(n.id));
  const other = (await d.call<{ id: string }>('new-window', { session: S, name: 'scratch', argv: ['sleep', '600'], cwd: wt })).id;
  const m = (await d.call<{ note: Note }>('review-note', { window: other, at: 'mod.txt:1', text: 'on the scratch pane' })).note;
  await d.call('close-window', { window: other });
  await waitFor(() => !readFileSync(file, 'utf8').includes(`"${m.id}"`), { what: 'the closed pane\'s note dropped' });
  assert.match(readFileSync(file, 'utf8'), new RegExp(`"${n.id}"`));
  await d.call('review-note', { session: S, clear: true });
});

const TUIOS = `${process.execPath} ${BIN}`;
let mark = 0;
async function inPane(w: string, args: string): Promise<{ out: string; rc: number }> {
  const m = `DONE${++mark}`;
  await d.call('send-text', { window: w, text: `clear; ${TUIOS} ${args} 2>&1; echo "${m.slice(0, 2)}""${m.slice(2)}" rc=$?\n` });
  const screen = await d.waitScreen(w, new RegExp(`${m} rc=\\d+`), 30_000);
  return { out: screen.slice(0, screen.lastIndexOf(`${m} rc=`)), rc: Number(new RegExp(`${m} rc=(\\d+)`).exec(screen)![1]) };
}

test('grants: a pane holding read reads the diff of its own session but writes no note; another session is refused', async () => {
  const reader = (await d.call<{ id: string }>('new-window', { session: S, name: 'reader', argv: ['sh'], grants: ['read'], cols: 200, rows: 50, cwd: wt })).id;
  await d.ok(['new-session', 'elsewhere', '-c', root, 'sleep', '600']);
  const outsider = (await d.call<{ id: string }>('new-window', { session: 'elsewhere', name: 'outsider', argv: ['sh'], grants: ['read', 'write'], cols: 200, rows: 50 })).id;
  let r = await inPane(reader, `review-diff -s ${S} --stat --json`);
  assert.is(r.rc, 0, r.out);
  r = await inPane(reader, `review note -s ${S} mod.txt:1 nope`);
  assert.is.not(r.rc, 0);
  assert.match(r.out, /forbidden/);
  r = await inPane(outsider, `review-diff -s ${S} --stat`);
  assert.is.not(r.rc, 0);
  assert.match(r.out, /forbidden/);
  // A note by a pane is its own: the message names it as not the sender's.
  const writer = (await d.call<{ id: string }>('new-window', { session: S, name: 'writer', argv: ['sh'], cols: 200, rows: 50, cwd: wt })).id;
  r = await inPane(writer, `review note -w ${win} mod.txt:1 'from the writer pane' --json`);
  assert.is(r.rc, 0, r.out);
  const notes = (await d.call<{ notes: Note[] }>('review-note', { window: win })).notes;
  assert.is(notes.length, 1);
  assert.is(notes[0]!.author, writer);
  // A shell may not remove... it may: every note but the person's. A pane may not remove another's.
  r = await inPane(reader, `review note -w ${win} --id ${notes[0]!.id} --remove`);
  assert.is.not(r.rc, 0);
  await d.call('review-note', { window: win, clear: true });
  for (const w of [reader, outsider, writer]) await d.call('close-window', { window: w });
});

test('a note whose author pane is gone is withheld at send: not sent and not marked sent; the rest go', async () => {
  const writer = (await d.call<{ id: string }>('new-window', { session: S, name: 'goes', argv: ['sh'], cols: 200, rows: 50, cwd: wt })).id;
  const r = await inPane(writer, `review note -w ${win} mod.txt:1 'from a pane that goes' --json`);
  assert.is(r.rc, 0, r.out);
  const mine = (await note('mod.txt:2', 'from the shell')).note;
  const theirs = (await d.call<{ notes: Note[] }>('review-note', { window: win })).notes.find((n) => n.author === writer)!;
  await d.call('close-window', { window: writer });
  await d.ok(['set-agent-state', '-w', win, 'working', '--harness', 'reviewee']);
  const s = await d.call<{ queued: string; sent: string[]; withheld: Array<{ id: string; why: string }> }>('send-review', { session: S });
  assert.equal(s.sent, [mine.id]);
  assert.is(s.withheld.length, 1);
  assert.is(s.withheld[0]!.id, theirs.id);
  assert.match(s.withheld[0]!.why, /gone/);
  const after = (await d.call<{ notes: Note[] }>('review-note', { window: win })).notes;
  assert.is(after.find((n) => n.id === theirs.id)!.sent_at, null);
  await d.call('cancel-queued', { id: s.queued });
  await d.call('review-note', { window: win, clear: true });
  await d.ok(['set-agent-state', '-w', win, 'idle', '--harness', 'reviewee']);
});

test('a restart keeps the notes of panes that came back', async () => {
  const n = (await note('mod.txt:1', 'kept across a restart')).note;
  // Stopped the way a person stops it, and started again in the same folders.
  await d.call('kill-server').catch(() => undefined);
  await d.waitExit();
  await d.spawn();
  const ws = await d.call<{ windows: Array<{ id: string }> }>('list-windows', { session: S });
  assert.ok(ws.windows.some((w) => w.id === win), 'the pane came back with its id');
  const back = (await d.call<{ notes: Note[] }>('review-note', { window: win })).notes;
  assert.equal(back.map((x) => x.id), [n.id]);
});

test.run();
