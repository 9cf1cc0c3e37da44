// The maps for Amp, Pi, oh-my-pi and the session integrations (spec: What each event reports),
// and the plugins themselves: each plugin, loaded with a stand-in for its harness's API and
// pointed at a program that records its stdin, forwards payloads the map reads as the spec says.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mapHook } from '../../core/integrations/hooks/map.js';
import type { HookPlan } from '../../core/integrations/hooks/plan.js';
import { ampPluginText, piExtensionText } from '../../core/integrations/setup/plugins.js';

function brief(p: HookPlan): string {
  const parts: string[] = [];
  if (p.report) {
    const r = p.report;
    parts.push(`${r.state}${r.kind ? `/${r.kind}` : ''}${r.if_state ? ` if ${r.if_state.join(',')}` : ''}${r.message ? ` "${r.message}"` : ''}`);
  }
  if (p.session) parts.push(`${p.sessionOnly ? 'session-only' : 'session'} ${p.session.id}`);
  return parts.length ? parts.join(' | ') : 'nothing';
}

const m = (h: string, p: unknown, env: Record<string, string> = {}) => brief(mapHook(h, p, env));

test('session integrations: the conversation id alone, from the events the spec names', () => {
  assert.is(m('droid', { hook_event_name: 'SessionStart', session_id: 'd1' }), 'session-only d1');
  assert.is(m('qoder', { hook_event_name: 'SessionStart', session_id: 'q1' }), 'session-only q1');
  assert.is(m('grok', { hook_event_name: 'SessionStart', session_id: 'p' }, { GROK_SESSION_ID: 'g1' }), 'session-only g1', 'GROK_SESSION_ID first');
  assert.is(m('grok', { hook_event_name: 'SessionStart', session_id: 'p' }), 'session-only p');
  assert.is(m('devin', { hook_event_name: 'UserPromptSubmit', session_id: 'v1' }), 'session-only v1');
  assert.is(m('devin', { hook_event_name: 'SessionStart', session_id: 'v1' }), 'session-only v1');
  assert.is(m('antigravity', { hook_event_name: 'PreInvocation', conversationId: 'c1' }), 'session-only c1');
  assert.is(m('crush', { hook_event_name: 'PreToolUse', session_id: 'p' }, { CRUSH_SESSION_ID: 'cr1' }), 'session-only cr1', 'CRUSH_SESSION_ID first');
  assert.is(m('hermes', { hook_event_name: 'on_session_start', session_id: 'h1', interactive: true }), 'session-only h1');
  assert.is(m('hermes', { hook_event_name: 'on_session_reset', session_id: 'h2' }), 'session-only h2');
  assert.is(m('hermes', { hook_event_name: 'on_session_start', session_id: 'h1', interactive: false }), 'nothing', 'only an interactive session');
});

test('session integrations report no state, and nothing for other events or a bad id', () => {
  for (const h of ['droid', 'qoder', 'grok', 'devin']) {
    assert.is(m(h, { hook_event_name: 'Stop', session_id: 'x' }), 'nothing', `${h} Stop`);
    assert.is(m(h, { hook_event_name: 'PreToolUse', session_id: 'x' }), 'nothing', `${h} PreToolUse`);
  }
  assert.is(m('droid', { hook_event_name: 'SessionStart' }), 'nothing');
  assert.is(m('droid', { hook_event_name: 'SessionStart', session_id: 'a b\nc' }), 'nothing');
  assert.is(m('droid', { hook_event_name: 'SessionStart', session_id: 'x'.repeat(300) }), 'nothing');
  assert.is(m('droid', [1]), 'nothing');
  assert.is(m('droid', { hook_event_name: 'SessionStart', session_id: 'd' }, { TUIOS_AGENT: 'claude' }), 'nothing', 'TUIOS_AGENT names another harness');
});

