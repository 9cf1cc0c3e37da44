// A reply's paste blocks (spec: Large pastes; Queued messages, parts and limits): how the daemon
// places them when it types the message, the paste folder, blocks sent ahead in pieces, the queue
// holding a message in parts, the editor's refusals in the spec's words, and a link's forwarding
// that sends large blocks ahead and falls back for a daemon from before parts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Bus } from '../../core/bus.js';
import { TuiosError } from '../../core/errors.js';
import { DeliveryQueue } from '../../core/delivery/queue.js';
import { checkParts, fileLabel, lineCount, partsSummary, renderParts, PARTS_TOO_LARGE, WORDS_TOO_LARGE, type MessagePart } from '../../core/delivery/parts.js';
import { PasteFolder, pasteFileName } from '../../core/delivery/paste-folder.js';
import { StagedPastes } from '../../core/delivery/paste-stage.js';
import { callWithParts, pieces } from '../../core/hosts/forward-parts.js';
import { Editor } from '../../tui/editor.js';
import { MESSAGE_PARTS_MAX_BYTES, PASTE_BLOCKS_MAX, PASTE_FILE_KEEP_MS, PASTE_INLINE_MAX_BYTES, PASTE_STAGES_MAX, PASTE_STAGE_CHUNK_CHARS, PASTE_STAGE_TTL_MS, QUEUE_MESSAGE_MAX_BYTES, QUEUE_PANE_TOTAL_BYTES } from '../../core/limits.js';
import { MAX_PASTE_BYTES } from '../../tui/limits.js';

const log = { debug() {}, info() {}, warn() {}, error() {} };

function refused(f: () => unknown): TuiosError {
  try {
    f();
  } catch (e) {
    if (e instanceof TuiosError) return e;
    throw e;
  }
  throw new Error('it was not refused');
}

const words = (text: string): MessagePart => ({ kind: 'text', text });
const block = (text: string, n = 1): MessagePart => ({ kind: 'paste', text, n });
const log3 = (bytes: number) => Array.from({ length: Math.ceil(bytes / 40) }, (_, i) => `line ${String(i).padStart(6, '0')} ${'x'.repeat(27)}`).join('\n').slice(0, bytes);

test('the limits are the spec\'s: 12 KB in one paste, 16 KB of words, 8 MB in all', () => {
  assert.is(PASTE_INLINE_MAX_BYTES, 12 * 1024);
  assert.is(QUEUE_MESSAGE_MAX_BYTES, 16 * 1024);
  assert.is(MESSAGE_PARTS_MAX_BYTES, 8 * 1024 * 1024);
  assert.is(PASTE_FILE_KEEP_MS, 24 * 60 * 60_000);
  assert.ok(MAX_PASTE_BYTES > MESSAGE_PARTS_MAX_BYTES, 'a paste just over 8 MB arrives whole, to be refused whole');
});

test('lines are counted as a person counts them', () => {
  assert.is(lineCount(''), 0);
  assert.is(lineCount('a'), 1);
  assert.is(lineCount('a\nb'), 2);
  assert.is(lineCount('a\nb\n'), 2);
  assert.is(fileLabel(1, '/p/f.txt', 'x\n'.repeat(2048)), '[Pasted text #1: /p/f.txt, 2,048 lines]');
});

test('12 KB or less goes in one paste with each block in its place; one byte more puts each block in a file', () => {
  const head = 'make the backoff jitter configurable. The failing run:\n';
  const body = 'y'.repeat(PASTE_INLINE_MAX_BYTES - head.length);
  const written: string[] = [];
  const write = (t: string) => (written.push(t), `/run/p/${written.length}.txt`);
  const small = renderParts([words(head), block(body)], write);
  assert.is(small.text, head + body);
  assert.equal(small.files, []);
  assert.is(written.length, 0);

  const big = renderParts([words(head), block(body + 'z'), words('\nand '), block('a\nb\nc\nd', 2)], write);
  assert.equal(big.files, ['/run/p/1.txt', '/run/p/2.txt']);
  assert.is(big.text, `${head}[Pasted text #1: /run/p/1.txt, 1 lines]\nand [Pasted text #2: /run/p/2.txt, 4 lines]`);
  assert.equal(written, [body + 'z', 'a\nb\nc\nd']);
  assert.is(partsSummary([words('see '), block('a\nb', 3)]), 'see [Pasted text #3 · 2 lines]');
});

