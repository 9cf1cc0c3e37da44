// A stand-in Claude Code for e2e tests of typing, the queue, peek/respond and grants: a small
// program that draws the screens captured from the real Claude Code (fixtures/screens/claude-code)
// on cue, so the bundled rules read exactly what they read on the real program. Its process is
// attributed to claude-code the way the real one is, by name: it runs as `claude` (a symlink to
// node, so comm and argv0 say claude).
//
// What it does: draws the idle screen; takes one bracketed paste and Enter as a submission and
// logs it (one JSON line per submission or key in its log file); draws the working screen; then
//   - a prompt starting `run CMD` asks permission for CMD (the captured permission screen with
//     its command replaced), and `1` approves it (working, then the finished screen), `4` (No) or Esc
//     denies it (the idle screen);
//   - any other prompt finishes after a short working spell, replying `reply: PROMPT`.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseFixture } from '../../core/agent/fixture.js';
import { ROOT } from './daemon.js';

function screen(name: string): { title: string; lines: string[] } {
  const file = join(ROOT, 'fixtures', 'screens', 'claude-code', name);
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
  const bin = join(dir, 'standin-bin');
  mkdirSync(bin, { recursive: true });
  const claude = join(bin, 'claude');
  try {
    symlinkSync(process.execPath, claude);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
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
    argv: [claude, program],
    env: { STANDIN_SCREENS: screensFile, STANDIN_LOG: log },
    log,
    events: () =>
      readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
  };
}
