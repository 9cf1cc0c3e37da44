// The status line feed with the real Claude Code from npm against the fake Anthropic API (spec:
// The status line feed): the person's own status line in settings.json is refused, then chained
// with --then; real turns in a tuios pane write `model`, `context` and `cost` from the payloads
// Claude Code gives its status line, the turn's final values are on the pane after its Stop, the
// person's command gets the same payload and its output shows in Claude Code unchanged, and
// uninstall leaves settings.json byte for byte as it was.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BIN } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { RealAgent } from '../helpers/real-agent.js';
import { STATUSLINE_INTERVAL_MS } from '../../core/limits.js';

const t = suite('Claude Code status line feed');
let settings = '';
let before = Buffer.alloc(0);
let refusal = '';
const MINE = '~/.claude/mine.sh';

// The person's own status line: it keeps every payload it is given and prints one line.
const MINE_SH = '#!/bin/sh\np=$(cat)\nprintf \'%s\\n\' "$p" >> "$HOME/statusline.jsonl"\necho "mine: status ok"\n';

const claude = new RealAgent('claude-code', {
  name: 'claude',
  // 420000 input tokens of Claude Code's 1M window: context 42%.
  fake: { command: null, finalText: 'Hello there.', usage: { input_tokens: 420_000, output_tokens: 2_000 } },
  async prepare(a) {
    settings = join(a.run.home, '.claude', 'settings.json');
    writeFileSync(join(a.run.home, '.claude', 'mine.sh'), MINE_SH);
    chmodSync(join(a.run.home, '.claude', 'mine.sh'), 0o755);
    const doc = JSON.parse(readFileSync(settings, 'utf8')) as Record<string, unknown>;
    writeFileSync(settings, JSON.stringify({ ...doc, statusLine: { type: 'command', command: MINE, padding: 0 } }, null, 2) + '\n');
    before = readFileSync(settings);
    const env = { HOME: a.run.home };
    const refused = await a.d.cli(['integration', 'install', 'claude-code', '--statusline', '--command', BIN], { env });
    assert.is(refused.code, 1, refused.stdout);
    refusal = refused.stderr;
    const inst = await a.d.cli(['integration', 'install', 'claude-code', '--statusline', '--then', MINE, '--command', BIN], { env });
    assert.is(inst.code, 0, inst.stderr);
  },
});
const it = claude.gate(t);

t.before(() => claude.start());
t.after(() => claude.stop());

interface Payload {
  session_id?: string;
  model?: { id?: string; display_name?: string };
  context_window?: { used_percentage?: number | null };
  cost?: { total_cost_usd?: number };
}

/** Every payload Claude Code gave the status line, as the person's command kept them. */
function payloads(): Payload[] {
  const f = join(claude.run.home, 'statusline.jsonl');
  if (!existsSync(f)) return [];
  return readFileSync(f, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Payload);
}

/** What the pane should show for a payload (spec: model.display_name, used_percentage as 42%, total_cost_usd as $1.20). */
function expected(p: Payload): Record<string, string> {
  const out: Record<string, string> = {};
  const model = p.model?.display_name || p.model?.id;
  if (model) out.model = model;
  if (typeof p.context_window?.used_percentage === 'number') out.context = `${Math.round(p.context_window.used_percentage)}%`;
  if (typeof p.cost?.total_cost_usd === 'number') out.cost = `$${p.cost.total_cost_usd.toFixed(2)}`;
  return out;
}

async function meta(): Promise<Record<string, string>> {
  return ((await claude.d.call<{ meta?: Record<string, string> }>('get-agent-state', { window: claude.window })).meta ?? {});
}

const pick = (m: Record<string, string>) => ({ model: m.model, context: m.context, cost: m.cost });

/** Waits until the pane shows what the newest payload says, and answers both. */
async function paneMatchesLastPayload(what: string, pred: (p: Payload) => boolean): Promise<{ p: Payload; m: Record<string, string> }> {
  return waitFor(
    async () => {
      const ps = payloads();
      const p = ps[ps.length - 1];
      if (!p || !pred(p)) return null;
      const m = await meta();
      const want = expected(p);
      return JSON.stringify(pick(m)) === JSON.stringify(pick({ ...want })) ? { p, m } : null;
    },
    { timeout: 120_000, what },
  ).catch(async (e) => {
    const ps = payloads();
    throw new Error(`${(e as Error).message}\nlast payload says ${JSON.stringify(expected(ps[ps.length - 1] ?? {}))}; the pane: ${JSON.stringify(await meta())}\n${claude.published()}`);
  });
}

