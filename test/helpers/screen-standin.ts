// Stand-ins for Claude Code in e2e tests: small programs that draw the screens captured from the
// real Claude Code (fixtures/screens/claude-code) on cue, so the bundled rules read exactly what
// they read on the real program. Their process is attributed to claude-code the way the real one
// is, by name: they run as `claude` (a symlink to node, so comm and argv0 say claude).
//
// screenStandin, for typing, the queue, peek/respond and grants, takes prompts and answers. It
// draws the idle screen; takes one bracketed paste and Enter as a submission and logs it (one JSON
// line per submission or key in its log file); draws the working screen; then
//   - a prompt starting `run CMD` asks permission for CMD (the captured permission screen with
//     its command replaced), and `1` approves it (working, then the finished screen), `4` (No) or Esc
//     denies it (the idle screen);
//   - any other prompt finishes after a short working spell, replying `reply: PROMPT`.
//
// screenPainter, for the screen rules and the bytes typing sends, takes nothing: it paints one
// screen per line it reads and logs every paint and every byte it is typed.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFixture } from '../../core/detection/fixture.js';
import { ROOT } from './daemon.js';

function screen(name: string): { title: string; lines: string[] } {
  const file = join(ROOT, 'fixtures', 'screens', 'claude-code', '2.1.332', name);
  const f = parseFixture(readFileSync(file, 'utf8'), file);
  return { title: f.title, lines: f.lines.map((l) => l.replace(/\s+$/, '')) };
}

const PROGRAM = `
import { appendFileSync, readFileSync } from 'node:fs';
const S = JSON.parse(readFileSync(process.env.STANDIN_SCREENS, 'utf8'));
const LOG = process.env.STANDIN_LOG;
const WORK_MS = Number(process.env.STANDIN_WORK_MS || 400);
const out = (s) => process.stdout.write(s);
const log = (o) => appendFileSync(LOG, JSON.stringify({ ...o, at: Date.now() }) + '\\n');
function draw(sc, edit = (l) => l) {
  out('\\x1b]0;' + sc.title + '\\x07\\x1b[H\\x1b[2J' + sc.lines.map(edit).join('\\r\\n'));
}
let mode = 'idle';
let cmd = '';
const finished = (prompt, reply) => draw(S.done, (l) => l.startsWith('❯ Please create') ? '❯ ' + prompt : l.startsWith('● Done!') ? '● ' + reply : l);
function submit(text) {
  log({ t: 'submit', text });
  mode = 'working';
  draw(S.working, (l) => l.startsWith('❯ Please create') ? '❯ ' + text : l);
  const m = /^run (.+)$/.exec(text);
  setTimeout(() => {
    if (m) {
      cmd = m[1];
      mode = 'approval';
      draw(S.approval, (l) => l.replaceAll('touch hello.txt', cmd).replace('❯ Please create hello.txt', '❯ ' + text));
    } else {
      mode = 'idle';
      finished(text, 'reply: ' + text);
    }
  }, WORK_MS);
}
function key(k) {
  log({ t: 'key', key: k, mode });
  if (mode !== 'approval') return;
  if (k === '1') {
    mode = 'working';
    draw(S.workingAfter);
    setTimeout(() => { mode = 'idle'; finished('run ' + cmd, 'ran ' + cmd); }, WORK_MS);
  } else if (k === '4' || k === '\\x1b') {
    mode = 'idle';
    draw(S.idle);
  }
}
process.stdin.setRawMode(true);
out('\\x1b[?2004h');
draw(S.idle);
let buf = '';
let pasting = false;
let paste = null;
process.stdin.on('data', (d) => {
  buf += d.toString('utf8');
  for (;;) {
    if (pasting) {
      const end = buf.indexOf('\\x1b[201~');
      if (end < 0) { paste += buf; buf = ''; return; }
      paste += buf.slice(0, end);
      buf = buf.slice(end + 6);
      pasting = false;
      if (mode === 'idle') draw(S.idle, (l) => l === '❯' ? '❯ ' + paste : l);
      continue;
    }
    if (buf.startsWith('\\x1b[200~')) { pasting = true; paste = ''; buf = buf.slice(6); continue; }
    if (buf === '') return;
    const c = buf[0];
    buf = buf.slice(1);
    if (c === '\\r' && mode === 'idle' && paste !== null && paste !== '') { const t = paste; paste = null; submit(t); continue; }
    if (c === '\\x03') process.exit(0);
    key(c);
  }
});
process.on('SIGTERM', () => process.exit(0));
setInterval(() => {}, 1 << 30);
`;

/** How long the `f` flash of the idle box between two working frames lasts: under the 300 ms idle hold. */
export const FLASH_MS = 200;

