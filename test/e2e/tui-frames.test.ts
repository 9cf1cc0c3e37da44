// When the TUI draws: a typed key's echo at once, pane output alone at the frame pacing, and a
// frame for pane output alone (only the panes' changed rows) leaves the client's screen exactly as
// a full frame would: each step below is compared with what a client attaching fresh is drawn.
// A daemon in this process (the TUI is in-process), its panes fed through Window.feed, which is
// where a PTY's bytes enter.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import xterm from '@xterm/headless';
import { tuiExtension } from '../../tui/index.js';
import { Tui } from '../../tui/app.js';
import { ECHO_FRAME_GAP_MS, FRAME_INTERVAL_MS } from '../../tui/limits.js';
import type { Caller } from '../../core/rpc/caller.js';
import type { Window } from '../../core/model/window.js';
import { waitFor } from '../helpers/wait.js';
import { startInProcessDaemon, type InProcessDaemon } from '../helpers/in-process-daemon.js';

const { Terminal } = xterm as unknown as { Terminal: typeof import('@xterm/headless').Terminal };
const COLS = 100;
const ROWS = 30;
const caller: Caller = { connId: 0, channel: 'tui', pid: null, uid: null, readOnly: false, paneHint: null };

let daemon: InProcessDaemon;

test.before(async () => {
  daemon = await startInProcessDaemon({ extensions: [tuiExtension()] });
});

test.after(async () => {
  await daemon?.stop();
});

interface Client {
  tui: Tui;
  screen: InstanceType<typeof Terminal>;
  /** Resolves once every byte written so far is parsed by the client's terminal. */
  settled(): Promise<void>;
  /** Resolves at the TUI's next write to the client. */
  nextWrite(): Promise<void>;
  /** Told every write to the client, as it is written. */
  tap: ((d: string) => void) | null;
  close(): void;
}

function attach(sessionId: string): Client {
  const svc = daemon.svc;
  const person = svc.person.attach(caller, { kind: 'outside' }, sessionId);
  const screen = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true });
  let parsing = Promise.resolve();
  let wrote: (() => void) | null = null;
  // Assigned below: the TUI may write its first frame before it is.
  let client: Client | undefined;
  const tui = new Tui({
    svc,
    client: person,
    caller,
    sessionId,
    cols: COLS,
    rows: ROWS,
    term: 'xterm-256color',
    ascii: false,
    write: (d) => {
      client?.tap?.(d);
      wrote?.();
      wrote = null;
      parsing = parsing.then(() => new Promise<void>((r) => screen.write(d, r)));
    },
    pendingBytes: () => 0,
    onClose: () => {},
  });
  client = {
    tui,
    screen,
    settled: () => parsing,
    nextWrite: () => new Promise<void>((r) => (wrote = r)),
    tap: null,
    close: () => {
      tui.dispose();
      svc.person.detach(person.id);
      screen.dispose();
    },
  };
  return client;
}

/** Waits until no frame has been drawn for a while (none is pending) and the client has read all. */
async function quiet(c: Client): Promise<void> {
  let last = -1;
  await waitFor(async () => {
    const now = c.tui.stats.frames;
    const same = now === last;
    last = now;
    if (!same) await new Promise((r) => setTimeout(r, FRAME_INTERVAL_MS * 2));
    return same;
  }, { what: 'the frames to stop' });
  await c.settled();
}

function rows(t: InstanceType<typeof Terminal>): string[] {
  const b = t.buffer.active;
  const out: string[] = [];
  for (let y = 0; y < t.rows; y++) {
    const line = b.getLine(b.baseY + y)!;
    let s = '';
    for (let x = 0; x < t.cols; x++) {
      const c = line.getCell(x)!;
      if (c.getWidth() === 0) continue;
      s += `${c.getChars() || ' '}${c.isFgDefault() ? '' : `{${c.getFgColor()}}`}${c.isBold() ? '*' : ''}`;
    }
    out.push(s);
  }
  return out;
}

/** The screen a client attaching now is drawn (its first, full frame). */
async function fresh(sessionId: string): Promise<string[]> {
  const c = attach(sessionId);
  try {
    await quiet(c);
    return rows(c.screen);
  } finally {
    c.close();
  }
}

/** Feeds a pane as its PTY would and resolves once the output is parsed (the listeners ran). */
function feed(w: Window, s: string): Promise<void> {
  return new Promise((resolve) => {
    const sub = w.onOutput(() => {
      sub.dispose();
      resolve();
    });
    w.feed(Buffer.from(s));
  });
}

let lastInstant = 0;

/** `p`, or a failure naming `what` after 20 s (a timer: waitFor's deadline reads Date.now, held below). */
function within<T>(p: Promise<T>, what: string): Promise<T> {
  let t: NodeJS.Timeout;
  const late = new Promise<never>((_, reject) => (t = setTimeout(() => reject(new Error(`timed out after 20000 ms waiting for ${what}`)), 20_000)));
  return Promise.race([p, late]).finally(() => clearTimeout(t));
}