test('16 KB of words and 8 MB in all, each refused in the spec\'s words', () => {
  checkParts([words('w'.repeat(QUEUE_MESSAGE_MAX_BYTES)), block('b'.repeat(MESSAGE_PARTS_MAX_BYTES - QUEUE_MESSAGE_MAX_BYTES))]);
  const w = refused(() => checkParts([words('w'.repeat(QUEUE_MESSAGE_MAX_BYTES + 1)), block('b')]));
  assert.is(w.code, 'queue_full');
  assert.is(w.message, 'The message is larger than 16 KB. Make it shorter to send.');
  const all = refused(() => checkParts([words('w'), block('b'.repeat(MESSAGE_PARTS_MAX_BYTES))]));
  assert.is(all.message, 'The message is larger than 8 MB. Remove a paste to send.');
  const many = refused(() => checkParts(Array.from({ length: PASTE_BLOCKS_MAX + 1 }, (_, i) => block('b', i + 1))));
  assert.is(many.code, 'queue_full');
});

test('the paste folder: 0700, files 0600 named as the spec shows, swept after 24 h, all removed at stop', () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'tuios-paste-')), 'paste');
  const f = new PasteFolder(dir, log as never).start();
  const p1 = f.write('a\x1b[31mred\x1b[0m\tb\nc');
  assert.is(statSync(dir).mode & 0o777, 0o700);
  assert.is(statSync(p1).mode & 0o777, 0o600);
  assert.is(readFileSync(p1, 'utf8'), 'a[31mred[0m\tb\nc', 'control characters go, tabs and lines stay');
  assert.match(p1.slice(dir.length + 1), /^tuios-paste-reply-\d{8}-\d{6}-[0-9a-f]{6}\.txt$/);
  assert.is(pasteFileName('reply', new Date(2026, 9, 16, 10, 15, 0), '3fa2c1'), 'tuios-paste-reply-20261016-101500-3fa2c1.txt');
  const p2 = f.write('old');
  const old = (Date.now() - PASTE_FILE_KEEP_MS - 60_000) / 1000;
  utimesSync(p2, old, old);
  writeFileSync(join(dir, 'not-ours.txt'), 'x');
  assert.is(f.sweep(Date.now()), 1);
  assert.ok(existsSync(p1) && !existsSync(p2));
  f.dispose();
  assert.equal(readdirSync(dir), ['not-ours.txt'], 'every paste file is removed at stop, nothing else');
});

test('blocks sent ahead: per sender, taken once, bounded in count and size, forgotten after a minute', () => {
  let now = 1000;
  const s = new StagedPastes(() => now);
  s.append('link:a', 'b1', 'one ');
  assert.is(s.append('link:a', 'b1', 'two'), 7);
  assert.is(refused(() => s.take('link:b', 'b1')).code, 'not_found', 'another sender cannot take it');
  assert.is(s.take('link:a', 'b1'), 'one two');
  assert.is(refused(() => s.take('link:a', 'b1')).code, 'not_found', 'taken once');
  for (let i = 0; i < PASTE_STAGES_MAX; i++) s.append('shell', `s${i}`, 'x');
  assert.is(refused(() => s.append('shell', 'one-more', 'x')).code, 'limit_reached');
  now += PASTE_STAGE_TTL_MS + 1;
  s.append('shell', 'one-more', 'x');
  assert.is(s.size, 1, 'the others waited too long');
  const big = 'b'.repeat(PASTE_STAGE_CHUNK_CHARS);
  const t = new StagedPastes(() => now);
  for (let i = 0; i < MESSAGE_PARTS_MAX_BYTES / big.length; i++) t.append('h', 'big', big);
  assert.is(refused(() => t.append('h', 'big', 'x')).message, PARTS_TOO_LARGE);
});

function queueWith(max: number) {
  const windows = new Map<string, unknown>();
  const svc = {
    bus: new Bus(log as never),
    log,
    config: { current: { agents: { queue: { max }, mail: { wake: false } } } },
    model: { windows, sessions: new Map() },
    agents: { stateOf: () => 'needs_input', harnessOf: () => null, recordOf: () => null },
    manifests: { byId: new Map() },
    pastes: { write: () => '/nowhere' },
  };
  const pane = (id: string) => {
    const w = { id, name: id, sessionId: 's1', shortId: id, lastOutputAt: 0, closed: false };
    windows.set(id, w);
    return w as never;
  };
  return { q: new DeliveryQueue(svc as never), pane };
}

test('the queue holds a message in parts: listed as its summary, counted whole, so 4 of 8 MiB fill a pane', () => {
  const { q, pane } = queueWith(8);
  const a = pane('a');
  try {
    const big = 'x'.repeat(MESSAGE_PARTS_MAX_BYTES - 100);
    const m = q.add(a, '', 'human', null, { parts: [words('look:\n'), block(big)] });
    assert.is(m.text, 'look:\n[Pasted text #1 · 1 lines]');
    assert.is(m.parts!.length, 2);
    for (let i = 0; i < 3; i++) q.add(a, '', 'human', null, { parts: [block(big)] });
    assert.is(QUEUE_PANE_TOTAL_BYTES, 4 * MESSAGE_PARTS_MAX_BYTES);
    const e = refused(() => q.add(a, '', 'human', null, { parts: [block('y'.repeat(1024))] }));
    assert.is(e.message, 'The delivery queues are full.');
    assert.is(refused(() => q.add(a, '', 'human', null, { parts: [words('w'.repeat(QUEUE_MESSAGE_MAX_BYTES + 1))] })).message, WORDS_TOO_LARGE);
  } finally {
    q.dispose();
  }
});