const PAINTER = `
import { appendFileSync, readFileSync } from 'node:fs';
const S = JSON.parse(readFileSync(process.env.STANDIN_SCREENS, 'utf8'));
const log = (o) => appendFileSync(process.env.STANDIN_LOG, JSON.stringify({ ...o, at: Date.now() }) + '\\n');
const paint = (n) => { process.stdout.write('\\x1b]0;' + S[n].title + '\\x07\\x1b[H\\x1b[2J' + S[n].lines.join('\\r\\n')); log({ paint: n }); };
log({ start: true });
if (process.env.PAINTER_PASTE === '1') process.stdout.write('\\x1b[?2004h');
if (process.env.PAINTER_FOCUS === '1') process.stdout.write('\\x1b[?1004h');
paint('idle');
process.stdin.setRawMode(true);
let buf = '';
process.stdin.on('data', (d) => {
  log({ input: d.toString() });
  // A prompt that comes up while a paste is being typed: the check before Enter must see it.
  if (process.env.PAINTER_PROMPT_ON_PASTE === '1' && d.toString().includes('\\x1b[200~')) paint('approval');
  // send-text brackets its text for a pane that asked for bracketed paste: the markers are not the command.
  buf += d.toString().replaceAll('\\x1b[200~', '').replaceAll('\\x1b[201~', '');
  let i;
  while ((i = buf.indexOf('\\r')) >= 0) {
    const c = buf.slice(0, i).trim();
    buf = buf.slice(i + 1);
    if (c === 'i') paint('idle');
    else if (c === 'w') paint('working');
    else if (c === 'a') paint('approval');
    else if (c === 'r') paint('risky');
    else if (c === 'p') { process.stdout.write('\\x1b]9;4;1;42\\x07'); log({ paint: 'progress' }); }
    else if (c === 'f') { paint('idle'); setTimeout(() => paint('working'), ${FLASH_MS}); }
  }
});
process.on('SIGTERM', () => process.exit(0));
setInterval(() => {}, 1 << 30);
`;

/** The folder the stand-ins run from, with `as` in it: a symlink to node, so comm and argv0 say `as`. */
function standinBin(dir: string, as: string): { bin: string; exe: string } {
  const bin = join(dir, 'standin-bin');
  mkdirSync(bin, { recursive: true });
  const exe = join(bin, as);
  try {
    symlinkSync(process.execPath, exe);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  return { bin, exe };
}

const readLog = <T>(log: string): T[] =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);

export interface ScreenStandin {
  /** The argv of a pane running it (120x40, the size its screens were captured at). */
  argv: string[];
  env: Record<string, string>;
  log: string;
  /** What the stand-in took so far: submissions and keys, in order. */
  events(): Array<{ t: 'submit' | 'key'; text?: string; key?: string; mode?: string; at: number }>;
}

/** Writes the stand-in under `dir`; each pane gets its own log by `name`. */
export function screenStandin(dir: string, name: string): ScreenStandin {
  const { bin, exe } = standinBin(dir, 'claude');
  const program = join(bin, 'standin.mjs');
  writeFileSync(program, PROGRAM);
  const log = join(dir, `standin-${name}.log`);
  writeFileSync(log, '');
  const screens = {
    idle: screen('idle-fresh-120x40.screen'),
    working: screen('working-120x40.screen'),
    approval: screen('approval-shell-command-120x40.screen'),
    workingAfter: screen('working-after-approval-120x40.screen'),
    done: screen('done-after-approved-command-120x40.screen'),
  };
  const screensFile = join(bin, 'screens.json');
  writeFileSync(screensFile, JSON.stringify(screens));
  return {
    argv: [exe, program],
    env: { STANDIN_SCREENS: screensFile, STANDIN_LOG: log },
    log,
    events: () => readLog(log),
  };
}

export interface PainterOptions {
  /** The name it runs as (default `claude`, which the bundled manifest attributes to claude-code). */
  as?: string;
  /** Turns on bracketed paste (DECSET 2004) before the first paint. */
  paste?: boolean;
  /** Turns on focus reports (DECSET 1004) before the first paint. */
  focus?: boolean;
  /** Paints the permission prompt as soon as a bracketed paste starts to arrive. */
  promptOnPaste?: boolean;
}

export interface ScreenPainter {
  /** The argv of a pane running it (120x40, the size its screens were captured at). */
  argv: string[];
  env: Record<string, string>;
  log: string;
  /** Its start and every screen it painted (`progress` for the OSC 9;4 report), in order, with their times. */
  paints(): Array<{ paint?: string; start?: boolean; at: number }>;
  /** Every byte it was typed, in order. */
  inputs(): string;
}

/**
 * Writes the painter under `dir`; each pane gets its own log by `name`. It paints the captured idle
 * screen, then one screen per line (ending in CR) it reads: `i` idle, `w` working, `a` the
 * permission prompt for touch hello.txt, `r` the same for rm -rf build, `f` a frame of the idle
 * box FLASH_MS before the working screen again, `p` an OSC 9;4 progress report (4;1;42).
 * Anything else it reads it only logs: a prompt it is typed is never taken.
 */
export function screenPainter(dir: string, name: string, opts: PainterOptions = {}): ScreenPainter {
  const { bin, exe } = standinBin(dir, opts.as ?? 'claude');
  const program = join(bin, 'painter.mjs');
  writeFileSync(program, PAINTER);
  const log = join(dir, `painter-${name}.log`);
  writeFileSync(log, '');
  const approval = screen('approval-shell-command-120x40.screen');
  const screens = {
    idle: screen('idle-fresh-120x40.screen'),
    working: screen('working-120x40.screen'),
    approval,
    // The captured permission screen for another command, the way the harness draws it.
    risky: { title: approval.title, lines: approval.lines.map((l) => l.replaceAll('touch hello.txt', 'rm -rf build')) },
  };
  const screensFile = join(bin, 'painter-screens.json');
  writeFileSync(screensFile, JSON.stringify(screens));
  const flag = (on: boolean | undefined) => (on ? '1' : '0');
  return {
    argv: [exe, program],
    env: { STANDIN_SCREENS: screensFile, STANDIN_LOG: log, PAINTER_PASTE: flag(opts.paste), PAINTER_FOCUS: flag(opts.focus), PAINTER_PROMPT_ON_PASTE: flag(opts.promptOnPaste) },
    log,
    paints: () => readLog<{ paint?: string; start?: boolean; at: number }>(log).filter((x) => x.paint !== undefined || x.start),
    inputs: () =>
      readLog<{ input?: string }>(log)
        .map((x) => x.input ?? '')
        .join(''),
  };
}