test('Pi: session_start, agent_start, agent_settled, the UI prompts', () => {
  assert.is(m('pi', { hook_event_name: 'session_start', session_id: 's', busy: false }), 'idle | session s');
  assert.is(m('pi', { hook_event_name: 'session_start', session_id: 's', busy: true }), 'working | session s', 'a reload mid-turn');
  assert.is(m('pi', { hook_event_name: 'agent_start', session_id: 's' }), 'working | session s');
  assert.is(m('pi', { hook_event_name: 'agent_settled', session_id: 's' }), 'done | session s');
  assert.is(m('pi', { hook_event_name: 'agent_end', session_id: 's' }), 'done | session s');
  assert.is(m('pi', { hook_event_name: 'ui_prompt_start', prompt_kind: 'confirm', title: 'Delete  the\nfile?' }), 'needs_input/approval "Delete the file?"');
  assert.is(m('pi', { hook_event_name: 'ui_prompt_start', prompt_kind: 'select', title: 'Which?' }), 'needs_input/question "Which?"');
  assert.is(m('pi', { hook_event_name: 'ui_prompt_end', busy: true }), 'working if needs_input');
  assert.is(m('pi', { hook_event_name: 'ui_prompt_end', busy: false }), 'idle if needs_input');
  assert.is(m('pi', { hook_event_name: 'tool_approval_requested' }), 'nothing', 'an omp event');
  assert.is(m('pi', { hook_event_name: 'agent_start', subagent: true }), 'nothing');
});

test('oh-my-pi: agent_end only with no continuation; the tool approvals', () => {
  assert.is(m('omp', { hook_event_name: 'agent_end', continuing: true }), 'nothing');
  assert.is(m('omp', { hook_event_name: 'agent_end', continuing: false }), 'done');
  assert.is(m('omp', { hook_event_name: 'tool_approval_requested', tool: 'bash', input: { command: 'rm -rf build' } }), 'needs_input/approval "approve bash: rm -rf build"');
  assert.is(m('omp', { hook_event_name: 'tool_approval_resolved' }), 'working if needs_input');
  assert.is(m('omp', { hook_event_name: 'ui_prompt_start', prompt_kind: 'confirm' }), 'nothing', 'omp emits no UI-prompt events');
});

test('Amp: agent.start, agent.end by status, the thread id as a session report, ask_user_choice', () => {
  assert.is(m('amp', { hook_event_name: 'session.start', thread_id: 'T-1' }), 'session-only T-1');
  assert.is(m('amp', { hook_event_name: 'agent.start', thread_id: 'T-1', message: 'hi' }), 'working | session T-1');
  assert.is(m('amp', { hook_event_name: 'agent.end', status: 'done' }), 'done');
  assert.is(m('amp', { hook_event_name: 'agent.end', status: 'error' }), 'errored "the turn ended on an error"');
  assert.is(m('amp', { hook_event_name: 'agent.end', status: 'cancelled' }), 'idle');
  assert.is(m('amp', { hook_event_name: 'agent.end', status: 'running' }), 'nothing');
  assert.is(m('amp', { hook_event_name: 'tool.call', tool: 'ask_user_choice', question: 'Red or blue?' }), 'needs_input/question "Red or blue?"');
  assert.is(m('amp', { hook_event_name: 'tool.call', tool: 'Bash' }), 'nothing');
  assert.is(m('amp', { hook_event_name: 'tool.result', tool: 'ask_user_choice' }), 'working if needs_input');
});

/**
 * A program that records each stdin it gets as a file in `dir`, named by when it was written, and
 * its arguments beside it. With a file `slow` in `dir` it takes that file and sleeps 0.6 s first.
 */