const pasteTok = (text: string) => ({ t: 'paste' as const, raw: `\x1b[200~${text}\x1b[201~`, text });
const typeTok = (s: string) => [...s].map((ch) => ({ t: 'key' as const, raw: ch, name: ch }));

test('the editor: a long paste is a block; 12 KB or less is sent as one text, larger in parts, numbered', () => {
  const e = new Editor();
  for (const k of typeTok('see ')) e.key(k);
  e.key(pasteTok('a\nb\nc\nd'));
  assert.is(e.view().lines[0], 'see [Pasted text #1 · 4 lines]');
  assert.equal(e.message(), { text: 'see a\nb\nc\nd' });
  for (const k of typeTok(' and ')) e.key(k);
  const long = log3(PASTE_INLINE_MAX_BYTES);
  e.key(pasteTok(long));
  assert.equal(e.message(), { parts: [{ text: 'see ' }, { paste: 'a\nb\nc\nd', n: 1 }, { text: ' and ' }, { paste: long, n: 2 }] });
  assert.is(e.refusal(), null);
});

test('the editor refuses in the spec\'s words and keeps the draft', () => {
  const e = new Editor();
  e.key(pasteTok('p'.repeat(MESSAGE_PARTS_MAX_BYTES)));
  assert.is(e.refusal(), null);
  for (const k of typeTok('!')) e.key(k);
  assert.is(e.refusal(), 'The message is larger than 8 MB. Remove a paste to send.');
  const w = new Editor();
  // Typed words past 16 KB, with no block (a paste under 800 characters and 3 lines is words).
  for (let i = 0; i < 22; i++) w.key(pasteTok('w'.repeat(790)));
  assert.is(w.refusal(), 'The message is larger than 16 KB. Make it shorter to send.');
  assert.ok(!w.empty, 'the draft is kept');
});

test('forwarding a message in parts: small goes whole; large blocks are sent ahead in pieces under a frame', async () => {
  const calls: Array<[string, Record<string, unknown>]> = [];
  const call = async (verb: string, params: Record<string, unknown>) => (calls.push([verb, params]), { id: 'q1' });
  await callWithParts(call, 'build', 'queue-prompt', { window: 'api:claude', parts: [{ text: 'hi ' }, { paste: 'small' }] });
  assert.equal(calls, [['queue-prompt', { window: 'api:claude', parts: [{ text: 'hi ' }, { paste: 'small' }] }]]);
  calls.length = 0;
  const big = '\u{1F600}'.repeat(PASTE_STAGE_CHUNK_CHARS); // surrogate pairs: a cut never splits one
  await callWithParts(call, 'build', 'queue-prompt', { window: 'api:claude', parts: [{ text: 'log: ' }, { paste: big, n: 3 }] });
  const staged = calls.filter((c) => c[0] === 'stage-paste');
  assert.is(staged.length, 2);
  assert.is(staged.map((c) => c[1].text).join(''), big);
  for (const [, p] of staged) {
    assert.ok((p.text as string).length <= PASTE_STAGE_CHUNK_CHARS);
    assert.ok(Buffer.byteLength(JSON.stringify(p)) < 1024 * 1024);
    assert.is(p.window, 'api:claude');
  }
  const last = calls.at(-1)!;
  assert.is(last[0], 'queue-prompt');
  assert.equal(last[1].parts, [{ text: 'log: ' }, { staged: staged[0]![1].id, n: 3 }]);
  assert.equal(pieces('abc', 2), ['ab', 'c']);
});

test('a daemon there from before parts: the message whole as text up to 16 KB, else the restart hint', async () => {
  const old = async (verb: string, params: Record<string, unknown>) => {
    if (verb === 'stage-paste') throw new TuiosError('unknown_verb', 'There is no verb "stage-paste" here.');
    if (params.text === undefined) throw new TuiosError('invalid_params', 'text: Required');
    return { id: 'q9', text: params.text };
  };
  assert.equal(await callWithParts(old, 'build', 'queue-prompt', { window: 'w', parts: [{ text: 'a ' }, { paste: 'b'.repeat(13 * 1024) }] }), { id: 'q9', text: 'a ' + 'b'.repeat(13 * 1024) });
  try {
    await callWithParts(old, 'build', 'queue-prompt', { window: 'w', parts: [{ text: 'a ' }, { paste: 'b'.repeat(PASTE_STAGE_CHUNK_CHARS + 1) }] });
    assert.unreachable('sent');
  } catch (e) {
    assert.instance(e, TuiosError);
    assert.match((e as TuiosError).hint ?? '', 'tuios kill-server');
  }
});

test.run();
