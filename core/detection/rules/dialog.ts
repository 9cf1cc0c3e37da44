// A prompt drawn as a dialog (spec: A prompt drawn as a dialog): bordered boxes on the screen,
// which of them hold a rule's words, and the message made from the box's field lines.
import type { Rule } from './compile.js';

export interface Box {
  top: number;
  left: number;
  right: number;
  /** The text inside the borders, one string per row. */
  lines: string[];
  /** A title drawn in the top border (`╭─ Permission Required ─╮`). */
  title: string;
}

const TOP_LEFT = '╭┌┏╔';
const TOP_RIGHT = '╮┐┓╗';
const BOTTOM_LEFT = '╰└┗╚';
const SIDES = '│┃║';

/** Every box drawn with corners and sides on the screen (by string column; wide glyphs are rare in chrome). */
export function findBoxes(screen: string[]): Box[] {
  const boxes: Box[] = [];
  for (let y = 0; y < screen.length; y++) {
    const line = screen[y]!;
    for (let x = 0; x < line.length; x++) {
      if (!TOP_LEFT.includes(line[x]!)) continue;
      // The top border may carry a title: ╭─ Permission Required ─╮
      let r = x + 1;
      while (r < line.length && !TOP_RIGHT.includes(line[r]!) && !TOP_LEFT.includes(line[r]!)) r++;
      if (r >= line.length || !TOP_RIGHT.includes(line[r]!) || !/[─━═]{2}/.test(line.slice(x + 1, r))) continue;
      const inner: string[] = [];
      let yy = y + 1;
      for (; yy < screen.length; yy++) {
        const l = screen[yy]!;
        if (BOTTOM_LEFT.includes(l[x] ?? '')) break;
        if (!SIDES.includes(l[x] ?? '') || !SIDES.includes(l[r] ?? '')) {
          yy = -1;
          break;
        }
        inner.push(l.slice(x + 1, r).trim());
      }
      const title = line.slice(x + 1, r).replace(/[─━═]/g, ' ').trim();
      if (yy > 0 && yy < screen.length) boxes.push({ top: y, left: x, right: r, lines: inner, title });
    }
  }
  return boxes;
}

function inside(a: Box, b: Box): boolean {
  return a.top > b.top && a.left >= b.left && a.right <= b.right && a.top < b.top + b.lines.length + 1;
}

/** The boxes holding every `all` string of the rule; a box inside another one counts as that one. */
export function boxesHolding(boxes: Box[], rule: Rule, fold: boolean): Box[] {
  const holds = (b: Box) => {
    const text = [b.title, ...b.lines].join(' ');
    const hay = fold ? text.toLowerCase() : text;
    return rule.group.all.every((s) => hay.includes(s));
  };
  const hits = boxes.filter(holds);
  return hits.filter((b) => !hits.some((o) => o !== b && inside(b, o)));
}

const FIELD_RE = /^([A-Za-z][A-Za-z ]{0,19}?)\s{2,}(\S.*)$|^([A-Za-z]+)\s+(\S.*)$/;

/**
 * `approve <tool>: <what>` from a box's field lines; `(not all shown)` when the message comes from
 * a hint field or had to be cut, so the risk rules treat it as cut short.
 */
export function dialogMessage(box: Box, rule: Rule): string {
  const d = rule.dialog!;
  const fields = new Map<string, string>();
  let lastField = -1;
  box.lines.forEach((l, i) => {
    const m = FIELD_RE.exec(l);
    if (!m) return;
    const label = (m[1] ?? m[3] ?? '').trim().toLowerCase();
    if (label === d.toolField || d.whatFields.includes(label) || d.hintFields.includes(label)) {
      if (!fields.has(label)) fields.set(label, (m[2] ?? m[4] ?? '').trim());
      lastField = i;
    }
  });
  const chrome = [...rule.group.all, ...rule.group.any];
  const body = box.lines
    .slice(lastField + 1)
    .filter((l) => l !== '' && !chrome.some((c) => l.toLowerCase().includes(c.toLowerCase())))
    .join(' ')
    .trim();
  if (body) fields.set('body', body);
  const tool = d.toolField ? fields.get(d.toolField) : undefined;
  if (!tool) return box.lines.find((l) => chrome.some((c) => l.toLowerCase().includes(c.toLowerCase()))) ?? '';
  let what = d.whatFields.map((f) => fields.get(f)).find((v) => v);
  let cut = false;
  if (!what) {
    what = d.hintFields.map((f) => fields.get(f)).find((v) => v);
    cut = !!what;
  }
  let msg = `approve ${tool}: ${what ?? ''}`.trim();
  if (msg.length > 100) {
    msg = msg.slice(0, 100);
    cut = true;
  }
  return cut ? `${msg} (not all shown)` : msg;
}
