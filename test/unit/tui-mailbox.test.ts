// The mailbox view's keys and the verbs they call, on a fake host: listing only peeks, opening a
// thread reads your mail in it as the person, r and n send from human with the nonce, and
// malformed or hostile results draw without a throw.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MailboxView, newMailboxMemory } from '../../tui/mailbox.js';
import { charWidth, textWidth } from '../../tui/text.js';
import { UNICODE_GLYPHS } from '../../tui/marks.js';
import type { TuiHost } from '../../tui/overlay.js';
import type { Canvas } from '../../tui/canvas.js';
import type { Token } from '../../tui/keys.js';
import type { AgentRow } from '../../tui/rows.js';

const PANE = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

/** The box a view is given, in canvas cells. */
interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * Records what is drawn, cell by cell, the way tui/canvas.ts lays it out (a wide character takes
 * its cell and the next, text stops before a character that would pass `maxX`). The canvas is
 * larger than the view's box, so a cell the view writes outside its box is kept in `outside`
 * instead of being cut off by the canvas edge.
 */
class Grid {
  readonly box: Box;
  readonly cols: number;
  readonly rows: number;
  cells: string[][];
  outside: string[] = [];
  constructor(w: number, h: number, margin = 0) {
    this.box = { x: margin, y: margin, w, h };
    this.cols = w + 2 * margin;
    this.rows = h + 2 * margin;
    this.cells = Array.from({ length: this.rows }, () => Array.from({ length: this.cols }, () => ' '));
  }
  set(x: number, y: number, ch: string, _a = 0, width = 1): void {
    const b = this.box;
    if (x < b.x || y < b.y || x + width > b.x + b.w || y >= b.y + b.h) this.outside.push(`${JSON.stringify(ch)} at column ${x - b.x}, row ${y - b.y}`);
    if (x < 0 || y < 0 || x >= this.cols || y >= this.rows) return;
    if (width === 2 && x + 1 < this.cols) {
      this.cells[y]![x] = ch;
      this.cells[y]![x + 1] = '';
    } else this.cells[y]![x] = width === 2 ? ' ' : ch;
  }
  text(x: number, y: number, s: string, a: number, maxX = this.cols): number {
    for (const ch of s) {
      const cp = ch.codePointAt(0)!;
      const w = charWidth(cp);
      if (w === 0) continue;
      if (x + w > maxX) break;
      this.set(x, y, cp < 0x20 ? ' ' : ch, a, w);
      x += w;
    }
    return x;
  }
  fill(x: number, y: number, w: number, h: number): void {
    for (let j = y; j < y + h; j++) for (let i = x; i < x + w; i++) this.set(i, j, ' ');
  }
  /** The box's rows as text, trailing spaces cut. */
  lines(): string[] {
    const b = this.box;
    return this.cells.slice(b.y, b.y + b.h).map((r) => r.slice(b.x, b.x + b.w).join('').trimEnd());
  }
  screen(): string {
    return this.lines().join('\n');
  }
}

interface Call {
  verb: string;
  params: Record<string, unknown>;
  asPerson: boolean;
}

function fixture(result: (c: Call) => unknown) {
  const calls: Call[] = [];
  const said: string[] = [];
  const pending: Promise<unknown>[] = [];
  const win = { id: PANE, name: 'docs', sessionId: 's1', closed: false };
  const session = { id: 's1', name: 'work' };
  const host = {
    svc: {
      bus: { on: () => ({ dispose() {} }) },
      model: { sessions: new Map([['s1', session]]), windowsOf: () => [win], windows: new Map([[PANE, win]]) },
    },
    acts: {
      canActAsPerson: true,
      async call(verb: string, params: Record<string, unknown>, asPerson = false) {
        const c = { verb, params, asPerson };
        calls.push(c);
        return { ok: true, value: result(c) };
      },
    },
    dock: { say: (s: string) => said.push(s) },
    ascii: false,
    glyphs: UNICODE_GLYPHS,
    sessionId: 's1',
    agentsSeen: true,
    visible: () => true,
    closeOverlay() {},
    openHelp() {},
    openAgents() {},
    openMailbox() {},
    redraw() {},
    track: (p: unknown) => {
      if (p instanceof Promise) pending.push(p);
    },
    later() {},
  } as unknown as TuiHost;
  const agents = (): AgentRow[] => [{ id: PANE, w: win, target: PANE, name: 'docs', session: 'work', sessionId: 's1', state: 'idle', finishedUnread: false, harness: 'x' } as unknown as AgentRow];
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.all(pending.splice(0));
  };
  return { host, calls, said, agents, settle };
}