function throttleFile(): { path: string; state: { sent_at: number; stop_at: number; sent: Record<string, string> } } {
  const path = join(dirname(claude.d.socket), `statusline-${claude.window}.json`);
  return { path, state: JSON.parse(readFileSync(path, 'utf8')) };
}

it('a status line of the person\'s is refused with the command that keeps it, then chained with --then', async () => {
  assert.ok(refusal.includes(`tuios integration install claude-code --statusline --then '${MINE}'`), refusal);
  const doc = JSON.parse(readFileSync(settings, 'utf8')) as { statusLine: Record<string, unknown> };
  assert.equal(Object.keys(doc.statusLine), ['type', 'command', 'padding'], 'every key kept');
  assert.is(doc.statusLine.padding, 0);
  assert.match(String(doc.statusLine.command), / agent-statusline claude-code --integration 1 --then '~\/\.claude\/mine\.sh'$/);
  const st = JSON.parse(await claude.d.ok(['integration', 'status', 'claude-code', '--json'], { env: { HOME: claude.run.home } })) as { integrations: Array<{ status_line: unknown }> };
  assert.equal(st.integrations[0]!.status_line, { state: 'installed', version: 1, then: MINE });
});

it('the first status line run writes the model; the person\'s command runs on the same payload and shows its line', async () => {
  await claude.waitState((s) => s.state === 'idle', { what: 'Claude Code at rest' });
  const { p, m } = await paneMatchesLastPayload('the first run\'s values on the pane', (x) => !!x.model);
  assert.ok(m.model && m.model === (p.model?.display_name || p.model?.id), JSON.stringify(m));
  assert.is(p.session_id?.length, 36, 'the person\'s command got Claude Code\'s payload');
  await waitFor(async () => /mine: status ok/.test(await claude.screen()), { timeout: 60_000, what: 'the chained command\'s line in Claude Code\'s status line' });
});

it('a real turn: model, context and cost arrive, and the final values are on the pane after its Stop', async () => {
  await claude.d.call('ask-agent', { window: claude.window, text: 'Say hello', timeout: 120_000 });
  await claude.waitState((s) => s.state === 'done' && s.source === 'report', { what: 'the Stop report' });
  const { m } = await paneMatchesLastPayload('the turn\'s final values', (x) => typeof x.context_window?.used_percentage === 'number');
  assert.is(m.context, '42%', 'context from used_percentage');
  assert.match(m.cost!, /^\$\d+\.\d\d$/);
  assert.ok(Number(m.cost!.slice(1)) > 0, `a turn of 420000 tokens costs something: ${m.cost}`);
  // list-agents --json carries the same.
  const rows = JSON.parse(await claude.d.ok(['list-agents', '--json'])) as { agents: Array<{ window_id: string; meta?: Record<string, string> }> };
  assert.equal(pick(rows.agents.find((r) => r.window_id === claude.window)?.meta ?? {}), pick(m));
  // The throttle file: beside the socket, the owner's alone, and the Stop hook has been through it.
  const f = throttleFile();
  assert.is(statSync(f.path).mode & 0o777, 0o600);
  assert.ok(f.state.stop_at > 0, 'the Stop hook read the status line state');
});

it('the next turn within the interval: its final values still arrive, by the Stop and the run after it', async () => {
  const first = throttleFile().state;
  claude.fake.setUsage({ input_tokens: 600_000, output_tokens: 3_000 });
  await claude.d.call('ask-agent', { window: claude.window, text: 'Say hello again', timeout: 120_000 });
  await claude.waitState((s) => s.state === 'done' && s.source === 'report', { what: 'the second Stop report' });
  const { m } = await paneMatchesLastPayload('the second turn\'s final values', (x) => x.context_window?.used_percentage === 60);
  assert.is(m.context, '60%');
  const last = throttleFile().state;
  assert.ok(last.stop_at > first.stop_at, 'the second Stop went through the file');
  const gap = last.sent_at - first.sent_at;
  // Within the interval only the turn's end can have let these go (no model change, no 80% crossed).
  if (gap < STATUSLINE_INTERVAL_MS) assert.ok(last.sent_at >= last.stop_at, `written at or after the Stop (${JSON.stringify(last)})`);
  else console.log(`# the second turn's values came ${gap} ms after the first's: the interval had passed, so the Stop path was not what let them go`);
});

it('uninstall puts the person\'s status line back: settings.json byte for byte as before install', async () => {
  const un = await claude.d.cli(['integration', 'uninstall', 'claude-code'], { env: { HOME: claude.run.home } });
  assert.is(un.code, 0, un.stderr);
  assert.ok(readFileSync(settings).equals(before), `settings.json differs:\n${readFileSync(settings, 'utf8')}`);
});

t.run();
