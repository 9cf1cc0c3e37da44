// Long calls over the link: a hub whose generic cap on a remote call is 2 s (as the 90 s cap is
// for a fan of real agents), linked to `build`, whose stand-in agents never become ready. A
// forwarded start-agent -s HOST:SESSION or fan --host waits its own --timeout, not the cap; any
// other forwarded call (a wait-for) is still cut at the cap.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { link, startHost, type Host } from '../helpers/link.js';
import { installStandin } from '../helpers/worktree-standin.js';
import { makeRepo, removeDir, tempDir } from '../helpers/worktree-repos.js';

const CAP_S = 2;
const WAIT_MS = 6000;
let hub: Host;
let build: Host;
let root: string;
let peerRepo: string;

test.before(async () => {
  root = tempDir('tuios-link-deadline-');
  peerRepo = makeRepo(join(root, 'build', 'api'));
  build = await startHost('build', { env: installStandin(join(root, 'tools')) });
  hub = await startHost('hub', { env: { TUIOS_LINK_CALL_TIMEOUT_SECONDS: String(CAP_S) } });
  await link(hub, build);
  await build.d.ok(['new-session', 'work', '--cwd', peerRepo]);
});

test.after(async () => {
  for (const h of [hub, build]) await h?.d.stop();
  removeDir(root);
});

test('start-agent -s HOST:SESSION waits its own --timeout across the link, past the generic cap', async () => {
  const t0 = Date.now();
  const r = await hub.d.cli(['start-agent', 'standin', '--name', 'slow', '--prompt', 'later', '-s', 'build:work', '--timeout', String(WAIT_MS), '--json'], { timeoutMs: 120_000 });
  const took = Date.now() - t0;
  assert.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { host: string; session: string; ready: boolean; prompt_status: string };
  assert.is(out.host, 'build');
  assert.is(out.session, 'work');
  assert.is(out.ready, false, 'the stand-in never became ready');
  assert.is(out.prompt_status, 'waiting');
  assert.ok(took >= WAIT_MS, `it waited its ${WAIT_MS} ms (${took} ms), past the ${CAP_S} s cap`);
});

test('fan --host waits its own --timeout across the link, past the generic cap', async () => {
  const t0 = Date.now();
  const r = await hub.d.cli(['fan', '1', '--agent', 'standin', 'slow work', '--host', 'build', '--repo', peerRepo, '--branch', 'fan/slow', '--timeout', String(WAIT_MS), '--json'], { timeoutMs: 120_000 });
  const took = Date.now() - t0;
  assert.is(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout) as { host: string; attempts: Array<{ branch: string; prompt_status: string }> };
  assert.is(out.host, 'build');
  assert.equal(out.attempts.map((a) => [a.branch, a.prompt_status]), [['fan/slow-1', 'waiting']]);
  assert.ok(took >= WAIT_MS, `it waited its ${WAIT_MS} ms (${took} ms)`);
});

test('any other forwarded call keeps the generic cap', async () => {
  const r = await hub.d.cli(['wait-for', 'window-output', '-w', 'build:work:slow', 'never printed', '--timeout', '20000'], { timeoutMs: 60_000 });
  assert.is(r.code, 124, r.stderr);
  // Cut at the cap, not at its own 20 s: the error is the link's, naming the cap (a wall-clock
  // ceiling here would only measure the machine's load).
  assert.match(r.stderr, new RegExp(`build did not answer wait-for within ${CAP_S} s`));
});

test.run();
