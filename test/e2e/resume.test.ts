// Resuming after a restart (spec: Resuming after a restart): a pane whose agent ran when the state
// was saved gets a Resume row with the manifest's command and its stored id; resume-agent types it
// only while the shell holds the foreground; auto types it at the new shell's prompt; an id that is
// not one shell word is never typed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';

const ID = '3f1c2a9e-5b7d-4c1e-9a2b-0d4e6f8a1b2c';

async function withAgentThenRestart(config: string): Promise<{ d: TestDaemon; w: string }> {
  const d = await TestDaemon.start({ config });
  await d.ok(['new-session', 'work']);
  const w = (await d.json<{ windows: Array<{ id: string }> }>(['list-windows'])).windows[0]!.id;
  await d.call('set-agent-state', { window: w, state: 'working', harness: 'claude-code', agent_session_id: ID });
  const st = await d.call<{ agent_session_id: string; agent_session_harness: string }>('get-agent-state', { window: w });
  assert.is(st.agent_session_id, ID);
  assert.is(st.agent_session_harness, 'claude-code');
  await d.ok(['kill-server']);
  await waitFor(async () => !(await d.answers()), { what: 'the daemon to stop' });
  await d.spawn();
  return { d, w };
}

const screen = async (d: TestDaemon, w: string) => (await d.call<{ lines: string[] }>('capture-pane', { window: w })).lines.join('\n');

const t = suite('resume');

t('ask: a Resume row with the exact command; resume-agent types it and the row closes; the next restart offers nothing', async () => {
  const { d, w } = await withAgentThenRestart('[daemon]\nresume_agents = "ask"\n');
  try {
    const row = await waitFor(async () => (await d.call<{ items: Array<{ kind: string; window_id: string; summary: string }> }>('list-attention')).items.find((i) => i.kind === 'resume'), { what: 'the Resume row' });
    assert.is(row.window_id, w);
    assert.is(row.summary, `claude --resume ${ID}`);
    const st = await d.call<{ state: string; agent_session_id: string }>('get-agent-state', { window: w });
    assert.is(st.state, 'none', 'a restored pane has no agent state');
    assert.is(st.agent_session_id, ID, 'the id came back');
    const dry = await d.json<{ command: string; typed: boolean }>(['resume-agent', '-w', w, '--dry-run']);
    assert.equal(dry, { window_id: w, command: `claude --resume ${ID}`, argv: ['claude', '--resume', ID], typed: false });
    // A program in the foreground: nothing is typed.
    await d.ok(['send-text', '-w', w, 'sleep 30']);
    await d.ok(['send-keys', '-w', w, 'Enter']);
    await waitFor(async () => {
      const r = await d.cli(['resume-agent', '-w', w]);
      return r.code !== 0 && /foreground/.test(r.stderr);
    }, { what: 'resume-agent to refuse while sleep runs' });
    await d.ok(['send-keys', '-w', w, 'C-c']);
    const typed = await waitFor(async () => {
      const r = await d.cli(['resume-agent', '-w', w, '--json']);
      return r.code === 0 ? (JSON.parse(r.stdout) as { typed: boolean }) : null;
    }, { what: 'resume-agent to type once the shell is back' });
    assert.is(typed.typed, true);
    await waitFor(async () => (await screen(d, w)).includes(`claude --resume ${ID}`), { what: 'the command on the screen' });
    const left = (await d.call<{ items: Array<{ kind: string }> }>('list-attention')).items.filter((i) => i.kind === 'resume');
    assert.is(left.length, 0, 'the row closed when the command was typed');
    await d.ok(['kill-server']);
    await waitFor(async () => !(await d.answers()), { what: 'the daemon to stop' });
    await d.spawn();
    const again = (await d.call<{ items: Array<{ kind: string }> }>('list-attention')).items.filter((i) => i.kind === 'resume');
    assert.is(again.length, 0, 'an offer is made once, for the restart that ended the agent');
  } finally {
    await d.stop();
  }
});

t('auto: typed at the new shell\'s prompt, with no row', async () => {
  const { d, w } = await withAgentThenRestart('[daemon]\nresume_agents = "auto"\n');
  try {
    await waitFor(async () => (await screen(d, w)).includes(`claude --resume ${ID}`), { timeout: 20_000, what: 'the command typed' });
    const rows = (await d.call<{ items: Array<{ kind: string }> }>('list-attention')).items.filter((i) => i.kind === 'resume');
    assert.is(rows.length, 0);
  } finally {
    await d.stop();
  }
});

t('off: no row and nothing typed; the id stays on the pane for resume-agent', async () => {
  const { d, w } = await withAgentThenRestart('[daemon]\nresume_agents = "off"\n');
  try {
    const st = await d.call<{ agent_session_id: string; agent_session_harness: string }>('get-agent-state', { window: w });
    assert.equal([st.agent_session_id, st.agent_session_harness], [ID, 'claude-code'], 'the id and its harness came back');
    // The restore has run (the id is back); a row would have opened with it.
    const rows = (await d.call<{ items: Array<{ kind: string }> }>('list-attention')).items.filter((i) => i.kind === 'resume');
    assert.is(rows.length, 0);
    assert.not.match(await screen(d, w), /claude --resume/);
    const dry = await d.json<{ command: string }>(['resume-agent', '-w', w, '--dry-run']);
    assert.is(dry.command, `claude --resume ${ID}`);
  } finally {
    await d.stop();
  }
});

t('an id that is not one shell word is never typed', async () => {
  const d = await TestDaemon.start();
  try {
    await d.ok(['new-session', 'x']);
    const w = (await d.json<{ windows: Array<{ id: string }> }>(['list-windows'])).windows[0]!.id;
    await d.call('set-agent-session', { window: w, session_id: '-rf', harness: 'claude-code' });
    const r = await d.cli(['resume-agent', '-w', w, '--dry-run']);
    assert.is(r.code, 1);
    assert.match(r.stderr, /never typed/);
    const bad = await d.cli(['set-agent-session', '-w', w, '--harness', 'claude-code', 'a b;rm']);
    assert.is.not(bad.code, 0, 'an id with a space is refused at the door');
  } finally {
    await d.stop();
  }
});

t.run();
