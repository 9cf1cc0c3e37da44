// The harness's [input] block decides the bytes a prompt is typed with (spec: Typing a prompt):
// a user manifest replacing claude-code's says submit = "lf" and focus_before_submit = true, and
// three panes that differ only in the modes they set take exactly these bytes: a bracketed paste
// only with DECSET 2004 on, a focus-in report only with DECSET 1004 on, then the line feed.
// The stand-in paints the captured Claude Code idle screen, logs every byte it reads and takes
// no prompt, so each ask ends in prompt_stalled once the bytes are in.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDaemon, ROOT } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { parseFixture } from '../../core/agent/fixture.js';
import { RpcError } from '../../core/rpc/client.js';

const PROGRAM = `
import { appendFileSync, readFileSync } from 'node:fs';
const S = JSON.parse(readFileSync(process.env.STANDIN_SCREEN, 'utf8'));
if (process.env.PASTE_MODE === '1') process.stdout.write('\\x1b[?2004h');
if (process.env.FOCUS_MODE === '1') process.stdout.write('\\x1b[?1004h');
process.stdout.write('\\x1b]0;' + S.title + '\\x07\\x1b[H\\x1b[2J' + S.lines.join('\\r\\n'));
process.stdin.setRawMode(true);
process.stdin.on('data', (d) => appendFileSync(process.env.STANDIN_LOG, d));
process.on('SIGTERM', () => process.exit(0));
setInterval(() => {}, 1 << 30);
`;

let d: TestDaemon;
let dir: string;

test.before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tuios-harnesses-'));
  // The bundled manifest whole, with its [input] block changed: a user file replaces, never merges.
  const bundled = readFileSync(join(ROOT, 'manifests', 'claude-code.toml'), 'utf8');
  const edited = bundled.replace(/\[input\][\s\S]*?\n\n/, '[input]\nsubmit = "lf"\nbracketed_paste = true\nfocus_before_submit = true\nsource = "a test manifest"\n\n');
  assert.ok(edited.includes('submit = "lf"'));
  writeFileSync(join(dir, 'claude-code.toml'), edited);
  d = await TestDaemon.start({ env: { TUIOS_HARNESS_DIR: dir } });
  const bin = join(d.dir, 'bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, join(bin, 'claude'));
  writeFileSync(join(d.dir, 'standin.mjs'), PROGRAM);
  const f = parseFixture(readFileSync(join(ROOT, 'fixtures', 'screens', 'claude-code', 'idle-fresh-120x40.screen'), 'utf8'), 'idle');
  writeFileSync(join(d.dir, 'screen.json'), JSON.stringify({ title: f.title, lines: f.lines.map((l) => l.trimEnd()) }));
  await d.ok(['new-session', 'in', 'sleep', '3600']);
});

test.after(async () => {
  await d.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function pane(name: string, paste: boolean, focus: boolean): Promise<{ id: string; log: string }> {
  const log = join(d.dir, `${name}.log`);
  writeFileSync(log, '');
  const w = await d.call<{ id: string }>('new-window', {
    session: 'in',
    name,
    argv: [join(d.dir, 'bin', 'claude'), join(d.dir, 'standin.mjs')],
    env: { STANDIN_SCREEN: join(d.dir, 'screen.json'), STANDIN_LOG: log, PASTE_MODE: paste ? '1' : '0', FOCUS_MODE: focus ? '1' : '0' },
    cols: 120,
    rows: 40,
  });
  await waitFor(async () => {
    const a = await d.call<{ state: string; harness_id?: string }>('get-agent-state', { window: w.id });
    return a.harness_id === 'claude-code' && a.state === 'idle';
  }, { timeout: 60_000, what: `${name} attributed and at rest` });
  return { id: w.id, log };
}

test('the manifest from TUIOS_HARNESS_DIR replaces the bundled one', async () => {
  const e = JSON.parse(await d.ok(['explain-agent-screen', '--harness', 'claude-code', '--screen-file', join(ROOT, 'fixtures', 'screens', 'claude-code', 'idle-fresh-120x40.screen'), '--json']));
  assert.is(e.replaces_bundled, true, `manifest_source ${e.manifest_source}`);
});

test('a bracketed paste only with DECSET 2004, a focus-in report only with DECSET 1004, then the manifest\'s submit key', async () => {
  const panes = await Promise.all([pane('both', true, true), pane('paste', true, false), pane('plain', false, false)]);
  const asks = await Promise.allSettled(panes.map((p) => d.call('ask-agent', { window: p.id, text: `hello ${p.id}`, timeout: 30_000 })));
  for (const a of asks) {
    assert.is(a.status, 'rejected');
    assert.is(((a as PromiseRejectedResult).reason as RpcError).body.code, 'prompt_stalled', 'the stand-in takes nothing');
  }
  const bytes = panes.map((p) => readFileSync(p.log, 'utf8'));
  assert.is(bytes[0], `\x1b[200~hello ${panes[0]!.id}\x1b[201~\x1b[I\n`);
  assert.is(bytes[1], `\x1b[200~hello ${panes[1]!.id}\x1b[201~\n`);
  assert.is(bytes[2], `hello ${panes[2]!.id}\n`);
});

test.run();
