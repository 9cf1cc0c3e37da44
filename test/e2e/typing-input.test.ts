// The harness's [input] block decides the bytes a prompt is typed with (spec: Typing a prompt):
// a user manifest replacing claude-code's says submit = "lf" and focus_before_submit = true, and
// three panes that differ only in the modes they set take exactly these bytes: a bracketed paste
// only with DECSET 2004 on, a focus-in report only with DECSET 1004 on, then the line feed.
// The stand-in (test/helpers/screen-standin's painter) paints the captured Claude Code idle screen,
// logs every byte it reads and takes no prompt, so each ask ends in prompt_stalled once the bytes
// are in.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDaemon, ROOT } from '../helpers/daemon.js';
import { waitState } from '../helpers/agent-state.js';
import { screenPainter } from '../helpers/screen-standin.js';
import { RpcError } from '../../core/rpc/client.js';

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
  await d.ok(['new-session', 'in', 'sleep', '3600']);
});

test.after(async () => {
  await d.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function pane(name: string, paste: boolean, focus: boolean): Promise<{ id: string; inputs: () => string }> {
  const p = screenPainter(d.dir, name, { paste, focus });
  const w = await d.call<{ id: string }>('new-window', {
    session: 'in',
    name,
    argv: p.argv,
    env: p.env,
    cols: 120,
    rows: 40,
  });
  await waitState(d, w.id, (a) => a.harness_id === 'claude-code' && a.state === 'idle', { timeout: 60_000, what: `${name} attributed and at rest` });
  return { id: w.id, inputs: p.inputs };
}

test('the manifest from TUIOS_HARNESS_DIR replaces the bundled one', async () => {
  const e = JSON.parse(await d.ok(['explain-agent-screen', '--harness', 'claude-code', '--screen-file', join(ROOT, 'fixtures', 'screens', 'claude-code', '2.1.332', 'idle-fresh-120x40.screen'), '--json']));
  assert.is(e.replaces_bundled, true, `manifest_source ${e.manifest_source}`);
});

test('a bracketed paste only with DECSET 2004, a focus-in report only with DECSET 1004, then the manifest\'s submit key', async () => {
  const panes = await Promise.all([pane('both', true, true), pane('paste', true, false), pane('plain', false, false)]);
  const asks = await Promise.allSettled(panes.map((p) => d.call('ask-agent', { window: p.id, text: `hello ${p.id}`, timeout: 30_000 })));
  for (const a of asks) {
    assert.is(a.status, 'rejected');
    assert.is(((a as PromiseRejectedResult).reason as RpcError).body.code, 'prompt_stalled', 'the stand-in takes nothing');
  }
  const bytes = panes.map((p) => p.inputs());
  assert.is(bytes[0], `\x1b[200~hello ${panes[0]!.id}\x1b[201~\x1b[I\n`);
  assert.is(bytes[1], `\x1b[200~hello ${panes[1]!.id}\x1b[201~\n`);
  assert.is(bytes[2], `hello ${panes[2]!.id}\n`);
});

test.run();
