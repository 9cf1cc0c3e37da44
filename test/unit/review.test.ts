// The pure parts of reviews and shipping: a note's line found again (close by first, indentation
// and trailing space not counting, outdated when gone), a hunk found by header or by line, a
// place parsed from FILE:LINE, a patch cut into files and numbered hunks, the message composed
// (order, cut and masked quotes, control characters out, the 16 KiB bound) and a push's token.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { findHunk, findLine, parsePlace } from '../../core/review/place.js';
import { hunkRange, overFileLimit, parseHunks, splitPatch } from '../../core/review/patch.js';
import { composeReview, noteText, quoteLine, type MessageNote } from '../../core/review/message.js';
import { perFile } from '../../core/review/diff.js';
import { planToken } from '../../core/git/ship.js';
import { TuiosError } from '../../core/errors.js';
import { fileRows, notePlace, type ReviewNote } from '../../tui/review-model.js';

const PATCH = `diff --git a/a.txt b/a.txt
index 1111111..2222222 100644
--- a/a.txt
+++ b/a.txt
@@ -1,3 +1,4 @@ fn top
 one
-two
+TWO
+two and a half
 three
@@ -10,2 +11,2 @@ fn later
 ten
-eleven
+ELEVEN
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
index 3333333..0000000
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/img.png b/img.png
new file mode 100644
index 0000000..4444444
Binary files /dev/null and b/img.png differ
`;

test('findLine: the nearest same line within 50, else anywhere; indentation and trailing space do not count; gone is outdated', () => {
  const lines = ['x', '  target  ', 'y', ...Array.from({ length: 100 }, () => 'z'), 'target'];
  assert.equal(findLine(lines, 'target', 3), { line: 2, outdated: false });
  assert.equal(findLine(lines, 'target', 103), { line: 104, outdated: false });
  // Past 50 lines from both: the nearest in the file.
  assert.equal(findLine(['target', ...Array.from({ length: 200 }, () => 'z')], 'target', 150), { line: 1, outdated: false });
  assert.equal(findLine(lines, 'nowhere', 2), { line: null, outdated: true });
  assert.equal(findLine(['a', '', 'b'], '   ', 2), { line: 2, outdated: false });
});

test('splitPatch and parseHunks: one part per file, lines numbered on their side', () => {
  const files = splitPatch(PATCH);
  assert.equal(files.map((f) => f.path), ['a.txt', 'gone.txt', 'img.png']);
  assert.ok(files[0]!.text.startsWith('diff --git a/a.txt') && !files[0]!.text.includes('gone.txt'));
  const hunks = parseHunks(files[0]!.text);
  assert.is(hunks.length, 2);
  assert.equal(hunks[0]!.lines.map((l) => [l.kind, l.old, l.new]), [[' ', 1, 1], ['-', 2, null], ['+', null, 2], ['+', null, 3], [' ', 3, 4]]);
  assert.equal(hunkRange(hunks[1]!), { start: 11, end: 12 });
  assert.is(overFileLimit(files[0]!, 5), true);
  assert.is(overFileLimit(files[0]!), false);
});

test('findHunk: the same header (context aside), else the hunk holding the line', () => {
  const hunks = parseHunks(splitPatch(PATCH)[0]!.text);
  assert.is(findHunk(hunks, '@@ -10,2 +11,2 @@ other context', null), hunks[1]!);
  assert.is(findHunk(hunks, '@@ -9,2 +9,2 @@', 12), hunks[1]!);
  assert.is(findHunk(hunks, '@@ -90,2 +90,2 @@', 50), null);
});

test('perFile: a binary file and a file past the line limit keep counts only', () => {
  const diffFiles = [
    { path: 'a.txt', status: 'M', added: 3, deleted: 2, binary: false },
    { path: 'gone.txt', status: 'D', added: 0, deleted: 1, binary: false },
    { path: 'img.png', status: 'A', added: null, deleted: null, binary: true },
  ];
  const r = perFile(diffFiles, PATCH, false, true);
  assert.equal(r.files.map((f) => f.why), [null, null, 'binary']);
  assert.match(r.files[1]!.patch!, /-bye/);
  assert.is(r.truncated, false);
});

test('parsePlace: FILE:LINE (the last colon), a hunk, and what is refused', () => {
  assert.equal(parsePlace('src/a:b.ts:42', undefined), { file: 'src/a:b.ts', line: 42 });
  assert.equal(parsePlace('a.txt', '@@ -1,3 +1,4 @@'), { file: 'a.txt', line: null });
  for (const [at, hunk] of [['/etc/passwd:1', undefined], ['a/../b:1', undefined], ['a.txt', undefined], ['a.txt', 'not a header'], ['a.txt:0', undefined]] as const) {
    try {
      parsePlace(at, hunk);
      assert.unreachable(`${at} should be refused`);
    } catch (e) {
      assert.ok(e instanceof TuiosError && e.code === 'invalid_params', String(e));
    }
  }
});

const note = (o: Partial<MessageNote>): MessageNote => ({ file: 'a.txt', line: 1, side: 'new', hunk: null, range: null, quote: 'q', text: 't', otherAuthor: null, ...o });

