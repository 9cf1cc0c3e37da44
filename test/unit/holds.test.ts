// Approvals held for the Inbox: the whole-line rule, the offers and what 2 adds, the decision the
// hook prints, and the hold registry's ends (spec: Approvals from the Inbox, Plans).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { holdableCall, holdablePlan } from '../../core/integrations/hooks/hold.js';
import { claudeOffers, planOffers } from '../../core/integrations/hooks/offers.js';
import { permissionRequestOutput } from '../../core/integrations/hooks/decision.js';
import { HoldRegistry, planSha } from '../../core/inbox/holds.js';
import { Bus } from '../../core/bus.js';
import type { Inbox, Item } from '../../core/inbox/inbox.js';

const fixture = (h: string, n: string) => JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'hooks', h, `${n}.json`), 'utf8')).payload;

test('the line rule: one argument decides the call and fits the line exactly', () => {
  assert.ok(holdableCall('claude-code', 'Bash', { command: 'go test ./...', description: 'Run the tests' }).ok);
  const no = (tool: string, input: Record<string, unknown>, why: RegExp, h = 'claude-code') => {
    const r = holdableCall(h, tool, input);
    assert.is(r.ok, false, JSON.stringify(input));
    if (!r.ok) assert.match(r.why, why);
  };
  no('Bash', { command: 'ls', dangerouslyDisableSandbox: true }, /dangerouslyDisableSandbox/);
  no('Write', { file_path: 'a', content: 'b' }, /answered in the pane/);
  no('Grep', { pattern: 'x', path: '/etc' }, /sets path/);
  no('Bash', { command: 'echo a\necho b' }, /line break/);
  no('Bash', { command: 'echo  a' }, /doubled/);
  no('Bash', { command: 'echo \u200ba' }, /invisible/);
  no('Bash', { command: `echo ${'x'.repeat(120)}` }, /cut/);
  no('Bash', { command: 'export TOKEN=abcdefghijklmnop12345' }, /masked/);
  no('mcp__x__y', { q: 1 }, /answered in the pane/);
  no('bash', { command: 'ls', workdir: '/tmp' }, /workdir/, 'opencode');
  no('run_shell_command', { command: 'ls', directory: '/' }, /directory/, 'qwen');
  assert.ok(holdableCall('qwen', 'run_shell_command', fixture('qwen', 'PermissionRequest-run_shell_command').tool_input).ok);
  no('Bash', { command: 'ls' }, /answered in the pane/, 'codex');
});

test('2 is offered only with rules tuios can show; the updates are rebuilt from them', () => {
  const measured = claudeOffers(fixture('claude-code', 'PermissionRequest-Bash').permission_suggestions);
  assert.equal(measured.keys, ['1', '3'], 'addDirectories and setMode leave only 1 and 3');
  const rules = claudeOffers(fixture('claude-code', 'PermissionRequest-Bash-addRules').permission_suggestions);
  assert.equal(rules.keys, ['1', '2', '3']);
  assert.equal(rules.rules, ['Bash(go test:*) in .claude/settings.local.json']);
  assert.equal(rules.updates, [{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'go test:*' }], behavior: 'allow', destination: 'localSettings' }]);
  assert.equal(claudeOffers([{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'x' }], behavior: 'deny', destination: 'session' }]).keys, ['1', '3']);
  assert.equal(claudeOffers([{ type: 'addRules', rules: [{ toolName: 'Bash' }], behavior: 'allow', destination: 'session', extra: 1 }]).keys, ['1', '3'], 'a field tuios does not know');
  const five = Array.from({ length: 5 }, (_, i) => ({ toolName: 'Bash', ruleContent: `c${i}:*` }));
  assert.equal(claudeOffers([{ type: 'addRules', rules: five, behavior: 'allow', destination: 'session' }]).keys, ['1', '3'], 'at most four rules');
  assert.equal(planOffers([{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }]).keys, ['1', '2', '3']);
  assert.equal(planOffers([{ type: 'setMode', mode: 'bypassPermissions', destination: 'session' }]).keys, ['1', '3']);
});

test('a plan is held when it carries nothing but the plan and fits 32 KiB', () => {
  const p = holdablePlan(fixture('claude-code', 'PermissionRequest-ExitPlanMode').tool_input);
  assert.ok(p.ok);
  if (p.ok) assert.is(p.plan.row, 'Refactor the retry loop (5 lines)');
  assert.is(holdablePlan({ plan: 'x', allowedPrompts: [{ tool: 'Bash', prompt: 'run tests' }] }).ok, false);
  assert.is(holdablePlan({ plan: 'x'.repeat(33 * 1024) }).ok, false);
});

