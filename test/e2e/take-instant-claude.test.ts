// The five-second take check against an agent that answers at once (spec: States, the take check):
// the real Claude Code from npm with `tuios integration install claude-code`, and a fake model
// that answers with no delay, so the turn can end before any `working` is published and is too
// short to count as a finished turn. The prompt-start hook's report is the proof of the take (the
// daemon says it apart, as a prompt-started event, whatever level it leaves published): ask-agent
// returns the ended turn instead of prompt_stalled, and a queued message is typed once and leaves
// the queue instead of staying there stalled.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BIN } from '../helpers/daemon.js';
import { RealAgent } from '../helpers/real-agent.js';
import { waitFor } from '../helpers/wait.js';

interface Queued {
  id: string;
  status: string;
}
interface InboxItem {
  kind: string;
  window_id: string | null;
  ref: Record<string, string>;
}

const t = suite('take check, instant answer');
const claude = new RealAgent('claude-code', {
  name: 'claude',
  fake: { command: null, finalText: 'Done at once.', delayMs: 0 },
  subscribe: ['agent-state', 'prompt-started'],
  async prepare(a) {
    const inst = await a.d.cli(['integration', 'install', 'claude-code', '--command', BIN], { env: { HOME: a.run.home } });
    assert.is(inst.code, 0, inst.stderr);
  },
});
const it = claude.gate(t);

t.before(() => claude.start());
t.after(() => claude.stop());


it('ask-agent: a prompt answered at once is taken, and its turn is seen to end', async () => {
  await claude.sessionStartReported();
  const from = claude.states.length;
  const r = await claude.d.call<{ delivery: string; ended_by: string; state: string }>('ask-agent', { window: claude.window, text: 'Say done', timeout: 120_000 }).catch((e: Error & { code?: string }) => {
    throw new Error(`ask-agent failed (${e.code}): ${e.message}\n${claude.published(from)}`);
  });
  assert.is(r.delivery, 'acked');
  assert.ok(r.ended_by === 'turn' || r.ended_by === 'state', `the end of the turn was seen (ended_by ${r.ended_by}, state ${r.state}; ${claude.published(from)})`);
  await claude.waitRequest((q) => q.role === 'main' && JSON.stringify(q.body).includes('Say done'), 60_000);
  // The UserPromptSubmit hook's report reached the daemon as the prompt start.
  await waitFor(() => claude.events.some((e) => e.type === 'prompt-started' && (e as { event?: string }).event === 'UserPromptSubmit'), { what: 'the prompt-started event of the pane', timeout: 30_000 });
});

it('queue-prompt: a queued message answered at once leaves the queue and opens no stalled question', async () => {
  await claude.waitState(['idle', 'done']);
  const from = claude.states.length;
  const q = await claude.d.call<{ id: string }>('queue-prompt', { window: claude.window, text: 'Say queued' });
  await claude.waitRequest((x) => x.role === 'main' && JSON.stringify(x.body).includes('Say queued'), 120_000);
  await waitFor(
    async () => {
      const ls = await claude.d.call<{ queued: Queued[] }>('list-queued', { all: true });
      const mine = ls.queued.find((m) => m.id === q.id);
      if (mine?.status === 'stalled') throw new Error(`the message is held as stalled; ${claude.published(from)}`);
      return !mine;
    },
    { what: 'the queue to empty', timeout: 60_000 },
  ).catch(async (e: Error) => {
    const ls = await claude.d.call<{ queued: Queued[] }>('list-queued', { all: true });
    throw new Error(`${e.message}\nqueued: ${JSON.stringify(ls.queued)}\n${claude.published(from)}`);
  });
  const inbox = await claude.d.call<{ items: InboxItem[] }>('list-attention', {});
  const stalled = inbox.items.filter((i) => i.kind === 'question' && i.ref.queued === q.id);
  assert.is(stalled.length, 0, `no "did not take it" question: ${JSON.stringify(stalled)}`);
});

t.run();
