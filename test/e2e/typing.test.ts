// Typing to agents safely, against stand-ins that draw the screens captured from the real Claude
// Code (test/helpers/screen-standin.ts): ask-agent types once and returns the reply, refuses a
// pane on a prompt, a same-id retry types nothing; a queued message waits for the next rest;
// respond with a stale prompt id presses nothing; a risky command needs risk_ack; a strict-mode
// pane cannot type into a pane holding more, widen itself, or answer a prompt. Real PTYs, the
// real daemon and its real rules: nothing here sets an agent state by hand.
import { test } from 'uvu';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { screenStandin, type ScreenStandin } from '../helpers/screen-standin.js';
import type { RpcClient } from '../../core/rpc/client.js';
import { refusal } from '../helpers/refusal.js';
import { waitState } from '../helpers/agent-state.js';

let d: TestDaemon;
let client: RpcClient;
let nonce: string;
const agents = new Map<string, { id: string; s: ScreenStandin }>();
const TUIOS = `${process.execPath} ${BIN}`;

/** Waits for the named stand-in's pane to be `state`; a timeout tells what the stand-in last took. */
const waitIn = (w: string, state: string) =>
  waitState(d, w, state, { timeout: 30_000, what: `${w} ${state}`, explain: () => `stand-in saw ${JSON.stringify(agents.get(w)?.s.events().slice(-4))}` });
const submissions = (name: string) => agents.get(name)!.s.events().filter((e) => e.t === 'submit');
const keys = (name: string) => agents.get(name)!.s.events().filter((e) => e.t === 'key');

async function startAgent(name: string, grants?: string[]): Promise<string> {
  const s = screenStandin(d.dir, name);
  // In a project folder under HOME: the risk rules judge paths against the pane's root.
  const cwd = join(d.home, 'project');
  mkdirSync(cwd, { recursive: true });
  const w = await d.call<{ id: string }>('new-window', { session: 'fleet', name, argv: s.argv, env: s.env, cwd, cols: 120, rows: 40, ...(grants ? { grants } : {}) });
  agents.set(name, { id: w.id, s });
  await waitState(d, w.id, (a) => a.harness_id === 'claude-code' && a.state === 'idle', { timeout: 60_000, what: `${name} attributed to claude-code and at rest` });
  return w.id;
}

/** Takes a stand-in to its permission prompt for CMD and returns the peeked prompt. */
async function toPrompt(name: string, cmd: string): Promise<{ prompt_id: string; message?: string }> {
  const w = agents.get(name)!.id;
  const r = await d.call<{ state: string }>('ask-agent', { window: w, text: `run ${cmd}`, timeout: 30_000 });
  assert.is(r.state, 'needs_input');
  await waitState(d, w, (a) => a.message === `approve Bash: ${cmd}`, { timeout: 30_000, what: 'the approval message' });
  return d.call<{ prompt_id: string }>('peek-prompt', { window: w });
}

/** Runs a tuios command in the `shell` pane (strict, read only) and returns what it printed. */
let mark = 0;
async function inPane(args: string): Promise<string> {
  const m = `DONE${++mark}`;
  await d.call('send-text', { window: 'shell', text: `${TUIOS} ${args} 2>&1; echo "${m.slice(0, 2)}""${m.slice(2)}" rc=$?\n` });
  const screen = await d.waitScreen('shell', new RegExp(`${m} rc=\\d+`), 30_000);
  await d.call('send-text', { window: 'shell', text: 'clear\n' });
  await d.waitScreen('shell', new RegExp(`^(?![\\s\\S]*${m})`));
  return screen;
}

test.before(async () => {
  d = await TestDaemon.start({ config: '[agents.permissions]\nmode = "strict"\ngrants = ["read"]\n' });
  await d.ok(['new-session', 'fleet', 'sleep', '3600']);
  client = await d.client();
  const att = await client.stream<{ nonce: string | null }>('attach', { mode: 'control' }, () => {});
  nonce = att.nonce!;
  await startAgent('a1');
  await startAgent('a2');
  await startAgent('boss', ['read', 'write']);
  await d.call('new-window', { session: 'fleet', name: 'shell', argv: ['sh'], cols: 200, rows: 50 });
});