/**
 * Runs `fn` with Date.now, the clock of the TUI's pacing, held at one instant: inside it no time
 * passes however slow the machine is, so each step happens within the frame interval of the
 * frame before it. Each instant is at least ECHO_FRAME_GAP_MS after the one before (real time
 * is waited for), as a person's keys are.
 */
async function atOneInstant(fn: () => Promise<void>): Promise<void> {
  const real = Date.now;
  await waitFor(() => real() >= lastInstant + ECHO_FRAME_GAP_MS, { what: 'the echo frame gap to pass' });
  const t = (lastInstant = real());
  Date.now = () => t;
  try {
    await fn();
  } finally {
    Date.now = real;
  }
}

/** A session whose one pane runs `cat` (its terminal echoes what is typed), a client attached,
 *  and the prompt `$ ` drawn. */
async function catAtPrompt(name: string): Promise<{ s: ReturnType<typeof daemon.svc.model.createSession>; w: Window; c: Client }> {
  const svc = daemon.svc;
  const s = svc.model.createSession({ name });
  const w = svc.model.createWindow(s, { name: 'cat', argv: ['cat'] });
  const c = attach(s.id);
  await quiet(c);
  await feed(w, '$ ');
  await quiet(c);
  return { s, w, c };
}

test('a typed key\'s echo is drawn at once after a frame; output alone waits for the pacing', async () => {
  const svc = daemon.svc;
  const { s, w, c } = await catAtPrompt('echo');
  try {
    for (let i = 0; i < 5; i++) {
      let paced = -1;
      await atOneInstant(async () => {
        // A frame that sent something, then a key to the pane and its echo within the interval.
        const drawn = c.nextWrite();
        await feed(w, 'y');
        await within(drawn, 'the frame of the output');
        const before = c.tui.stats.frames;
        c.tui.input(Buffer.from('x'));
        let atEcho = -1;
        const sub = w.onOutput(() => queueMicrotask(() => (atEcho = c.tui.stats.frames)));
        await feed(w, 'x');
        await new Promise((r) => setImmediate(r));
        sub.dispose();
        assert.is(atEcho, before + 1, 'the echo was drawn as soon as it was parsed');
        // Output with no key before it, still within the interval of the echo's frame: the
        // pacing holds it back (its frame is a timer, which cannot run before this reads the
        // count in the microtask after the output), and then draws it.
        paced = c.tui.stats.frames;
        let atOutput = -1;
        const sub2 = w.onOutput(() => queueMicrotask(() => (atOutput = c.tui.stats.frames)));
        await feed(w, 'z');
        sub2.dispose();
        assert.is(atOutput, paced, 'output alone is paced');
      });
      await waitFor(() => c.tui.stats.frames > paced, { what: 'the paced frame' });
      await quiet(c);
    }
    assert.equal(rows(c.screen), await fresh(s.id), 'the client shows what a fresh attach shows');
  } finally {
    c.close();
    svc.model.killSession(s);
  }
});

test('frames for pane output alone keep the client\'s screen as a full frame draws it', async () => {
  const svc = daemon.svc;
  const s = svc.model.createSession({ name: 'panes' });
  const a = svc.model.createWindow(s, { name: 'left', argv: ['cat'] });
  const c = attach(s.id);
  try {
    await quiet(c);
    const b = svc.model.createWindow(s, { name: 'right', argv: ['cat'] });
    await quiet(c);
    const steps: Array<[Window, string]> = [
      [a, '$ '],
      [a, 'e'],
      [a, 'cho hi\r\nhi\r\n$ '],
      [b, '\x1b[31mred\x1b[0m and \x1b[1mbold\x1b[0m\r\n'],
      [a, '\x1b]2;a title of its own\x07'],
      [b, 'wide 漢字\r\n'],
      [a, 'x'],
      [b, '\x1b[2J\x1b[Hcleared'],
    ];
    for (let i = 0; i < 30; i++) steps.push([i % 2 ? a : b, `line ${i}\r\n`]);
    const before = c.tui.stats.paneFrames;
    for (const [w, bytes] of steps) {
      await feed(w, bytes);
      await quiet(c);
      assert.equal(rows(c.screen), await fresh(s.id), `after ${JSON.stringify(bytes)} in ${w.name}`);
    }
    assert.ok(c.tui.stats.paneFrames > before, 'pane output drew frames of the panes alone');
    // The retitle is an event: its frame was a full one, and the tile's border shows the title.
    assert.match(c.screen.buffer.active.getLine(c.screen.buffer.active.baseY)!.translateToString(), /left · a title of its own/);
  } finally {
    c.close();
    svc.model.killSession(s);
  }
});

