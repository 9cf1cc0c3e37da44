// The real Pi from npm in a tuios pane, against the local fake model API, with `tuios integration
// install pi` in its temp HOME: the extension loads, and the pane's states come from it
// (`source: report`, harness pi): idle at the start, working during the turn, done at its end,
// with Pi's session id stored. Then uninstall removes the extension.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { ensureAgent, startFakeFor, agentHome, startAgentInPane, stopAgent, screenText, type AgentPane, type AgentRun, type InstalledAgent } from '../helpers/agents.js';
import type { FakeApi } from '../fake-apis/common.js';

interface Row {
  state: string;
  source: string | null;
  harness_id: string | null;
  agent_session_id: string | null;
}

const t = suite('Pi extension');
let d: TestDaemon;
let fake: FakeApi;
let run: AgentRun;
let pane: AgentPane;
let agent: InstalledAgent | null = null;
let skip = '';
const seen: Array<{ state: string; source: string | null }> = [];

const row = async (): Promise<Row> => d.call<Row>('get-agent-state', { window: pane.window });
const waitRow = (what: string, pred: (r: Row) => boolean, timeout = 90_000) =>
  waitFor(async () => {
    const r = await row();
    return pred(r) ? r : null;
  }, { timeout, what }).catch(async (e) => {
    throw new Error(`${(e as Error).message}\nlast row: ${JSON.stringify(await row())}\nseen: ${JSON.stringify(seen)}\nscreen:\n${await screenText(d, pane.window)}`);
  });

t.before(async () => {
  const a = ensureAgent('pi');
  if ('skip' in a) {
    skip = a.skip;
    console.log(`# skipped: ${a.skip}`);
    return;
  }
  agent = a;
  fake = await startFakeFor('pi', { command: 'touch hello.txt', finalText: 'Created hello.txt.' });
  d = await TestDaemon.start({ env: { TUIOS_AGENT_DETECT_SECONDS: '0.5' } });
  const project = join(d.home, 'project');
  mkdirSync(project, { recursive: true });
  run = agentHome('pi', { apiUrl: fake.url, cwd: project });
  const inst = await d.cli(['integration', 'install', 'pi', '--command', BIN], { env: { HOME: run.home } });
  assert.is(inst.code, 0, inst.stderr);
  const events = await d.client();
  await events.stream('subscribe', { types: ['agent-state'] }, (e) => {
    const ev = e as { window_id?: string; state?: string; source?: string | null };
    if (ev.window_id === pane?.window && ev.state) seen.push({ state: ev.state, source: ev.source ?? null });
  });
  pane = await startAgentInPane(d, { agent, run, session: 'agents', name: 'pi', cols: 120, rows: 40 });
});

t.after(async () => {
  if (!agent) return;
  await stopAgent(d, pane, run).catch(() => undefined);
  await fake.close();
  await d.stop();
});

t('the integration is installed and current', async () => {
  if (skip) return;
  const st = JSON.parse((await d.ok(['integration', 'status', 'pi', '--json'], { env: { HOME: run.home } })).trim()) as { integrations: Array<{ state: string; version: number; program?: string }> };
  assert.is(st.integrations[0]!.state, 'installed');
  assert.is(st.integrations[0]!.program, BIN);
});

t('session_start reports idle from the extension, with Pi\'s session id', async () => {
  if (skip) return;
  const r = await waitRow('the session_start report', (x) => x.source === 'report' && x.harness_id === 'pi');
  assert.ok(r.state === 'idle' || r.state === 'working', r.state);
  assert.ok(r.agent_session_id, 'the session id is stored');
});

t('a turn: working from agent_start, done at its end', async () => {
  if (skip) return;
  const from = seen.length;
  await d.call('ask-agent', { window: pane.window, text: 'Please create hello.txt', timeout: 120_000 }).catch(() => undefined);
  await waitRow('the turn to end on done', (x) => x.state === 'done' && x.source === 'report');
  const states = seen.slice(from).filter((s) => s.source === 'report').map((s) => s.state);
  assert.ok(states.includes('working'), `working was reported: ${JSON.stringify(states)}`);
  assert.ok(existsSync(join(run.cwd, 'hello.txt')), 'the tool ran');
});

t('uninstall removes the extension', async () => {
  if (skip) return;
  const un = await d.cli(['integration', 'uninstall', 'pi'], { env: { HOME: run.home } });
  assert.is(un.code, 0, un.stderr);
  assert.not.ok(existsSync(join(run.home, '.pi', 'agent', 'extensions', 'tuios-agent-state.ts')));
});

t.run();
