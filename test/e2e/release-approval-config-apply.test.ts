// Two person-side verbs no other e2e file calls, run against a real daemon whose results are
// checked against their records' schemas (TUIOS_CHECK_RESULTS=1): release-approval ends a pane's
// held approval with no answer, so its harness asks in the pane; config-apply takes in a config
// change that gives panes more, which waited for it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { holdingHook, type HoldingHook } from '../helpers/holding-hook.js';
import { waitFor } from '../helpers/wait.js';
import type { RpcClient } from '../../core/rpc/client.js';
import type { ItemJson } from '../../core/verbs/inbox.js';

let d: TestDaemon;
let client: RpcClient;
let nonce: string;
let w = '';

const CONFIG = '[agents.approvals]\nenabled = ["claude"]\nhold_seconds = 120\n[agents.permissions]\nmode = "strict"\n[ssh]\nenabled = false\n';

/** A Claude Code PermissionRequest hook for the pane, which holds until the hold ends. */
const hold = (command: string): HoldingHook => holdingHook(d.env, w, 'conv-rel', command);

const heldNow = (h: HoldingHook) =>
  waitFor(async () => (await d.call<{ items: ItemJson[] }>('list-attention')).items.find((i) => i.window_id === w && i.held && i.ref.request_id), { timeout: 20_000, what: 'the held approval' }).catch((e: Error) => {
    throw new Error(`${e.message}; the hook said: ${h.said() || 'nothing'}`);
  });

test.before(async () => {
  d = await TestDaemon.start({ config: CONFIG });
  await d.ok(['new-session', 'work']);
  w = (await d.json<{ windows: Array<{ id: string }> }>(['list-windows'])).windows[0]!.id;
  client = await d.client();
  const att = await client.stream<{ nonce: string | null }>('attach', { mode: 'control' }, () => {});
  nonce = att.nonce!;
});

test.after(async () => {
  client.close();
  await d.stop();
});

test('release-approval: the person ends a held approval with no answer; the hook ends, the row goes; again, nothing is held', async () => {
  const hook = hold('rm -rf build');
  await heldNow(hook);
  const r = await client.call<{ window_id: string; released: boolean }>('release-approval', { window: w, nonce });
  assert.equal(r, { window_id: w, released: true });
  const end = await hook.done;
  assert.is(end.code, 0);
  await waitFor(async () => !(await d.call<{ items: ItemJson[] }>('list-attention')).items.some((i) => i.window_id === w && i.held), { what: 'the held row to go' });
  const again = await client.call<{ window_id: string; released: boolean }>('release-approval', { window: w, nonce });
  assert.equal(again, { window_id: w, released: false });
  // Without the nonce it is the person's act all the same: refused.
  const refused = await d.cli(['release-approval', '-w', w]);
  assert.is.not(refused.code, 0);
});

test('config-apply: nothing waiting applies nothing; a change that gives panes more waits for it, then takes effect', async () => {
  const none = await d.call('config-apply');
  assert.equal(none, { applied: false, error: null, warnings: [] });
  let g = await d.call<{ mode: string; waiting?: string }>('pane-grants', { window: w });
  assert.is(g.mode, 'strict');
  assert.is(g.waiting, undefined);
  writeFileSync(join(d.dir, 'config', 'tuios', 'config.toml'), CONFIG.replace('mode = "strict"', 'mode = "open"'));
  g = await waitFor(async () => {
    const x = await d.call<{ mode: string; waiting?: string }>('pane-grants', { window: w });
    return x.waiting ? x : null;
  }, { what: 'the wider config to wait for config-apply' });
  assert.is(g.mode, 'strict', 'more waits');
  assert.match(g.waiting!, /config-apply/);
  const applied = await d.call('config-apply');
  assert.equal(applied, { applied: true, error: null, warnings: [] });
  g = await d.call<{ mode: string; waiting?: string }>('pane-grants', { window: w });
  assert.is(g.mode, 'open');
  assert.is(g.waiting, undefined);
  // The CLI prints it by the record's print, fields: indented JSON, since warnings is a list.
  assert.is((await d.ok(['config-apply'])).trim(), JSON.stringify({ applied: false, error: null, warnings: [] }, null, 2));
});

test.run();
