// Every recorded hook payload in fixtures/hooks, through the map `tuios agent-hook` uses: each
// file's expected plan is pinned here, every file is pinned, and every mapped event of every
// harness has at least one payload (measured from the real program where it installs from npm).
// Every file says in `provenance` whether it was captured from the real program (`measured`) or
// written from the vendor's hooks reference (`derived`); a file without it fails. Derived payloads
// are named as such in their test titles and in a summary line printed before the tests run
// (`hooks: N captured, M derived (from vendor docs, not captured): ...`), so that nobody reads
// one as captured.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mapHook } from '../../core/integrations/hooks/map.js';
import { mapCodexNotify } from '../../core/integrations/hooks/map-claude.js';
import type { HookPlan } from '../../core/integrations/hooks/plan.js';

const FIX = join(import.meta.dirname, '..', '..', 'fixtures', 'hooks');

interface Fixture {
  source: string;
  harness: string;
  harness_version: string;
  event: string;
  /** `measured`: captured from the real program; `derived`: written from the vendor's hooks reference. Required. */
  provenance: 'measured' | 'derived';
  payload: Record<string, unknown>;
}

/** A plan, shortened to what a test pins: `state[/kind][ if a,b] "message"`, session, activities, hold. */
function brief(p: HookPlan): string {
  if (!p.report && !p.activities?.length && !p.contextLines) return 'nothing';
  const parts: string[] = [];
  if (p.report) {
    const r = p.report;
    parts.push(`${r.state}${r.kind ? `/${r.kind}` : ''}${r.if_state ? ` if ${r.if_state.join(',')}` : ''}${r.message ? ` "${r.message}"` : ''}`);
    if (r.activity) parts.push(`now "${r.activity}"`);
  }
  if (p.session) parts.push(`session${p.session.start ? `:${p.session.start}` : ''}`);
  if (p.activities?.length) parts.push(`activity ${p.activities.map((a) => `${a.type}${a.agent_id ? `(${a.agent_id})` : ''}${a.text ? ` "${a.text}"` : ''}`).join(', ')}`);
  if (p.contextLines) parts.push('context');
  if (p.approval) parts.push(`hold ${p.approval.tool}${p.approval.plan ? ' plan' : ''}`);
  return parts.join(' | ');
}

