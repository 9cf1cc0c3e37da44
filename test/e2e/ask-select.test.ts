// ask-agent by selector, answered: with the confirm token of the set, every matching pane is asked
// and the result holds a row per pane, its reply or the refusal it met (a pane on its permission
// prompt is agent_blocked, nothing typed). The test daemon checks each result against the verb's
// result schema (TUIOS_CHECK_RESULTS=1), and the CLI prints a line per pane from the record.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { screenStandin, type ScreenStandin } from '../helpers/screen-standin.js';
import { refusal } from '../helpers/refusal.js';
import { waitState } from '../helpers/agent-state.js';
import type { AskReply } from '../../core/verbs/typing.js';

let d: TestDaemon;
const agents = new Map<string, { id: string; s: ScreenStandin }>();

type Row = (AskReply & { ok: true }) | { ok: false; window_id: string; name: string; error: { code: string; message: string } };

async function startAgent(name: string): Promise<string> {
  const s = screenStandin(d.dir, name);
  const cwd = join(d.home, 'project');
  mkdirSync(cwd, { recursive: true });
  const w = await d.call<{ id: string }>('new-window', { session: 'pick', name, argv: s.argv, env: s.env, cwd, cols: 120, rows: 40 });
  agents.set(name, { id: w.id, s });
  await waitState(d, w.id, (a) => a.harness_id === 'claude-code' && a.state === 'idle', { timeout: 60_000, what: `${name} attributed to claude-code and at rest` });
  return w.id;
}

const submissions = (name: string) => agents.get(name)!.s.events().filter((e) => e.t === 'submit').map((e) => e.text);

test.before(async () => {
  d = await TestDaemon.start();
  await d.ok(['new-session', 'pick', 'sleep', '3600']);
  await startAgent('s1');
  await startAgent('s2');
  // s2 on its permission prompt: an ask types nothing there.
  const r = await d.call<{ state: string }>('ask-agent', { window: 's2', text: 'run touch x.txt', timeout: 30_000 });
  assert.is(r.state, 'needs_input');
});

test.after(async () => {
  await d.stop();
});

test('an ask by selector with the confirm token answers a row per pane: the reply, or the refusal', async () => {
  const first = await refusal(d.call('ask-agent', { select: 'session:pick', text: 'hello both', timeout: 30_000 }));
  assert.is(first.code, 'confirm_required');
  const { confirm } = first as unknown as { confirm: string };
  const r = await d.call<{ panes: Row[] }>('ask-agent', { select: 'session:pick', text: 'hello both', confirm, timeout: 30_000 });
  const byName = new Map(r.panes.map((p) => [p.name, p]));
  assert.equal([...byName.keys()].sort(), ['s1', 's2']);
  const s1 = byName.get('s1')!;
  assert.ok(s1.ok, JSON.stringify(s1));
  if (s1.ok) {
    assert.is(s1.delivery, 'acked');
    assert.match(s1.reply, 'reply: hello both');
  }
  const s2 = byName.get('s2')!;
  assert.not.ok(s2.ok, JSON.stringify(s2));
  if (!s2.ok) assert.is(s2.error.code, 'agent_blocked');
  assert.equal(submissions('s1').filter((t) => t === 'hello both'), ['hello both'], 'typed once into s1');
  assert.not.ok(submissions('s2').includes('hello both'), 'nothing typed into s2');
});

test('the CLI prints a line per pane: its name and its state, or the code it was refused with', async () => {
  const first = await refusal(d.call('ask-agent', { select: 'session:pick', text: 'again', timeout: 30_000 }));
  const { confirm } = first as unknown as { confirm: string };
  const out = await d.ok(['ask-agent', '--select', 'session:pick', '--confirm', confirm, '--timeout', '30000', 'again']);
  assert.equal(out.trimEnd().split('\n').sort(), ['s1: idle', 's2: agent_blocked']);
});

test.run();