function recorder(): { program: string; dir: string; read(n: number, ms?: number): Promise<Array<Record<string, unknown>>>; args(): string[]; done(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-plugin-'));
  const program = join(dir, 'rec.sh');
  writeFileSync(program, `#!/bin/sh\nin=$(cat)\nif rm "${dir}/slow" 2>/dev/null; then sleep 0.6; fi\nt=$(date +%s%N)\necho "$*" > "${dir}/args.$t.$$.txt"\nprintf '%s' "$in" > "${dir}/out.$t.$$.tmp"\nmv "${dir}/out.$t.$$.tmp" "${dir}/out.$t.$$.json"\n`);
  chmodSync(program, 0o755);
  return {
    program,
    dir,
    async read(n, ms = 5000) {
      const until = Date.now() + ms;
      for (;;) {
        const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
        const got = files.map((f) => readFileSync(join(dir, f), 'utf8')).filter((t) => t.endsWith('}'));
        if (got.length >= n || Date.now() > until) return got.map((t) => JSON.parse(t) as Record<string, unknown>).sort((a, b) => Number(a.seq ?? 0) - Number(b.seq ?? 0));
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    args: () => readdirSync(dir).filter((f) => f.startsWith('args.')).sort().map((f) => readFileSync(join(dir, f), 'utf8').trim()),
    done: () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function load(text: string, dir: string, name: string): Promise<(api: unknown) => void> {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, text);
  return ((await import(file)) as { default: (api: unknown) => void }).default;
}

function fakeApi(): { api: { on(n: string, f: (...a: unknown[]) => unknown): void }; fire(n: string, ...a: unknown[]): unknown } {
  const h = new Map<string, (...a: unknown[]) => unknown>();
  return { api: { on: (n, f) => void h.set(n, f) }, fire: (n, ...a) => h.get(n)?.(...a) };
}

test('the Amp plugin forwards session.start, agent.start, agent.end and ask_user_choice, and always allows', async () => {
  const r = recorder();
  const saved = process.env.TUIOS_ENV;
  const savedXdg = process.env.XDG_CONFIG_HOME;
  process.env.TUIOS_ENV = '1';
  process.env.XDG_CONFIG_HOME = join(r.dir, 'xdg');
  try {
    const plugin = await load(ampPluginText(r.program), r.dir, 'amp');
    const f = fakeApi();
    plugin(f.api);
    const thread = { id: 'T-9' };
    f.fire('session.start', { thread });
    await r.read(1);
    f.fire('agent.start', { thread, message: 'go' });
    await r.read(2);
    assert.equal(f.fire('tool.call', { thread, tool: 'ask_user_choice', input: { question: 'Which one?' } }), { action: 'allow' });
    await r.read(3);
    f.fire('agent.end', { thread, status: 'done' });
    const got = await r.read(4);
    const plans = got.map((p) => brief(mapHook('amp', p, {})));
    assert.equal(plans.sort(), ['done | session T-9', 'needs_input/question "Which one?" | session T-9', 'session-only T-9', 'working | session T-9'].sort());
  } finally {
    if (saved === undefined) delete process.env.TUIOS_ENV;
    else process.env.TUIOS_ENV = saved;
    if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = savedXdg;
    r.done();
  }
});

test('the Amp plugin stays off tool.call when a permission setting is in force', async () => {
  const r = recorder();
  const saved = process.env.TUIOS_ENV;
  const savedXdg = process.env.XDG_CONFIG_HOME;
  process.env.TUIOS_ENV = '1';
  process.env.XDG_CONFIG_HOME = join(r.dir, 'xdg');
  try {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(r.dir, 'xdg', 'amp'), { recursive: true });
    writeFileSync(join(r.dir, 'xdg', 'amp', 'settings.json'), '{"amp.permissions": []}');
    const plugin = await load(ampPluginText(r.program), r.dir, 'amp2');
    const names: string[] = [];
    plugin({ on: (n: string) => names.push(n) });
    assert.not.ok(names.includes('tool.call'));
    assert.ok(names.includes('agent.end'));
  } finally {
    if (saved === undefined) delete process.env.TUIOS_ENV;
    else process.env.TUIOS_ENV = saved;
    if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = savedXdg;
    r.done();
  }
});

/** Runs `fn` with a Pi or oh-my-pi extension loaded (a recorder as its tuios), inside tuios (TUIOS_ENV) on a TTY. */
async function withExtension(harness: 'pi' | 'omp', name: string, fn: (r: ReturnType<typeof recorder>, f: ReturnType<typeof fakeApi>) => Promise<void>): Promise<void> {
  const r = recorder();
  const saved = process.env.TUIOS_ENV;
  process.env.TUIOS_ENV = '1';
  const tty = process.stdout.isTTY;
  Object.defineProperty(process.stdout, 'isTTY', { value: true, configurable: true });
  try {
    const ext = await load(piExtensionText(r.program, harness), r.dir, name);
    const f = fakeApi();
    ext(f.api);
    await fn(r, f);
  } finally {
    Object.defineProperty(process.stdout, 'isTTY', { value: tty, configurable: true });
    if (saved === undefined) delete process.env.TUIOS_ENV;
    else process.env.TUIOS_ENV = saved;
    r.done();
  }
}

test('the Pi extension reports only in the TUI, and ends a turn on agent_end when no agent_settled comes', async () => {
  await withExtension('pi', 'pi', async (r, f) => {
    const ctx = { hasUI: true, isIdle: () => true, sessionManager: { getSessionId: () => 'S-1' } };
    f.fire('session_start', { reason: 'startup' }, ctx);
    f.fire('agent_start', {}, { ...ctx, hasUI: false });
    await r.read(1);
    f.fire('agent_start', {}, ctx);
    await r.read(2);
    f.fire('agent_end', {}, ctx);
    const got = await r.read(3);
    assert.is(got.length, 3, 'the non-TUI event was not sent');
    const plans = got.map((p) => brief(mapHook('pi', p, {}))).sort();
    assert.equal(plans, ['done | session S-1', 'idle | session S-1', 'working | session S-1']);
    assert.not.ok(existsSync(join(r.dir, 'never')));
  });
});

test('the Pi extension reports in the order of its events, each agent-hook with its 3 s budget', async () => {
  await withExtension('pi', 'pi-order', async (r, f) => {
    const ctx = { hasUI: true, isIdle: () => true, sessionManager: { getSessionId: () => 'S-2' } };
    // The session start's child is slow (a loaded machine); the prompt comes at once after it.
    writeFileSync(join(r.dir, 'slow'), '');
    f.fire('session_start', { reason: 'startup' }, ctx);
    f.fire('agent_start', { prompt: 'go' }, ctx);
    const got = await r.read(2);
    assert.equal(got.map((p) => p.hook_event_name), ['session_start', 'agent_start'], 'the later report waited for the slow one');
    assert.equal(r.args(), ['agent-hook pi --integration 2 --timeout 3000', 'agent-hook pi --integration 2 --timeout 3000']);
  });
});

test('the Pi extension holds at most 32 reports behind a slow one, dropping the oldest waiting', async () => {
  await withExtension('pi', 'pi-bound', async (r, f) => {
    const ctx = { hasUI: true, isIdle: () => true, sessionManager: { getSessionId: () => 'S-3' } };
    writeFileSync(join(r.dir, 'slow'), '');
    for (let i = 0; i < 40; i++) f.fire('agent_start', { prompt: `p${i}` }, ctx);
    const got = await r.read(33, 30_000);
    // The first runs (slow); of the 39 behind it the 7 oldest are dropped.
    assert.equal(got.map((p) => p.prompt), ['p0', ...Array.from({ length: 32 }, (_, i) => `p${i + 8}`)]);
  });
});

test('the omp extension drops subagents (ctx.agent.kind) and passes a scheduled continuation', async () => {
  await withExtension('omp', 'omp', async (r, f) => {
    const ctx = { hasUI: true, agent: { kind: 'main' }, sessionManager: { getSessionId: () => 'O-1' } };
    f.fire('agent_start', {}, { ...ctx, agent: { kind: 'subagent' } });
    f.fire('tool_approval_requested', { toolName: 'bash', input: { command: 'ls' } }, ctx);
    await r.read(1);
    f.fire('agent_end', { willContinue: true }, ctx);
    const got = await r.read(2);
    assert.is(got.length, 2);
    const plans = got.map((p) => brief(mapHook('omp', p, {}))).sort();
    assert.equal(plans, ['needs_input/approval "approve bash: ls" | session O-1', 'nothing']);
  });
});

test.run();