const DONE = 'Done! I created hello.txt in the current directory.';
const EXPECT: Record<string, string> = {
  'claude-code/SessionStart-startup': 'idle | session:startup | activity session_start | context',
  'claude-code/UserPromptSubmit': 'working | now "Please create hello.txt" | session',
  'claude-code/PreToolUse-Bash': 'working | now "Bash: touch hello.txt" | session',
  'claude-code/PermissionRequest-Bash': 'needs_input/approval "approve Bash: touch hello.txt" | session | hold Bash',
  'claude-code/PermissionRequest-Bash-addRules': 'needs_input/approval "approve Bash: go test ./..." | session | hold Bash',
  'claude-code/PermissionRequest-ExitPlanMode': 'needs_input/approval "plan: Refactor the retry loop" | session | hold ExitPlanMode plan',
  'claude-code/PermissionRequest-AskUserQuestion': 'needs_input/question "Which database should the tests use?" | session',
  'claude-code/PostToolUse-Bash': 'working if needs_input | now "Bash finished" | session',
  'claude-code/PermissionDenied-Bash': 'working if needs_input | session',
  'claude-code/ElicitationResult': 'working if needs_input | session',
  'claude-code/Notification-permission_prompt': 'needs_input/approval "Claude needs your permission" | session',
  'claude-code/Notification-elicitation_dialog': 'needs_input/question "docs needs your input" | session',
  'claude-code/Notification-agent_needs_input': 'needs_input/question "Claude needs your input" | session',
  'claude-code/Notification-auth_success': 'nothing',
  'claude-code/Stop': `done "${DONE}" | now "${DONE}" | session | activity turn_end "${DONE}"`,
  'claude-code/StopFailure-rate_limit': 'errored "stopped on rate_limit" | session',
  'claude-code/SessionEnd-prompt_input_exit': 'none | session',
  'claude-code/SubagentStart': 'activity subagent_start(a1b2c3d4)',
  'claude-code/SubagentStop': 'activity subagent_stop(a1b2c3d4) "Found 3 call sites of retry()."',
  'claude-code/PreToolUse-subagent-Grep': 'activity subagent_update(a1b2c3d4) "Grep: retry\\("',
  'claude-code/PreToolUse-Agent': 'working | now "Agent: Find the retry call sites" | session | activity subagent_update "Find the retry call sites"',
  'claude-code/PostToolUseFailure-Bash': 'working if needs_input | now "Bash: Exit code 1" | session',
  'claude-code/Notification-idle_prompt': 'idle if working,unknown | session',
  'claude-code/SessionStart-compact': 'nothing',
  'claude-code/SessionEnd-other': 'none | session',
  'claude-code/SubagentStop-2': 'activity subagent_stop(a5fcbee6394dde10b) "The command failed."',
  'claude-code/SessionStart-clear': 'idle | session:clear | activity session_start | context',
  'claude-code/SessionEnd-clear': 'none | session',
  'claude-code/PreCompact': 'nothing',
  'codex/SessionStart-startup': 'idle | session:startup | activity session_start | context',
  'codex/UserPromptSubmit': 'working | now "Please create hello.txt" | session',
  'codex/PreToolUse-Bash': 'working | now "Bash: touch hello.txt" | session',
  'codex/PermissionRequest-Bash': 'needs_input/approval "approve Bash: touch hello.txt" | session',
  'codex/PostToolUse-Bash': 'working if needs_input | now "Bash finished" | session',
  'codex/Stop': `done "${DONE}" | now "${DONE}" | session | activity turn_end "${DONE}"`,
  'codex/Interrupt': 'idle | session',
  'codex/SessionEnd-other': 'none | session',
  'codex/notify-agent-turn-complete': 'done "Done! I created hello.txt."',
  'qwen/SessionStart-startup': 'idle | session:startup | activity session_start',
  'qwen/UserPromptSubmit': 'working | now "Please create hello.txt" | session',
  'qwen/UserPromptSubmit-2': 'working | session',
  'qwen/PreToolUse-run_shell_command': 'working | now "run_shell_command: touch hello.txt" | session',
  'qwen/PermissionRequest-run_shell_command': 'needs_input/approval "approve run_shell_command: touch hello.txt" | session | hold run_shell_command',
  'qwen/PermissionRequest-ask_user_question': 'needs_input/question "Which file should I edit?" | session',
  'qwen/PostToolUse-run_shell_command': 'working if needs_input | now "run_shell_command finished" | session',
  'qwen/PostToolUseFailure-run_shell_command': 'working if needs_input | now "run_shell_command: Command exited with code 1" | session',
  'qwen/PermissionDenied-run_shell_command': 'working if needs_input | session',
  'qwen/Notification-permission_prompt': 'needs_input/approval "Qwen Code needs your permission to use run_shell_command" | session',
  'qwen/Notification-idle_prompt': 'idle if working,unknown | session',
  'qwen/Stop': `done "${DONE}" | now "${DONE}" | session | activity turn_end "${DONE}"`,
  'qwen/StopFailure': 'errored "stopped on api_error" | session',
  'qwen/SessionEnd-prompt_input_exit': 'none | session',
  'kimi/SessionStart-startup': 'idle | session:startup | activity session_start',
  'kimi/UserPromptSubmit': 'working | now "Please create hello.txt" | session',
  'kimi/PreToolUse-Shell': 'working | now "Shell: touch hello.txt" | session',
  'kimi/PreToolUse-AskUserQuestion': 'needs_input/question "Which branch should I use?" | session',
  'kimi/PermissionRequest-Shell': 'needs_input/approval "approve Shell: touch hello.txt" | session',
  'kimi/PermissionResult': 'working if needs_input | session',
  'kimi/PostToolUse-Shell': 'working if needs_input | now "Shell finished" | session',
  'kimi/PostToolUseFailure-Shell': 'working if needs_input | now "Shell: exit code 1" | session',
  'kimi/Stop': 'done "Done! I created hello.txt." | now "Done! I created hello.txt." | session | activity turn_end "Done! I created hello.txt."',
  'kimi/StopFailure': 'errored "stopped on api_error" | session',
  'kimi/Interrupt': 'idle | session',
  'kimi/SessionEnd': 'none | session',
  'gemini-cli/SessionStart-startup': 'idle | session:startup | activity session_start',
  'gemini-cli/BeforeAgent': 'working | now "Please create hello.txt" | session',
  'gemini-cli/BeforeTool-run_shell_command': 'working | now "run_shell_command: touch hello.txt" | session',
  'gemini-cli/AfterTool-run_shell_command': 'working if needs_input | session',
  'gemini-cli/Notification-ToolPermission': 'needs_input/approval "approve Shell: touch hello.txt" | session',
  'gemini-cli/AfterAgent': 'done "I\'ll run that for you." | now "I\'ll run that for you." | session | activity turn_end "I\'ll run that for you."',
  'gemini-cli/SessionEnd-exit': 'none | session',
  'gemini-cli/SessionEnd-exit-2': 'none | session',
  'gemini-cli/SessionEnd-exit-3': 'none | session',
  'gemini-cli/BeforeModel': 'nothing',
  'gemini-cli/BeforeModel-2': 'nothing',
  'gemini-cli/AfterModel': 'nothing',
  'gemini-cli/AfterModel-2': 'nothing',
  'gemini-cli/BeforeToolSelection': 'nothing',
  'gemini-cli/BeforeToolSelection-2': 'nothing',
  'gemini-cli/PreCompress': 'nothing',
  'gemini-cli/PreCompress-2': 'nothing',
  'copilot/sessionStart-new': 'idle | session:new | activity session_start',
  'copilot/userPromptSubmitted': 'working | now "Please create hello.txt" | session',
  'copilot/preToolUse': 'working | now "bash: touch hello.txt" | session',
  'copilot/preToolUse-ask_user': 'needs_input/question "Which file should I edit?" | session',
  'copilot/postToolUse': 'working if needs_input | now "bash: <shellId: 0 completed with exit code 0>" | session',
  'copilot/postToolUseFailure': 'working if needs_input | now "bash: <shellId: 1 completed with exit code 1>" | session',
  'copilot/notification-permission_prompt': 'needs_input/approval "Run command: touch hello.txt" | session',
  'copilot/notification-elicitation_dialog': 'needs_input/question "Which file should I edit?" | session',
  'copilot/permissionRequest': 'nothing',
  'copilot/agentStop': 'done | session | activity turn_end',
  'copilot/errorOccurred': 'errored "Model request failed: 500" | session',
  'copilot/sessionEnd-user_exit': 'none | session',
  'cursor-agent/sessionStart': 'idle | session:startup | activity session_start',
  'cursor-agent/beforeSubmitPrompt': 'working | now "Please create hello.txt" | session',
  'cursor-agent/postToolUse': 'working | now "Shell finished" | session',
  'cursor-agent/postToolUseFailure': 'working | now "Shell: false" | session',
  'cursor-agent/stop-completed': 'done | session | activity turn_end',
  'cursor-agent/stop-aborted': 'idle | session',
  'cursor-agent/stop-error': 'errored "stopped on an error" | session',
  'cursor-agent/sessionEnd': 'none | session',
  'opencode/session.created': 'idle | session:startup',
  'opencode/session.status-busy': 'working | session',
  'opencode/session.status-retry': 'working "retrying: Rate limited by Anthropic" | session',
  'opencode/session.status-idle': 'done if working,needs_input | session | activity turn_end',
  'opencode/session.idle': 'done if working,needs_input | session',
  'opencode/chat.message': 'working | now "Please create hello.txt" | session',
  'opencode/permission.asked': 'needs_input/approval "approve bash: touch hello.txt" | session',
  'opencode/permission.replied': 'working if needs_input | session',
  'opencode/question.asked': 'needs_input/question "Which file?" | session',
  'opencode/question.replied': 'working if needs_input | session',
  'opencode/session.error': 'errored "ProviderAuthError" | session',
  'opencode/session.status-busy-child': 'nothing',
  'pi/session_start': 'idle | session:startup',
  'pi/agent_start': 'working | session',
  'pi/agent_end': 'done | session | activity turn_end',
};

