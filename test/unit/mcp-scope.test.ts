// restrict-connection's reach (core/security/access.ts): the pane's own session, the sessions of
// its fan group (the `group` attribute) and the sessions a fan from it started (`launched_by`);
// any other answers forbidden. An in-process daemon, so the sessions' fan attributes can be set
// as a fan sets them; the pane is proven by its token, as where the kernel cannot name it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startInProcessDaemon } from '../helpers/in-process-daemon.js';
import { RpcClient, RpcError } from '../../core/rpc/client.js';

async function code(p: Promise<unknown>): Promise<string> {
  return p.then(() => 'ok', (e: unknown) => (e instanceof RpcError ? e.code : `threw ${String(e)}`));
}

test('own session, fan group and launched sessions answer; others are forbidden', async () => {
  const d = await startInProcessDaemon({ extensions: [] });
  const c = await RpcClient.connect(d.paths.socket);
  try {
    const pane: Record<string, string> = {};
    for (const s of ['home', 'sibling', 'launched', 'far']) {
      await c.call('new-session', { name: s, argv: ['sleep', '600'] });
      pane[s] = d.svc.model.focusedWindow(d.svc.model.findSession(s))!.id;
    }
    const me = d.svc.model.windows.get(pane.home!)!;
    d.svc.model.findSession('home').attrs.set('group', 'fan/x');
    d.svc.model.findSession('sibling').attrs.set('group', 'fan/x');
    d.svc.model.findSession('launched').attrs.set('launched_by', me.id);
    d.svc.model.findSession('far').attrs.set('group', 'fan/other');

    const r = await RpcClient.connect(d.paths.socket);
    try {
      assert.is(await code(r.call('restrict-connection', { pane: me.id, pane_token: me.paneToken })), 'ok');
      for (const s of ['home', 'sibling', 'launched']) assert.is(await code(r.call('capture-pane', { window: pane[s] })), 'ok', s);
      assert.is(await code(r.call('capture-pane', { window: pane.far })), 'forbidden');
      assert.is(await code(r.call('subscribe', { session: 'far' })), 'forbidden');
      const rows = await r.call<{ windows: Array<{ id: string }> }>('list-windows', {});
      assert.equal(rows.windows.map((w) => w.id).sort(), [pane.home, pane.sibling, pane.launched].sort());
    } finally {
      r.close();
    }
  } finally {
    c.close();
    await d.stop();
  }
});

test.run();