test('a key\'s echo in a new second is drawn alone, and the second\'s full frame follows it', async () => {
  const svc = daemon.svc;
  const s = svc.model.createSession({ name: 'second' });
  const w = svc.model.createWindow(s, { name: 'cat', argv: ['cat'] });
  const c = attach(s.id);
  const real = Date.now;
  try {
    await quiet(c);
    await feed(w, '$ ');
    await quiet(c);
    // A full frame at 0.9 s into a second, held there (Date.now is the pacing's and the frame's clock).
    await waitFor(() => real() >= lastInstant + ECHO_FRAME_GAP_MS, { what: 'the echo frame gap to pass' });
    const t = Math.floor(real() / 1000) * 1000 + 900;
    Date.now = () => t;
    const full = c.nextWrite();
    c.tui.redraw();
    await within(full, 'the full frame');
    // The key and its echo in the next second, past the echo frame gap.
    const t2 = t + 200;
    lastInstant = t2;
    Date.now = () => t2;
    const frames = c.tui.stats.frames;
    const paneFrames = c.tui.stats.paneFrames;
    c.tui.input(Buffer.from('x'));
    await feed(w, 'x');
    assert.is(c.tui.stats.frames, frames + 1, 'the echo was drawn in its output\'s callback');
    assert.is(c.tui.stats.paneFrames, paneFrames + 1, 'the echo\'s frame drew the pane alone');
    await waitFor(() => c.tui.stats.frames > frames + 1, { what: 'the new second\'s full frame' });
    assert.is(c.tui.stats.paneFrames, paneFrames + 1, 'the frame after the echo was a full one');
    Date.now = real;
    await quiet(c);
    assert.equal(rows(c.screen), await fresh(s.id), 'the client shows what a fresh attach shows');
  } finally {
    Date.now = real;
    c.close();
    svc.model.killSession(s);
  }
});

/** Types `ch` as the person (it goes to the pane's PTY, whose line discipline echoes it) and
 *  resolves once the echo is parsed, with what the client was sent before that parse began. */
async function typeAndEcho(c: Client, w: Window, ch: string): Promise<{ beforeParse: string }> {
  let sent = '';
  let beforeParse: string | null = null;
  c.tap = (d) => (sent += d);
  const mark = w.onBeforeParse((_, chunk) => {
    if (beforeParse === null && chunk.toString('latin1').includes(ch)) beforeParse = sent;
    return false;
  });
  const parsed = new Promise<void>((resolve) => {
    const sub = w.onOutput((_, chunk) => {
      if (!chunk.toString('latin1').includes(ch)) return;
      sub.dispose();
      resolve();
    });
  });
  try {
    c.tui.input(Buffer.from(ch));
    await within(parsed, `the echo of ${JSON.stringify(ch)}`);
    return { beforeParse: beforeParse ?? '' };
  } finally {
    mark.dispose();
    c.tap = null;
  }
}

const visible = (s: string) => s.replace(/\x1b\[[0-9;?]*[@-~]/g, '');

test('a typed key\'s plain echo reaches the client before it is parsed; any other is the frame\'s, and the screen stays as a full frame draws it', async () => {
  const svc = daemon.svc;
  const { s, w, c } = await catAtPrompt('ahead');
  try {
    // A plain echo at the cursor: the client has it before the emulator parses it.
    let ahead = c.tui.stats.echoesAhead;
    const plain = await typeAndEcho(c, w, 'k');
    assert.is(visible(plain.beforeParse), 'k', `sent before the parse: ${JSON.stringify(plain.beforeParse)}`);
    assert.is(c.tui.stats.echoesAhead, ahead + 1);
    await quiet(c);
    assert.equal(rows(c.screen), await fresh(s.id), 'after the echo sent ahead');
    // Where the echo would not be plain cells at the cursor, nothing goes ahead of the parse, and
    // the frame draws what the emulator made of it.
    const cases: Array<[string, string, string]> = [
      ['a colour in effect', '\x1b[31m', 'r'],
      ['insert mode', '\x1b[0m\x1b[4h', 'i'],
      ['the DEC line-drawing charset', '\x1b[4l\x1b(0', 'q'],
      ['the parser inside a sequence', '\x1b(B\x1b[', '2'],
      ['the parser still inside it', '', 'K'],
      ['the run reaching the margin', `\r\n${'a'.repeat(w.cols - 1)}`, 'm'],
      ['the cursor on half of a wide character', '\r\n\u6f22\x1b[D', 'w'],
    ];
    for (const [what, state, ch] of cases) {
      if (state) await feed(w, state);
      await quiet(c);
      ahead = c.tui.stats.echoesAhead;
      const r = await typeAndEcho(c, w, ch);
      assert.is(c.tui.stats.echoesAhead, ahead, `${what}: nothing went ahead`);
      assert.not.ok(visible(r.beforeParse).includes(ch), `${what}: the client had no ${ch} before the parse`);
      await quiet(c);
      assert.equal(rows(c.screen), await fresh(s.id), `${what}: the client shows what a fresh attach shows`);
    }
    // Plain again on a new line: it goes ahead once more.
    await feed(w, '\r\n$ ');
    await quiet(c);
    ahead = c.tui.stats.echoesAhead;
    await typeAndEcho(c, w, 'z');
    assert.is(c.tui.stats.echoesAhead, ahead + 1);
    await quiet(c);
    assert.equal(rows(c.screen), await fresh(s.id), 'after the last echo');
  } finally {
    c.close();
    svc.model.killSession(s);
  }
});

test.run();