/** The events each harness's map reports on (spec: What each event reports). */
const MAPPED: Record<string, string[]> = {
  'claude-code': ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure', 'PermissionDenied', 'ElicitationResult', 'Notification', 'Stop', 'StopFailure', 'SessionEnd', 'SubagentStart', 'SubagentStop'],
  codex: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'Stop', 'Interrupt', 'SessionEnd', 'notify'],
  qwen: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure', 'PermissionDenied', 'Notification', 'Stop', 'StopFailure', 'SessionEnd'],
  kimi: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure', 'PermissionResult', 'Stop', 'StopFailure', 'Interrupt', 'SessionEnd'],
  'gemini-cli': ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'Notification', 'AfterAgent', 'SessionEnd'],
  copilot: ['sessionStart', 'userPromptSubmitted', 'preToolUse', 'postToolUse', 'postToolUseFailure', 'notification', 'agentStop', 'errorOccurred', 'sessionEnd'],
  'cursor-agent': ['sessionStart', 'beforeSubmitPrompt', 'postToolUse', 'postToolUseFailure', 'stop', 'sessionEnd'],
  // Pi 0.73.1 emits no agent_settled or UI-prompt events; those are pinned in hooks-map-more.
  pi: ['session_start', 'agent_start', 'agent_end'],
  opencode: ['session.created', 'session.status', 'session.idle', 'chat.message', 'permission.asked', 'question.asked', 'permission.replied', 'question.replied', 'session.error'],
};