test('the decision printed is the harness\'s own shape', () => {
  const allow = JSON.parse(permissionRequestOutput('claude-code', { behavior: 'allow', updatedPermissions: [{ type: 'addRules' }] }, null));
  assert.equal(allow, { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow', updatedPermissions: [{ type: 'addRules' }] } } });
  const qwen = JSON.parse(permissionRequestOutput('qwen', { behavior: 'allow', updatedPermissions: [{ type: 'addRules' }] }, null));
  assert.equal(qwen.hookSpecificOutput.decision, { behavior: 'allow' }, 'Qwen Code gets no updatedPermissions');
  const plan = JSON.parse(permissionRequestOutput('claude-code', { behavior: 'allow' }, { input: { plan: 'p' } }));
  assert.equal(plan.hookSpecificOutput.decision.updatedInput, { plan: 'p' });
  const deny = JSON.parse(permissionRequestOutput('claude-code', { behavior: 'deny' }, null));
  assert.is(deny.hookSpecificOutput.decision.message, 'The user denied this from the tuios Inbox.');
});

/** An Inbox stand-in with the calls the registry makes. */
function fakeInbox(bus: Bus) {
  const items = new Map<number, Item>();
  const inbox = {
    get: (id: number) => items.get(id),
    holdItem: (item: Item, h: { summary: string; kind: 'approval' | 'plan'; ref: Item['ref'] }) => Object.assign(item, { held: true, ref: h.ref, kind: h.kind, summary: h.summary }),
    unholdItem: (item: Item) => Object.assign(item, { held: false, ref: {} }),
    close: (id: number, reason: string) => {
      const item = items.get(id)!;
      items.delete(id);
      bus.publish('attention', { op: 'close', reason, item });
    },
  };
  const item = (id: number): Item => {
    const it = { id, kind: 'approval', window_id: 'w1', session_id: 's', session: 's', name: 'n', harness: 'claude-code', summary: '', opened_at: 0, updated_at: 0, snoozed_until: null, unread: true, ref: {} } as Item;
    items.set(id, it);
    return it;
  };
  return { inbox: inbox as unknown as Inbox, item };
}

const log = { debug() {}, info() {}, warn() {}, error() {} } as never;
const req = (o: Partial<Parameters<HoldRegistry['hold']>[0]> = {}) => ({ windowId: 'w1', harness: 'claude-code', line: 'approve Bash: ls', offers: { keys: ['1', '3'] as Array<'1' | '2' | '3'>, rules: [], updates: [] }, seconds: 60, ...o });

test('a hold answered 1 allows; the answer must name the line it was read from, after 0.4 s', async () => {
  const bus = new Bus(log);
  const { inbox, item } = fakeInbox(bus);
  const reg = new HoldRegistry(bus, inbox, log);
  const it = item(1);
  const ended = reg.hold(req(), it, new AbortController().signal);
  const rid = String(it.ref.request_id);
  assert.is(reg.answer({ requestId: rid, key: '1', line: 'approve Bash: ls' }).ok, false, 'too soon');
  await new Promise((r) => setTimeout(r, 420));
  const changed = reg.answer({ requestId: rid, key: '1', line: 'approve Bash: rm' });
  assert.ok(!changed.ok && changed.code === 'prompt_changed');
  const two = reg.answer({ requestId: rid, key: '2', line: 'approve Bash: ls' });
  assert.ok(!two.ok && /not offered/.test(two.why));
  assert.ok(reg.answer({ requestId: rid, key: '1', line: 'approve Bash: ls' }).ok);
  assert.equal((await ended).decision, { behavior: 'allow' });
  reg.dispose();
});

test('every way a hold ends with no decision', async () => {
  const bus = new Bus(log);
  const { inbox, item } = fakeInbox(bus);
  const reg = new HoldRegistry(bus, inbox, log);
  const ends: Array<[string, (it: Item, ctl: AbortController) => void]> = [
    ['the pane left needs_input', () => bus.publish('agent-state', { window_id: 'w1', session_id: 's', name: 'n', harness: null, state: 'working', old_state: 'needs_input', kind: '', message: '', source: 'report', completion_seq: 0, needs_you: false })],
    ['the block turned into a question', () => bus.publish('agent-state', { window_id: 'w1', session_id: 's', name: 'n', harness: null, state: 'needs_input', old_state: 'needs_input', kind: 'question', message: '', source: 'report', completion_seq: 0, needs_you: true })],
    ['the pane was focused', () => bus.publish('window-seen', { window_id: 'w1', session_id: 's' })],
    ['dismissed', (it) => inbox.close(it.id, 'dismissed')],
    ['the hook gave up', (_it, ctl) => ctl.abort()],
    ['enter on the item', () => reg.release('w1', 'the person went to the pane')],
    ['a newer prompt', () => void reg.hold(req(), item(99), new AbortController().signal)],
  ];
  let n = 10;
  for (const [what, end] of ends) {
    const it = item(n++);
    const ctl = new AbortController();
    const p = reg.hold(req(), it, ctl.signal);
    end(it, ctl);
    const r = await p;
    assert.is(r.decision, null, what);
  }
  // The hold's timer does not keep a process alive (the daemon's socket does): this test's does.
  const alive = setInterval(() => {}, 1000);
  const timed = reg.hold(req({ seconds: 0.05 }), item(50), new AbortController().signal);
  assert.match((await timed).why, /hold_seconds/);
  clearInterval(alive);
  const plan = item(60);
  const pp = reg.hold(req({ plan: { text: 'p', sha: planSha('p') }, offers: { keys: ['1', '3'], rules: [], updates: [] } }), plan, new AbortController().signal);
  await new Promise((r) => setTimeout(r, 420));
  assert.is(reg.answer({ requestId: String(plan.ref.request_id), key: '1', line: 'approve Bash: ls', planSha: 'other' }).ok, false, 'another plan\'s digest is refused');
  const last = reg.hold(req(), item(70), new AbortController().signal);
  assert.is((await pp).decision, null);
  reg.dispose();
  assert.match((await last).why, /daemon stopped/);
});

test.run();