test.after(async () => {
  client.close();
  await d.stop();
});

test('ask-agent on a pane at rest types the prompt once and returns the reply', async () => {
  const r = await d.call<{ state: string; reply: string; transition_observed: boolean; delivery: string }>('ask-agent', { window: 'a1', text: 'hello there', timeout: 30_000 });
  assert.is(r.delivery, 'acked');
  assert.ok(r.transition_observed);
  assert.is(r.state, 'idle');
  assert.match(r.reply, 'reply: hello there');
  assert.equal(submissions('a1').map((e) => e.text), ['hello there']);
});

test('a same-id retry replays the result and types nothing', async () => {
  const first = await d.call<{ reply: string }>('ask-agent', { window: 'a1', text: 'once only', op_id: 'op-7', timeout: 30_000 });
  const again = await d.call<{ reply: string }>('ask-agent', { window: 'a1', text: 'once only', op_id: 'op-7', timeout: 30_000 });
  assert.equal(again, first);
  assert.equal(submissions('a1').filter((e) => e.text === 'once only').length, 1);
});

test('a pane on its permission prompt is refused (agent_blocked) and nothing is typed', async () => {
  await toPrompt('a2', 'touch a.txt');
  const before = agents.get('a2')!.s.events().length;
  const e = await refusal(d.call('ask-agent', { window: 'a2', text: 'are you there', timeout: 30_000 }));
  assert.is(e.code, 'agent_blocked');
  assert.is(agents.get('a2')!.s.events().length, before, 'no key reached the pane');
});

test('a queued message waits through the prompt and is typed once, at the next rest', async () => {
  const q = await d.call<{ id: string }>('queue-prompt', { window: 'a2', text: 'after the approval', nonce });
  const listed = await d.call<{ queued: Array<{ id: string; status: string }> }>('list-queued', { window: 'a2' });
  assert.ok(listed.queued.some((m) => m.id === q.id));
  // Still on the prompt: give the queue time to make a mistake.
  await waitFor(async () => (await d.call<{ queued: Array<{ id: string; status: string }> }>('list-queued', { window: 'a2' })).queued.length === 1, { timeout: 5_000 });
  assert.not.ok(submissions('a2').some((e) => e.text === 'after the approval'), 'not typed over the prompt');
  const p = await d.call<{ prompt_id: string }>('peek-prompt', { window: 'a2' });
  await d.call('respond', { window: 'a2', prompt_id: p.prompt_id, action: 'approve', nonce });
  await waitFor(() => submissions('a2').some((e) => e.text === 'after the approval'), { timeout: 30_000, what: 'the queued message typed' });
  const at = submissions('a2').find((e) => e.text === 'after the approval')!.at;
  const approved = keys('a2').find((e) => e.key === '1')!.at;
  assert.ok(at - approved >= 1000, `typed ${at - approved} ms after the answer: a rest of 1 s comes first`);
  await waitIn('a2', 'idle');
  assert.is(submissions('a2').filter((e) => e.text === 'after the approval').length, 1, 'typed once');
});

test('respond with a stale prompt id presses nothing', async () => {
  const old = await toPrompt('a1', 'touch b.txt');
  await d.call('respond', { window: 'a1', prompt_id: old.prompt_id, action: 'approve', nonce });
  await waitIn('a1', 'idle');
  const fresh = await toPrompt('a1', 'touch b.txt');
  assert.is.not(fresh.prompt_id, old.prompt_id, 'the same prompt asked again is a new prompt');
  const before = keys('a1').length;
  const e = await refusal(d.call('respond', { window: 'a1', prompt_id: old.prompt_id, action: 'approve', nonce }));
  assert.is(e.code, 'prompt_changed');
  assert.is(keys('a1').length, before, 'no key reached the pane');
  await d.call('respond', { window: 'a1', prompt_id: fresh.prompt_id, action: 'deny', nonce });
  await waitIn('a1', 'idle');
});