const fixtures: Array<{ key: string; f: Fixture }> = [];
for (const h of readdirSync(FIX)) {
  for (const name of readdirSync(join(FIX, h)).filter((n) => n.endsWith('.json'))) {
    fixtures.push({ key: `${h}/${name.slice(0, -5)}`, f: JSON.parse(readFileSync(join(FIX, h, name), 'utf8')) as Fixture });
  }
}

function planOf(f: Fixture): HookPlan {
  if (f.event === 'notify') return mapCodexNotify(String(f.payload.argv_last)) ?? { event: 'notify' };
  // Copilot's payloads carry no event name: its installed entries pass --event.
  return mapHook(f.harness, f.payload, {}, f.harness === 'copilot' ? f.event : undefined);
}

/** What a test title and the summary call a fixture's provenance. */
function kindOf(f: Fixture): string {
  if (f.provenance === 'measured') return `captured from ${f.harness} ${f.harness_version}`;
  if (f.provenance === 'derived') return `DERIVED from vendor docs, not captured (${f.harness} ${f.harness_version})`;
  return `NO PROVENANCE (provenance: ${JSON.stringify(f.provenance)})`;
}

{
  const measured = fixtures.filter((x) => x.f.provenance === 'measured');
  const derived = fixtures.filter((x) => x.f.provenance === 'derived');
  const none = fixtures.filter((x) => x.f.provenance !== 'measured' && x.f.provenance !== 'derived');
  const byHarness = new Map<string, string[]>();
  for (const { key, f } of derived) byHarness.set(f.harness, [...(byHarness.get(f.harness) ?? []), key.slice(f.harness.length + 1)]);
  const lines = [
    `hooks: ${measured.length} captured, ${derived.length} derived (from vendor docs, not captured)${none.length ? `, ${none.length} WITHOUT provenance` : ''}: ${[...byHarness].map(([h, names]) => `${h} ${names.length}`).join(', ')}`,
    ...[...byHarness].map(([h, names]) => `hooks derived, ${h}: ${names.join(', ')}`),
  ];
  // Mapped events no captured payload stands behind: their plans are pinned against the docs only.
  const docsOnly = Object.entries(MAPPED).flatMap(([h, events]) => {
    const captured = new Set(measured.filter((x) => x.f.harness === h).map((x) => x.f.event));
    const missing = events.filter((e) => !captured.has(e));
    return missing.length ? [`${h} ${missing.join(' ')}`] : [];
  });
  if (docsOnly.length) lines.push(`hooks: mapped events with no captured payload (derived only): ${docsOnly.join('; ')}`);
  if (none.length) lines.push(`hooks WITHOUT provenance: ${none.map((x) => x.key).join(', ')}`);
  // In the suite's own output too, passed or not (scripts/run-tests.mjs prints note lines).
  console.log(lines.map((l) => `[tuios-test-note] ${l}`).join('\n'));
}