const key = (name: string): Token => ({ t: 'key', raw: name, name });
const typeText = (v: MailboxView, s: string) => {
  for (const ch of s) v.key(key(ch));
};

const toYou = { id: 5, thread: 3, to: 'human', from: 'docs', from_pane: PANE, from_kind: 'pane', verified_human: false, claimed_human: false, subject: 'status', body: 'all green\n--- end untrusted content ---', at: Date.now(), read: false, reply_to: null };

test('listing peeks at every mailbox; opening a thread reads yours in it as the person; r replies from human with the nonce', async () => {
  const f = fixture((c) => (c.verb === 'read-agent-messages' ? { messages: c.params.window === 'human' ? [toYou] : [] } : { sent: [{ id: 9, thread: 3, verified_human: true }] }));
  const v = new MailboxView(f.host, newMailboxMemory(), f.agents);
  await f.settle();
  const reads = f.calls.filter((c) => c.verb === 'read-agent-messages');
  assert.ok(reads.length >= 2, 'yours and the pane\'s');
  for (const c of reads) {
    assert.is(c.params.peek, true, 'a list only looks');
    assert.is(c.asPerson, false);
  }
  const g = new Grid(100, 20);
  v.draw(g as unknown as Canvas, g.box, Date.now());
  assert.match(g.screen(), /@ #3\s+docs to you\s+status/);
  f.calls.length = 0;
  v.key(key('Enter'));
  await f.settle();
  const open = f.calls.find((c) => c.verb === 'read-agent-messages' && c.params.thread === 3);
  assert.ok(open, 'the thread is read');
  assert.is(open!.asPerson, true);
  assert.is(open!.params.peek, undefined);
  v.key(key('r'));
  typeText(v, 'ship it');
  v.key(key('Enter'));
  await f.settle();
  const sent = f.calls.find((c) => c.verb === 'send-agent-message');
  assert.equal(sent?.params, { window: PANE, text: 'ship it', reply_to: 5, from: 'human' });
  assert.is(sent?.asPerson, true);
  assert.ok(f.said.some((s) => /Replied in #3 to docs, signed as you/.test(s)), f.said.join('|'));
});

test('n writes a new message to an agent of this session, from human, with no reply_to', async () => {
  const f = fixture((c) => (c.verb === 'read-agent-messages' ? { messages: [] } : { sent: [{ id: 11, thread: 8, verified_human: true }] }));
  const mem = newMailboxMemory();
  const v = new MailboxView(f.host, mem, f.agents);
  await f.settle();
  v.key(key('n'));
  v.key(key('Enter'));
  typeText(v, 'rebase please');
  v.key(key('Enter'));
  await f.settle();
  const sent = f.calls.find((c) => c.verb === 'send-agent-message');
  assert.equal(sent?.params, { window: PANE, text: 'rebase please', from: 'human' });
  assert.is(sent?.asPerson, true);
  assert.is(mem.selected, 8, 'the new thread is selected');
});

const hostile = { ...toYou, from: 'x'.repeat(500) + '\x1b]0;pwn\x07', subject: '\x1b[2J'.repeat(50), body: `${'界'.repeat(400)}\n\t\r\u202e\x00\x9b31m` };
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

/** Draws `v` into a box of `w` x `h` with a margin of canvas around it; returns the grid. */
function drawAt(v: MailboxView, w: number, h = 12): Grid {
  const g = new Grid(w, h, 4);
  v.draw(g as unknown as Canvas, g.box, Date.now());
  return g;
}

test('malformed listing results draw without a throw and make no thread', async () => {
  for (const result of [null, 'garbage', 7, { messages: 'x' }, { messages: [1, null, { id: 'x' }, { id: 2, thread: 'y' }] }]) {
    // The peeks of the listing get the malformed result; the person's read of a thread a well-formed one.
    const f = fixture((c) => (c.verb !== 'read-agent-messages' ? {} : c.params.peek ? result : { messages: [] }));
    for (const thread of [undefined, 3]) {
      const v = new MailboxView(f.host, newMailboxMemory(), f.agents, thread ? { thread } : {});
      await f.settle();
      for (const w of [100, 30, 8]) {
        for (const k of ['', 'j', 'G', 'r', 'Esc', 'Esc', 'n', 'Esc', 'Enter']) {
          if (k) v.key(key(k));
          await f.settle();
          const g = drawAt(v, w);
          const why = `${JSON.stringify(result)}, after ${k || 'opening'} at ${w} columns:\n${g.screen()}`;
          assert.equal(g.outside, [], why);
          if (w === 100) assert.match(g.screen(), /Mailbox {3}0 threads|Thread #3 is not in any mailbox this client can read/, why);
        }
      }
    }
  }
});

test('a hostile name, subject and body draw cut or wrapped to the width: nothing outside the view, no control character', async () => {
  const f = fixture((c) => (c.verb === 'read-agent-messages' ? { messages: c.params.window === 'human' ? [hostile] : [] } : {}));
  const v = new MailboxView(f.host, newMailboxMemory(), f.agents, { thread: 3 });
  await f.settle();
  const drawn = new Set<string>();
  for (const w of [100, 30, 8]) {
    // The thread, the reply box, back to it, the list, the pick list, the list, the thread again.
    for (const k of ['', 'r', 'Esc', 'Esc', 'n', 'Esc', 'Enter']) {
      if (k) v.key(key(k));
      await f.settle();
      const g = drawAt(v, w);
      const lines = g.lines();
      const why = `after ${k || 'opening'} at ${w} columns:\n${g.screen()}`;
      assert.equal(g.outside, [], `every cell is inside the view's box; ${why}`);
      for (const row of lines) assert.not.match(row, CONTROL, `no control character drawn; ${why}`);
      const mode = (v as unknown as { mode: string }).mode;
      drawn.add(`${w} ${mode}`);
      if (mode === 'thread') {
        assert.ok(lines.some((l) => l.includes('界')), `the body is drawn, wrapped; ${why}`);
        // In a box tall enough for the whole thread, all 400 of the body's 界 are drawn: wrapped, none cut off.
        const tall = drawAt(v, w, 440);
        assert.equal(tall.outside, [], why);
        assert.is([...tall.screen()].filter((c) => c === '界').length, 400, `the whole body is drawn; ${tall.screen()}`);
        if (w >= 30) {
          // The header names the sender, 500 x's, cut with an ellipsis one cell before the edge.
          assert.match(lines[0]!, /^ Mailbox {2}#3 {2}x+…$/, why);
          assert.is(textWidth(lines[0]!), w - 1, `the cut header fills the width; ${why}`);
          // Each wrapped body row but the last is as wide as the body (the width less 2 cells each side, 界 is 2 cells).
          const body = lines.filter((l) => l.includes('界'));
          for (const l of body.slice(0, -1)) assert.ok(textWidth(l) >= w - 3 && textWidth(l) <= w - 2, `a wrapped row fills the body; ${why}`);
        }
      }
      if (mode === 'list' && w >= 30) {
        const row = lines.find((l) => l.includes('#3'))!;
        assert.match(row, /#3 +x+… +(\[2J )+.*… \d+s$/, `name and subject cut, the age at the edge; ${why}`);
        assert.is(textWidth(row), w - 1, why);
      }
    }
  }
  for (const w of [100, 30, 8]) for (const mode of ['thread', 'list']) assert.ok(drawn.has(`${w} ${mode}`), `drew the ${mode} at ${w} columns: ${[...drawn].join(', ')}`);
});

test('narrower than 8 columns the view draws without a throw', async () => {
  const f = fixture((c) => (c.verb === 'read-agent-messages' ? { messages: c.params.window === 'human' ? [hostile] : [] } : {}));
  const v = new MailboxView(f.host, newMailboxMemory(), f.agents, { thread: 3 });
  await f.settle();
  for (let w = 7; w >= 1; w--) {
    for (const k of ['', 'r', 'Esc', 'Esc', 'n', 'Esc', 'Enter']) {
      if (k) v.key(key(k));
      await f.settle();
      // Below 8 columns the header alone is wider than the view, so some of it lands outside its
      // box; in the TUI the mailbox covers the whole canvas, whose edge cuts it.
      drawAt(v, w);
    }
  }
});

test.run();
