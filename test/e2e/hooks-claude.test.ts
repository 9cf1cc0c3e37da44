// The real Claude Code from npm, against the local fake model API, with `tuios integration install
// claude-code` written into its temp HOME: the pane's states come from its hooks (source report),
// its conversation id is stored, a Bash permission held for the Inbox is allowed from the attached
// client and the command runs, and uninstall leaves settings.json byte for byte as it was.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN } from '../helpers/daemon.js';
import type { RpcClient } from '../../core/rpc/client.js';
import { waitFor } from '../helpers/wait.js';
import { RealAgent } from '../helpers/real-agent.js';
import { Terminal } from '../helpers/terminal.js';
import type { AgentState } from '../helpers/agent-state.js';

interface InboxItem {
  id: number;
  kind: string;
  window_id: string | null;
  summary: string;
  held?: boolean;
  ref: Record<string, string>;
}

const t = suite('Claude Code hooks');
let settings = '';
let before = Buffer.alloc(0);
let person: RpcClient | null = null;
let nonce = '';
const claude = new RealAgent('claude-code', {
  name: 'claude',
  daemon: { config: '[agents.approvals]\nenabled = ["claude"]\nhold_seconds = 120\n' },
  async prepare(a) {
    settings = join(a.run.home, '.claude', 'settings.json');
    before = readFileSync(settings);
    const inst = await a.d.cli(['integration', 'install', 'claude-code', '--command', BIN], { env: { HOME: a.run.home } });
    assert.is(inst.code, 0, inst.stderr);
    // The person: a control client attached from outside every pane holds the nonce.
    person = await a.d.client();
    const att = await person.stream<{ nonce: string | null }>('attach', { mode: 'control' }, () => {});
    nonce = att.nonce ?? '';
  },
});
const it = claude.gate(t);
const row = () => claude.state();
const waitRow = (what: string, pred: (r: AgentState) => boolean, timeout = 120_000) => claude.waitState(pred, { what, timeout });

t.before(() => claude.start());
t.after(async () => {
  person?.close();
  await claude.stop();
});

it('the integration is installed and current', async () => {
  const st = JSON.parse((await claude.d.ok(['integration', 'status', 'claude-code', '--json'], { env: { HOME: claude.run.home } })).trim()) as { integrations: Array<{ state: string; version: number; program?: string }> };
  assert.is(st.integrations[0]!.state, 'installed');
  assert.is(st.integrations[0]!.version, 3);
  assert.is(st.integrations[0]!.program, BIN);
});

it('SessionStart reports idle from the hook and stores the conversation id', async () => {
  assert.ok(nonce, 'the control client got a nonce');
  const r = await claude.sessionStartReported();
  assert.is(r.harness_id, 'claude-code');
  assert.match(r.agent_session_id ?? '', /^[0-9a-f-]{36}$/);
  assert.is(r.agent_session_harness, 'claude-code');
});

it('a Bash permission is held for the Inbox, allowed from the attached client, and the command runs', async () => {
  const from = claude.states.length;
  await claude.d.call('ask-agent', { window: claude.window, text: 'Please create hello.txt', timeout: 120_000 });
  const item = await waitFor(async () => {
    const l = await claude.d.call<{ items: InboxItem[] }>('list-attention');
    return l.items.find((i) => i.window_id === claude.window && i.held && i.ref.request_id);
  }, { timeout: 120_000, what: 'the held approval in the Inbox' }).catch(async (e) => {
    throw new Error(`${(e as Error).message}\nrow: ${JSON.stringify(await row())}\nscreen:\n${await claude.screen()}`);
  });
  assert.is(item.kind, 'approval');
  assert.is(item.summary, 'approve Bash: touch hello.txt');
  assert.is(item.ref.line, 'approve Bash: touch hello.txt');
  assert.ok(!existsSync(join(claude.project, 'hello.txt')), 'nothing ran before the answer');
  const r = await row();
  assert.is(r.state, 'needs_input');
  assert.is(r.source, 'report');
  // An answer from inside a pane, or without the nonce, is refused.
  const noNonce = await claude.d.cli(['reply-approval', item.ref.request_id!, '1', '--line', item.ref.line!]);
  assert.is.not(noNonce.code, 0);
  assert.match(noNonce.stderr, /not_human/);
  // A key answers only after the item has been on screen 0.4 s: wait on the daemon saying so.
  await waitFor(async () => {
    try {
      return await person!.call('reply-approval', { request_id: item.ref.request_id, answer: '1', line: item.ref.line, nonce });
    } catch (e) {
      if (/just arrived/.test((e as Error).message)) return null;
      throw e;
    }
  }, { timeout: 5000, what: 'the answer to be taken' });
  await waitFor(() => existsSync(join(claude.project, 'hello.txt')), { timeout: 60_000, what: 'the allowed command to run' });
  const done = await waitRow('the Stop report', (x) => x.state === 'done' && x.source === 'report');
  assert.match(done.message ?? '', /Created hello\.txt/);
  assert.match(done.agent_session_id ?? '', /^[0-9a-f-]{36}$/, 'the conversation id is stored');
  assert.is(done.agent_session_harness, 'claude-code');
  const states = claude.states.slice(from).filter((e) => e.source === 'report').map((e) => e.state);
  for (const s of ['working', 'needs_input', 'done']) assert.ok(states.includes(s), `the hooks reported ${s} (${states.join(' → ')})`);
  const closed = await claude.d.call<{ items: InboxItem[] }>('list-attention');
  assert.ok(!closed.items.some((i) => i.id === item.id && i.held), 'the held item closed as answered');
});

it('in the TUI: the held approval shows in the agents view and 1 allows it', async () => {
  claude.fake.setCommand('touch second.txt');
  // The person looks at another session: focusing the agent's pane would end the hold.
  await claude.d.ok(['new-session', 'person']);
  // A real terminal (tmux) running `tuios attach`: the person's client.
  const term = new Terminal(claude.d.env, `${process.execPath} ${BIN} attach -s person`, 160, 48);
  try {
    await term.wait(/\S/, 'the client to draw', 60_000);
    await claude.d.call('ask-agent', { window: claude.window, text: 'Please create second.txt', timeout: 120_000 });
    await waitFor(async () => (await claude.d.call<{ items: InboxItem[] }>('list-attention')).items.find((i) => i.window_id === claude.window && i.held), { timeout: 120_000, what: 'the held approval' });
    term.keys('C-b', 'i');
    await term.wait(/approve Bash: touch second\.txt/, 'the held line in the agents view', 60_000);
    await term.wait(/1 allow {2}3 deny/, 'the keys that answer it', 60_000);
    term.keys('1');
    await waitFor(() => existsSync(join(claude.project, 'second.txt')), { timeout: 60_000, what: 'the command allowed from the TUI to run' }).catch((e) => {
      throw new Error(`${(e as Error).message}\n--- screen ---\n${term.screen()}`);
    });
    await waitRow('the turn to finish', (x) => x.state === 'done' && x.source === 'report');
  } finally {
    term.kill();
  }
});

it('uninstall leaves settings.json as it was before', async () => {
  // While Claude Code still runs: the home goes with it when it stops.
  const un = await claude.d.cli(['integration', 'uninstall', 'claude-code'], { env: { HOME: claude.run.home } });
  assert.is(un.code, 0, un.stderr);
  assert.ok(readFileSync(settings).equals(before), `settings.json differs:\n${readFileSync(settings, 'utf8')}`);
});

t.run();