test('a risky rm -rf build needs risk_ack naming the rule; with it the command is allowed', async () => {
  const p = await toPrompt('a1', 'rm -rf build');
  const before = keys('a1').length;
  const e = await refusal(d.call('respond', { window: 'a1', prompt_id: p.prompt_id, action: 'approve', nonce }));
  assert.is(e.code, 'confirm_required');
  assert.is(keys('a1').length, before, 'no key reached the pane');
  const rules = (e as unknown as { risk_ack: string[] }).risk_ack;
  assert.ok(rules.includes('recursive delete'), `the refusal names the rules it matched: ${rules.join(', ')}`);
  // Naming fewer rules than matched is refused too.
  const partial = await refusal(d.call('respond', { window: 'a1', prompt_id: p.prompt_id, action: 'approve', risk_ack: ['nothing'], nonce }));
  assert.is(partial.code, 'confirm_required');
  await d.call('respond', { window: 'a1', prompt_id: p.prompt_id, action: 'approve', risk_ack: rules, nonce });
  await waitFor(() => keys('a1').some((k) => k.key === '1' && k.mode === 'approval'), { timeout: 10_000, what: 'the approval key' });
  await waitIn('a1', 'idle');
});

test('strict mode: a pane cannot type into a pane holding more, cannot widen itself, cannot answer a prompt', async () => {
  // boss holds read and write; a1 holds the default (read). The shell holds read too.
  let out = await inPane(`ask-agent -w boss 'take over'`);
  assert.match(out, /forbidden/, out);
  assert.match(out, /rc=[1-9]/);
  assert.not.ok(submissions('boss').some((e) => e.text === 'take over'));
  out = await inPane('send-text -w a1 hi');
  assert.match(out, /forbidden/, out);
  out = await inPane('set-pane-grants --grants read,write');
  assert.match(out, /forbidden/, out);
  const held = await inPane('pane-grants --json');
  assert.not.match(held.replace(/\s+/g, ''), /"write"/);
  const p = await toPrompt('a2', 'touch c.txt');
  const before = keys('a2').length;
  out = await inPane(`respond -w a2 --prompt-id ${p.prompt_id} approve`);
  assert.match(out, /not_human|forbidden/);
  assert.is(keys('a2').length, before, 'no key reached the pane');
  await d.call('respond', { window: 'a2', prompt_id: p.prompt_id, action: 'deny', nonce });
});

test('a pane with write queueing to a pane on its prompt is refused at queue time (it would need respond); at rest it is queued (spec: Queued messages)', async () => {
  // The shell holds write for this test only (the person gives it from outside every pane).
  await d.call('set-pane-grants', { window: 'shell', grants: ['read', 'write'] });
  try {
    const p = await toPrompt('a2', 'touch d.txt');
    let out = await inPane(`queue -w a2 'from a writer'`);
    assert.match(out, /forbidden/, out);
    assert.match(out, /waiting on a prompt/, out);
    const queued = () => d.call<{ queued: Array<{ text: string }> }>('list-queued', { window: 'a2' });
    assert.not.ok((await queued()).queued.some((m) => m.text === 'from a writer'), 'nothing was queued');
    await d.call('respond', { window: 'a2', prompt_id: p.prompt_id, action: 'deny', nonce });
    await waitIn('a2', 'idle');
    out = await inPane(`queue -w a2 'from a writer'`);
    assert.match(out, /rc=0/, out);
    await waitFor(() => submissions('a2').some((e) => e.text === 'from a writer'), { timeout: 30_000, what: 'the queued message typed at rest' });
  } finally {
    await d.call('set-pane-grants', { window: 'shell', grants: ['read'] });
  }
});

test.run();