for (const { key, f } of fixtures) {
  test(`${key}: ${kindOf(f)}`, () => {
    assert.ok(f.provenance === 'measured' || f.provenance === 'derived', `${key}: provenance must be "measured" (captured from the real program) or "derived" (written from the vendor's docs)`);
    assert.ok(f.source && f.harness_version, 'the fixture says where it came from and the harness version');
    assert.is(f.harness, key.split('/')[0]);
    assert.ok(f.source.startsWith(`${f.provenance}:`), `the source starts with "${f.provenance}:", saying the same as provenance`);
    const want = EXPECT[key];
    assert.ok(want !== undefined, `no expectation pinned for ${key}: ${brief(planOf(f))}`);
    assert.is(brief(planOf(f)), want);
  });
}

for (const [h, events] of Object.entries(MAPPED)) {
  test(`${h}: every mapped event has a recorded payload`, () => {
    const have = new Set(fixtures.filter((x) => x.f.harness === h).map((x) => x.f.event));
    const missing = events.filter((e) => !have.has(e));
    assert.equal(missing, [], `no fixture for ${missing.join(', ')}`);
  });
}

test('nothing defaults: not an object, no event, an unknown event, an unknown notification', () => {
  assert.is(brief(mapHook('claude-code', [1, 2], {})), 'nothing');
  assert.is(brief(mapHook('claude-code', 'text', {})), 'nothing');
  assert.is(brief(mapHook('claude-code', {}, {})), 'nothing');
  assert.is(brief(mapHook('claude-code', { hook_event_name: 'Whatever' }, {})), 'nothing');
  assert.is(brief(mapHook('claude-code', { hook_event_name: 'Notification', notification_type: 'new_kind' }, {})), 'nothing');
  assert.is(brief(mapHook('no-such', { hook_event_name: 'Stop' }, {})), 'nothing');
});

test('foreign events: TUIOS_AGENT naming another harness, Grok and Cursor running a Claude Code hook, another Codex thread', () => {
  const stop = { hook_event_name: 'Stop', session_id: 's1' };
  assert.is(brief(mapHook('claude-code', stop, { TUIOS_AGENT: 'aider' })), 'nothing');
  assert.is.not(brief(mapHook('claude-code', stop, { TUIOS_AGENT: 'claude' })), 'nothing');
  assert.is.not(brief(mapHook('claude-code', stop, { TUIOS_AGENT: 'my-wrapper' })), 'nothing', 'a name tuios does not know says nothing either way');
  assert.is(brief(mapHook('claude-code', stop, { GROK_SESSION_ID: 'g' })), 'nothing');
  assert.is(brief(mapHook('claude-code', { ...stop, conversation_id: 'c', generation_id: 'g' }, {})), 'nothing');
  assert.is(brief(mapHook('codex', stop, { CODEX_THREAD_ID: 'other' })), 'nothing');
  assert.is.not(brief(mapHook('codex', stop, { CODEX_THREAD_ID: 's1' })), 'nothing');
  assert.is(brief(mapHook('qwen', { ...stop, agent_id: 'sub' }, {})), 'nothing', 'a subagent\'s event is dropped');
  assert.is(brief(mapHook('claude-code', { hook_event_name: 'SubagentStart', agent_id: 'bad id!' }, {})), 'nothing', 'an agent_id out of shape reports nothing');
});

test('a message is one line, masked and cut to 100 characters', () => {
  const p = mapHook('claude-code', { hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: `curl -H "Authorization: Bearer abcdef123456789" https://u:pw@host/x --token s3cr3t ${'x'.repeat(200)}` } }, {});
  const m = p.report!.message!;
  assert.ok([...m].length <= 100, `${[...m].length} characters`);
  assert.not.match(m, /abcdef123456789|s3cr3t|u:pw/);
  assert.match(m, /\*\*\*/);
  const ctl = mapHook('claude-code', { hook_event_name: 'Stop', last_assistant_message: 'a\u001b[31mred\u0007 \u202etxt' }, {});
  assert.not.match(ctl.report!.message!, /[\u0000-\u001f\u202e]/);
});

test.run();