test('composeReview: ordered by file then line, quotes cut to 120 and masked, a note\'s lines kept and its controls out, other authors named', () => {
  const text = composeReview({
    base: 'origin/main',
    sender: 'the person',
    notes: [
      note({ file: 'b.txt', line: 3, text: 'third' }),
      note({ file: 'a.txt', line: 9, quote: 'x'.repeat(300), text: 'second\n\x1b]0;title\x07line two\ttabbed', otherAuthor: 'pane api-2' }),
      note({ file: 'a.txt', line: 2, quote: 'const token = "sk-abcdefghijklmnopqrstuvwxyz123456"', text: 'first' }),
      note({ file: 'a.txt', line: null, hunk: '@@ -88,4 +100,6 @@', range: { start: 100, end: 105 }, text: 'hunk' }),
    ],
  });
  const lines = text.split('\n');
  assert.is(lines[0], 'Review notes on your changes (vs origin/main), from the person:');
  assert.match(lines[2]!, /^1\. a\.txt:2, on "const token = "?\*\*\*"?"$/);
  assert.match(text, /\n3\. a\.txt:100-105 \(hunk "@@ -88,4 \+100,6 @@"\)\n/);
  assert.not.match(text, /sk-abc/);
  assert.match(text, /2\. a\.txt:9, on "x{117}\.\.\."\n {3}\(written by pane api-2, not by the person\)\n {3}second\n {3}line two tabbed/);
  assert.match(text, /4\. b\.txt:3/);
  assert.ok(text.endsWith('Address each note, then say which you changed.'));
  // eslint-disable-next-line no-control-regex
  assert.not.match(text, /[\x00-\x08\x0b-\x1f\x7f]/);
});

test('composeReview: past 16 KiB it is refused with limit_reached, naming --ids', () => {
  const notes = Array.from({ length: 20 }, (_, i) => note({ line: i + 1, text: 'y'.repeat(990) }));
  try {
    composeReview({ base: 'main', sender: 'a script', notes });
    assert.unreachable('refused');
  } catch (e) {
    assert.ok(e instanceof TuiosError && e.code === 'limit_reached');
    assert.match(e.hint ?? '', /--ids/);
  }
  assert.is(quoteLine('\x1b[31mred\x1b[0m'), 'red');
  assert.is(noteText('a\r\nb\n\n'), 'a\nb');
});

test('planToken: a hash of the branch, its commit, the remote and the pull request; any change changes it', () => {
  const p = { branch: 'feat/x', commit: 'a'.repeat(40), remote: 'origin', pr: null };
  const t = planToken(p);
  assert.match(t, /^[0-9a-f]{16}$/);
  assert.is(planToken({ ...p }), t);
  for (const q of [{ ...p, branch: 'feat/y' }, { ...p, commit: 'b'.repeat(40) }, { ...p, remote: 'fork' }, { ...p, pr: 'PR #3' }]) assert.is.not(planToken(q), t);
});

const rnote = (o: Partial<ReviewNote>): ReviewNote => ({ id: 'n1', file: 'a.txt', side: 'new', line: 2, hunk: null, quote: 'TWO', text: 'why?', author: 'human', author_name: 'the person', outdated: false, sent_at: null, ...o });

test('the overlay\'s rows: outdated notes first, a note under its line (new side, or a removed line on the old), a hunk note under its last line, counts only for a binary file', () => {
  const f = { path: 'a.txt', status: 'M', added: 3, deleted: 2, binary: false, changed: true, patch: splitPatch(PATCH)[0]!.text, why: null };
  const notes = [
    rnote({ id: 'gone', outdated: true, line: null, quote: 'was here' }),
    rnote({ id: 'new2' }),
    rnote({ id: 'old2', side: 'old', line: 2, quote: 'two' }),
    rnote({ id: 'hunk', line: 12, hunk: '@@ -10,2 +11,2 @@' }),
    rnote({ id: 'other', file: 'b.txt' }),
  ];
  const rows = fileRows(f, notes);
  assert.equal(rows[0], { kind: 'outdated', note: notes[0]! });
  const at = (id: string) => rows.findIndex((r) => r.kind === 'note' && r.note.id === id);
  const before = (i: number) => rows[i - 1]!;
  assert.equal(before(at('old2')), { kind: 'line', mark: '-', old: 2, new: null, text: 'two' });
  assert.equal(before(at('new2')), { kind: 'line', mark: '+', old: null, new: 2, text: 'TWO' });
  assert.equal(before(at('hunk')), { kind: 'line', mark: '+', old: null, new: 12, text: 'ELEVEN' });
  assert.is(at('other'), -1);
  assert.equal(notePlace(rows.find((r) => r.kind === 'line' && r.mark === '-')), { line: 2, side: 'old' });
  assert.is(notePlace(rows.find((r) => r.kind === 'hunk')), null);
  const bin = fileRows({ ...f, path: 'img.png', binary: true, patch: null, why: 'binary', added: null, deleted: null }, []);
  assert.equal(bin.map((r) => r.kind), ['why']);
  assert.match((bin[0] as { text: string }).text, /binary/i);
});

test.run();
