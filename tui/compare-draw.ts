// Drawing the compare view: a header with the fan, one row per attempt (its agent and state, the
// files and lines it changed against the fan's base, its last check), then the question, the
// check line or the diff of two attempts, and the keys. Every text from the repository or a pane
// is cleaned of control characters before it is drawn.
import type { Canvas } from './canvas.js';
import { attr, roleAttr, A_BOLD, A_INVERSE, PLAIN } from './canvas.js';
import type { Rect } from './pane-draw.js';
import { clean, fit } from './text.js';
import { hintRows, hintText } from './key-table.js';
import { COMPARE_LIST_KEYS, type CompareKeyState } from './compare-keys.js';
import type { CompareFanResult, CompareRow } from '../core/verbs/fan-compare.js';
import { ago } from '../core/activity/recap.js';
import type { Editor } from './editor.js';

export interface DiffShown {
  a: string;
  b: string;
  files: Array<{ path: string; status: string; added: number | null; deleted: number | null; binary: boolean }>;
  added: number;
  deleted: number;
  truncated: boolean;
}

export interface ComparePicture {
  readonly ascii: boolean;
  readonly result: CompareFanResult | null;
  readonly error: string | null;
  readonly cursor: number;
  readonly marks: ReadonlySet<string>;
  readonly diff: DiffShown | null;
  readonly verifyLine: Editor;
  readonly keepQuestion: string;
  keyState(): CompareKeyState;
}

export function checkCell(c: CompareRow['check'], now: number): string {
  if (!c) return '-';
  const cmd = clean(c.command);
  if (c.state === 'running') return `${cmd}: running`;
  const how = c.exit === null ? c.state : `${c.state} (exit ${c.exit})`;
  return `${c.source === 'shell' ? 'shell ' : ''}${cmd}: ${how} ${ago(now - c.at)} ago`;
}

function changes(a: CompareRow): string {
  if (a.error) return `error: ${clean(a.error)}`;
  if (a.files === null) return '-';
  return `${a.files}${a.truncated ? '+' : ''} file${a.files === 1 ? '' : 's'} +${a.added} -${a.deleted}${a.commits ? `, ${a.commits} commit${a.commits === 1 ? '' : 's'}` : ''}`;
}

export function drawCompare(p: ComparePicture, cv: Canvas, r: Rect, now: number): { x: number; y: number } | null {
  const end = r.x + r.w;
  cv.fill(r.x, r.y, r.w, r.h);
  let y = r.y;
  const put = (s: string, a: number) => {
    if (y < r.y + r.h - 1) cv.text(r.x, y++, fit(s, r.w, p.ascii), a, end);
  };
  const res = p.result;
  put(res ? `Compare ${clean(res.group)}: ${res.attempts.length} attempts from ${clean(res.base)}` : 'Compare: reading the attempts...', attr(-1, -1, A_BOLD));
  if (p.error) put(p.error, roleAttr('error'));
  put('', PLAIN);
  if (res) {
    const nameW = Math.min(32, Math.max(8, ...res.attempts.map((a) => a.session.length + 2)));
    put(`${'  ATTEMPT'.padEnd(nameW + 2)}${'AGENT'.padEnd(12)}${'STATE'.padEnd(12)}${'CHANGES'.padEnd(28)}LAST CHECK`, roleAttr('muted'));
    res.attempts.forEach((a, i) => {
      if (y >= r.y + r.h - 4) return;
      const sel = i === p.cursor;
      const mark = p.marks.has(a.session) ? '*' : ' ';
      const line = `${sel ? '>' : ' '}${mark}${clean(a.session).padEnd(nameW)}${clean(a.harness ?? '-').padEnd(12)}${a.state.padEnd(12)}${changes(a).padEnd(28)}${checkCell(a.check, now)}`;
      cv.fill(r.x, y, r.w, 1, sel ? attr(-1, -1, A_INVERSE) : PLAIN);
      put(line, sel ? attr(-1, -1, A_INVERSE) : PLAIN);
    });
  }
  const st = p.keyState();
  put('', PLAIN);
  let cursor: { x: number; y: number } | null = null;
  if (st.mode === 'keep') put(p.keepQuestion, roleAttr('warning', A_BOLD));
  if (st.mode === 'verify') {
    const v = p.verifyLine.view(1);
    cv.text(r.x, y, 'Check to run in every attempt: ', attr(-1, -1, A_BOLD), end);
    cv.text(r.x + 31, y, fit(v.lines[0] ?? '', r.w - 32, p.ascii), PLAIN, end);
    cursor = { x: r.x + 31 + Math.min(v.cursor.x, r.w - 32), y };
    y++;
    put('enter runs it in a window named verify in each attempt   esc: no check', roleAttr('muted'));
  }
  if (st.mode === 'diff' && p.diff) {
    const d = p.diff;
    put(`${clean(d.a)} -> ${clean(d.b)}: ${d.files.length}${d.truncated ? '+' : ''} files differ, +${d.added} -${d.deleted}`, attr(-1, -1, A_BOLD));
    for (const f of d.files) put(`  ${f.status} ${clean(f.path)}  ${f.binary ? 'binary' : `+${f.added} -${f.deleted}`}`, PLAIN);
    if (d.files.length === 0) put('  They have the same work.', roleAttr('muted'));
  }
  const keys = hintText(hintRows(COMPARE_LIST_KEYS, st), st);
  cv.fill(r.x, r.y + r.h - 1, r.w, 1, attr(-1, -1, A_INVERSE));
  if (st.mode !== 'verify') cv.text(r.x + 1, r.y + r.h - 1, fit(keys, r.w - 2, p.ascii), attr(-1, -1, A_INVERSE), end);
  return cursor;
}
