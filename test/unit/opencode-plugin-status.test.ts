// The opencode and Kilo plugin's status line feed (spec: What feeds it), run as opencode loads it:
// the plugin file tuios writes, imported, its event hook given opencode's message.updated events.
// Its "tuios" is a script that records each call. It sends `agent-statusline HARNESS` with the
// model of the session's last assistant message and the sum of their costs, only when one of them
// changes (to the cent), never for a child session, and nothing outside tuios.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { pluginText } from '../../core/integrations/setup/table.js';
import { waitFor } from '../helpers/wait.js';

type Hooks = { event: (e: { event: unknown }) => Promise<void> };

async function loadPlugin(dir: string, harness: 'opencode' | 'kilo'): Promise<Hooks> {
  const rec = join(dir, 'tuios');
  // Each call: its arguments on the first line, then its stdin, in a file of its own.
  writeFileSync(rec, `#!/bin/sh\nf="${dir}/calls/$$"\necho "$*" > "$f.tmp"\ncat >> "$f.tmp"\nmv "$f.tmp" "$f.json"\n`);
  chmodSync(rec, 0o755);
  const file = join(dir, `${harness}-plugin.mjs`);
  writeFileSync(file, pluginText(rec, harness));
  const mod = (await import(pathToFileURL(file).href)) as { TuiosAgentState: () => Promise<Hooks> };
  return mod.TuiosAgentState();
}

function calls(dir: string): Array<{ args: string; payload: Record<string, unknown> }> {
  return readdirSync(join(dir, 'calls'))
    .filter((n) => n.endsWith('.json'))
    .map((n) => readFileSync(join(dir, 'calls', n), 'utf8'))
    .map((t) => ({ args: t.split('\n')[0]!, payload: JSON.parse(t.slice(t.indexOf('\n') + 1)) as Record<string, unknown> }));
}

const msg = (session: string, id: string, cost: number | undefined, model = 'claude-sonnet-4') => ({
  event: { type: 'message.updated', properties: { info: { id, sessionID: session, role: 'assistant', modelID: model, providerID: 'anthropic', ...(cost === undefined ? {} : { cost }) } } },
});

test('model and the sum of the session\'s costs, sent when they change, never for a child session', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-oc-plugin-'));
  const saved = process.env.TUIOS_ENV;
  try {
    mkdirSync(join(dir, 'calls'));
    process.env.TUIOS_ENV = '1';
    const p = await loadPlugin(dir, 'opencode');
    await p.event(msg('S1', 'm1', 0.5));
    await p.event(msg('S1', 'm1', 0.5)); // the same: nothing
    await p.event(msg('S1', 'm1', 0.501)); // the same to the cent: nothing
    await p.event(msg('S1', 'm2', 1.25)); // a second message: the sum
    await p.event({ event: { type: 'message.updated', properties: { info: { id: 'u1', sessionID: 'S1', role: 'user' } } } });
    // A child session (a subagent's) is not the pane's agent.
    await p.event({ event: { type: 'session.created', properties: { info: { id: 'C1', parentID: 'S1' } } } });
    await p.event(msg('C1', 'c1', 9));
    await p.event(msg('S1', 'm3', undefined, 'gpt-5')); // the model changed, no cost yet
    await waitFor(() => (calls(dir).filter((c) => c.args.startsWith('agent-statusline')).length >= 3 ? true : null), { what: 'three status calls' });
    const sl = calls(dir).filter((c) => c.args.startsWith('agent-statusline'));
    assert.is(sl.length, 3, JSON.stringify(sl));
    assert.ok(sl.every((c) => c.args === 'agent-statusline opencode --integration 3'), JSON.stringify(sl.map((c) => c.args)));
    const seen = sl.map((c) => `${c.payload.model}:${(c.payload.cost as number).toFixed(3)}`).sort();
    assert.equal(seen, ['claude-sonnet-4:0.500', 'claude-sonnet-4:1.751', 'gpt-5:1.751'].sort());
    assert.ok(sl.every((c) => c.payload.session_id === 'S1'));
    // Outside tuios: nothing.
    delete process.env.TUIOS_ENV;
    const before = calls(dir).length;
    await p.event(msg('S1', 'm4', 3));
    await new Promise((r) => setTimeout(r, 300));
    assert.is(calls(dir).length, before);
  } finally {
    if (saved === undefined) delete process.env.TUIOS_ENV;
    else process.env.TUIOS_ENV = saved;
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Kilo\'s plugin says kilo', async () => {
  const text = pluginText('/bin/tuios', 'kilo');
  assert.match(text, /\[verb, "kilo", "--integration", "3", \.\.\.budget\]/);
  assert.match(text, /tuios\("agent-statusline"/);
});

test.run();
