// What `tuios integration install` writes for each harness (spec: Harness integrations, the table):
// the file, its shape, the events and the version. Paths follow each harness's own environment
// variable, else its default under HOME.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { hookCommand, type EventEntry, type Shape } from './hook-entries.js';
import { HOLD_HOOK_TIMEOUT_S, PLUGIN_STATUS_MAX_MESSAGES, PLUGIN_STATUS_MAX_SESSIONS } from '../../limits.js';
import { ampPluginText, header, piExtensionText, PLUGIN_FILE_VERSION, runnerText } from './plugins.js';

export type Env = Record<string, string | undefined>;

export type IntegrationKind =
  /** A `hooks` table inside a settings file the user owns (Claude Code, Gemini CLI, Qwen Code). */
  | { type: 'settings-hooks'; shape: Shape; commandKey: string; tableKey?: string }
  /** A hooks file the user owns whose top level is `{ hooks: ... }` (Codex, Cursor). */
  | { type: 'hooks-file'; shape: Shape; commandKey: string; header?: Record<string, unknown> }
  /** A file tuios owns whole (Copilot's hook file, the opencode and Kilo plugins). */
  | { type: 'own-file'; text: (program: string) => string }
  /** TOML tables between two marker comments at the end of a file the user owns (Kimi). */
  | { type: 'toml-block'; text: (program: string) => string }
  /** Hermes: a plugin folder tuios owns, and its name in `plugins.enabled` in config.yaml. */
  | { type: 'hermes' };

export interface Integration {
  harness: string;
  name: string;
  reports: 'state' | 'session';
  version: number;
  /** The configuration folder that must exist (run the harness once first). */
  dir(env: Env): string;
  file(env: Env): string;
  kind: IntegrationKind;
  /** The entries to write, for the hooks kinds. */
  entries?(program: string): EventEntry[];
  /** The program on PATH the harness runs as. */
  bin: string;
  /** Why an explicit install is refused here (a folder identified as another harness's), or null. */
  refuse?(env: Env): string | null;
  /** Why `--all` leaves it out here, or null. */
  skipInAll?(env: Env): string | null;
  /** Where its format comes from: checked against the installed program, or from the spec. */
  source?: string;
}

/** The opencode and Kilo plugin's version (its --integration N). */
const OPENCODE_PLUGIN_VERSION = 3;

const home = (env: Env) => env.HOME || '/';
const xdg = (env: Env) => env.XDG_CONFIG_HOME || join(home(env), '.config');
const piDir = (env: Env) => env.PI_CODING_AGENT_DIR || join(home(env), '.pi', 'agent');
const ompDir = (env: Env) => env.PI_CODING_AGENT_DIR || join(home(env), '.omp', 'agent');
const antigravityDir = (env: Env) => env.ANTIGRAVITY_CLI_CONFIG_DIR || join(home(env), '.gemini', 'config');
const hermesDir = (env: Env) => env.HERMES_HOME || join(home(env), '.hermes');
/** $XDG_CONFIG_HOME/devin, ~/.config/devin, or %APPDATA%\devin on Windows. */
const devinDir = (env: Env) => (env.XDG_CONFIG_HOME ? join(env.XDG_CONFIG_HOME, 'devin') : process.platform === 'win32' && env.APPDATA ? join(env.APPDATA, 'devin') : join(home(env), '.config', 'devin'));

/** An agent folder identified as oh-my-pi's: under ~/.omp, or holding omp's tuios extension. */
function looksLikeOmp(env: Env): boolean {
  const d = piDir(env);
  return /(^|[\\/])\.omp([\\/]|$)/.test(d) || existsSync(join(d, 'extensions', 'tuios-omp-agent-state.ts'));
}

/** An agent folder identified as Pi's: under ~/.pi, or holding Pi's tuios extension. */
function looksLikePi(env: Env): boolean {
  const d = ompDir(env);
  return /(^|[\\/])\.pi([\\/]|$)/.test(d) || existsSync(join(d, 'extensions', 'tuios-agent-state.ts'));
}

/** Claude Code's shape: `{ matcher?, hooks: [{ type: 'command', command, timeout? }] }`. */
function nested(harness: string, version: number, events: string[], opts: { matcher?: string[]; timeout?: (e: string) => number | undefined } = {}) {
  return (program: string): EventEntry[] =>
    events.map((event) => {
      const timeout = opts.timeout?.(event);
      const hook: Record<string, unknown> = { type: 'command', command: hookCommand(program, harness, version), ...(timeout !== undefined ? { timeout } : {}) };
      return { event, entry: { ...(opts.matcher?.includes(event) ? { matcher: '*' } : {}), hooks: [hook] } };
    });
}

const CLAUDE_TOOL_EVENTS = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest', 'PermissionDenied'];
const CLAUDE_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure', 'PermissionDenied', 'ElicitationResult', 'Notification', 'Stop', 'StopFailure', 'SessionEnd', 'SubagentStart', 'SubagentStop'];
const CODEX_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'Stop', 'Interrupt', 'SessionEnd'];
const GEMINI_EVENTS = ['SessionStart', 'BeforeAgent', 'BeforeTool', 'AfterTool', 'Notification', 'AfterAgent', 'SessionEnd'];
const QWEN_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure', 'PermissionDenied', 'Notification', 'Stop', 'StopFailure', 'SessionEnd'];
const COPILOT_EVENTS = ['sessionStart', 'userPromptSubmitted', 'preToolUse', 'postToolUse', 'postToolUseFailure', 'notification', 'agentStop', 'errorOccurred', 'sessionEnd'];
const CURSOR_EVENTS = ['sessionStart', 'beforeSubmitPrompt', 'postToolUse', 'postToolUseFailure', 'stop', 'sessionEnd'];
const KIMI_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure', 'PermissionResult', 'Stop', 'StopFailure', 'Interrupt', 'SessionEnd'];

export const KIMI_BEGIN = '# >>> tuios agent state (tuios integration install kimi; do not edit) >>>';
export const KIMI_END = '# <<< tuios agent state <<<';

function kimiBlock(program: string): string {
  const lines = [KIMI_BEGIN];
  for (const e of KIMI_EVENTS) lines.push('[[hooks]]', `event = "${e}"`, `command = ${JSON.stringify(hookCommand(program, 'kimi', 1))}`, 'timeout = 5', '');
  lines.pop();
  lines.push(KIMI_END);
  return lines.join('\n') + '\n';
}

function copilotFile(program: string): string {
  const hooks = Object.fromEntries(COPILOT_EVENTS.map((e) => [e, [{ type: 'command', bash: hookCommand(program, 'copilot', 1, e), timeoutSec: 5 }]]));
  return JSON.stringify({ version: 1, hooks }, null, 2) + '\n';
}

/** Grok's hook file of its own (Claude Code's shape; from the spec, not measured). */
function grokFile(program: string): string {
  const hooks = { SessionStart: [{ hooks: [{ type: 'command', command: hookCommand(program, 'grok', 1), timeout: 5 }] }] };
  return JSON.stringify({ hooks }, null, 2) + '\n';
}

export const INTEGRATIONS: Integration[] = [
  {
    harness: 'claude-code',
    name: 'Claude Code',
    reports: 'state',
    version: 3,
    bin: 'claude',
    dir: (env) => env.CLAUDE_CONFIG_DIR || join(home(env), '.claude'),
    file: (env) => join(env.CLAUDE_CONFIG_DIR || join(home(env), '.claude'), 'settings.json'),
    kind: { type: 'settings-hooks', shape: 'nested', commandKey: 'command' },
    // PermissionRequest may hold for the Inbox: 310 s, above the hook's own 305 s limit.
    entries: nested('claude-code', 3, CLAUDE_EVENTS, { matcher: CLAUDE_TOOL_EVENTS, timeout: (e) => (e === 'PermissionRequest' ? HOLD_HOOK_TIMEOUT_S : undefined) }),
  },
  {
    harness: 'codex',
    name: 'Codex',
    reports: 'state',
    version: 1,
    bin: 'codex',
    dir: (env) => env.CODEX_HOME || join(home(env), '.codex'),
    file: (env) => join(env.CODEX_HOME || join(home(env), '.codex'), 'hooks.json'),
    kind: { type: 'hooks-file', shape: 'nested', commandKey: 'command' },
    entries: nested('codex', 1, CODEX_EVENTS, { matcher: ['PreToolUse', 'PostToolUse', 'PermissionRequest'] }),
  },
  {
    harness: 'gemini-cli',
    name: 'Gemini CLI',
    reports: 'state',
    version: 1,
    bin: 'gemini',
    dir: (env) => join(home(env), '.gemini'),
    file: (env) => join(home(env), '.gemini', 'settings.json'),
    kind: { type: 'settings-hooks', shape: 'nested', commandKey: 'command' },
    entries: nested('gemini-cli', 1, GEMINI_EVENTS, { matcher: ['BeforeTool', 'AfterTool'] }),
  },
  {
    harness: 'qwen',
    name: 'Qwen Code',
    reports: 'state',
    version: 2,
    bin: 'qwen',
    dir: (env) => env.QWEN_HOME || join(home(env), '.qwen'),
    file: (env) => join(env.QWEN_HOME || join(home(env), '.qwen'), 'settings.json'),
    kind: { type: 'settings-hooks', shape: 'nested', commandKey: 'command' },
    // Qwen Code reads 1000 or more as milliseconds (older releases read every value so).
    entries: nested('qwen', 2, QWEN_EVENTS, { matcher: ['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'PermissionRequest', 'PermissionDenied'], timeout: (e) => (e === 'PermissionRequest' ? HOLD_HOOK_TIMEOUT_S * 1000 : 5000) }),
  },
  {
    harness: 'copilot',
    name: 'GitHub Copilot CLI',
    reports: 'state',
    version: 1,
    bin: 'copilot',
    dir: (env) => env.COPILOT_HOME || join(home(env), '.copilot'),
    file: (env) => join(env.COPILOT_HOME || join(home(env), '.copilot'), 'hooks', 'tuios.json'),
    kind: { type: 'own-file', text: copilotFile },
  },
  {
    harness: 'cursor-agent',
    name: 'Cursor Agent',
    reports: 'state',
    version: 1,
    bin: 'cursor-agent',
    dir: (env) => env.CURSOR_CONFIG_DIR || join(home(env), '.cursor'),
    file: (env) => join(env.CURSOR_CONFIG_DIR || join(home(env), '.cursor'), 'hooks.json'),
    kind: { type: 'hooks-file', shape: 'flat', commandKey: 'command', header: { version: 1 } },
    entries: (program) => CURSOR_EVENTS.map((event) => ({ event, entry: { command: hookCommand(program, 'cursor-agent', 1) } })),
  },
  {
    harness: 'kimi',
    name: 'Kimi Code CLI',
    reports: 'state',
    version: 1,
    bin: 'kimi',
    dir: (env) => env.KIMI_CODE_HOME || join(home(env), '.kimi-code'),
    file: (env) => join(env.KIMI_CODE_HOME || join(home(env), '.kimi-code'), 'config.toml'),
    kind: { type: 'toml-block', text: kimiBlock },
  },
  {
    harness: 'opencode',
    name: 'opencode',
    reports: 'state',
    // 2: the status line feed (model, cost) through agent-statusline; 3: reports in order, each with 3 s.
    version: OPENCODE_PLUGIN_VERSION,
    bin: 'opencode',
    dir: (env) => join(xdg(env), 'opencode'),
    file: (env) => join(xdg(env), 'opencode', 'plugins', 'tuios-agent-state.js'),
    kind: { type: 'own-file', text: (p) => pluginText(p, 'opencode') },
  },
  {
    harness: 'kilo',
    name: 'Kilo',
    reports: 'state',
    // 2: the status line feed (model, cost) through agent-statusline; 3: reports in order, each with 3 s.
    version: OPENCODE_PLUGIN_VERSION,
    bin: 'kilo',
    dir: (env) => join(xdg(env), 'kilo'),
    file: (env) => join(xdg(env), 'kilo', 'plugin', 'tuios-agent-state.js'),
    kind: { type: 'own-file', text: (p) => pluginText(p, 'kilo') },
  },
  {
    harness: 'amp',
    name: 'Amp',
    reports: 'state',
    version: PLUGIN_FILE_VERSION,
    bin: 'amp',
    source: 'checked against `amp plugins show-docs` of @ampcode/cli 0.0.1790142911 (npm): system plugins are ~/.config/amp/plugins/*.ts',
    dir: (env) => join(xdg(env), 'amp'),
    file: (env) => join(xdg(env), 'amp', 'plugins', 'tuios-agent-state.ts'),
    kind: { type: 'own-file', text: ampPluginText },
  },
  {
    harness: 'pi',
    name: 'Pi',
    reports: 'state',
    version: PLUGIN_FILE_VERSION,
    bin: 'pi',
    source: 'checked against docs/extensions.md and docs/usage.md of @mariozechner/pi-coding-agent 0.73.1 (npm): ~/.pi/agent/extensions/*.ts, PI_CODING_AGENT_DIR; measured with that Pi in a tuios pane',
    dir: piDir,
    file: (env) => join(piDir(env), 'extensions', 'tuios-agent-state.ts'),
    kind: { type: 'own-file', text: (p) => piExtensionText(p, 'pi') },
    refuse: (env) => (looksLikeOmp(env) ? `${piDir(env)} is an oh-my-pi agent folder: install omp there, or run tuios integration uninstall pi with that PI_CODING_AGENT_DIR first` : null),
    skipInAll: (env) => (env.PI_CODING_AGENT_DIR ? 'PI_CODING_AGENT_DIR is set: install pi or omp by name' : null),
  },
  {
    harness: 'omp',
    name: 'oh-my-pi',
    reports: 'state',
    version: PLUGIN_FILE_VERSION,
    bin: 'omp',
    source: 'from the spec, not measured: its npm package does not install here',
    dir: ompDir,
    file: (env) => join(ompDir(env), 'extensions', 'tuios-omp-agent-state.ts'),
    kind: { type: 'own-file', text: (p) => piExtensionText(p, 'omp') },
    refuse: (env) => (looksLikePi(env) ? `${ompDir(env)} holds Pi's tuios extension: run tuios integration uninstall pi with that PI_CODING_AGENT_DIR, then install omp` : null),
    skipInAll: (env) => (env.PI_CODING_AGENT_DIR ? 'PI_CODING_AGENT_DIR is set: install pi or omp by name' : null),
  },
  {
    harness: 'antigravity',
    name: 'Antigravity CLI',
    reports: 'session',
    version: 1,
    bin: 'agy',
    source: 'from the spec, not measured',
    dir: antigravityDir,
    file: (env) => join(antigravityDir(env), 'hooks.json'),
    kind: { type: 'settings-hooks', shape: 'nested', commandKey: 'command', tableKey: 'tuios' },
    entries: nested('antigravity', 1, ['PreInvocation'], { timeout: () => 5 }),
  },
  {
    harness: 'crush',
    name: 'Crush',
    reports: 'session',
    version: 1,
    bin: 'crush',
    source: 'from the spec, not measured: @charmland/crush downloads its binary at install, which fails here',
    dir: (env) => join(xdg(env), 'crush'),
    file: (env) => join(xdg(env), 'crush', 'crush.json'),
    kind: { type: 'settings-hooks', shape: 'nested', commandKey: 'command' },
    entries: nested('crush', 1, ['PreToolUse'], { matcher: ['PreToolUse'], timeout: () => 5 }),
  },
  {
    harness: 'devin',
    name: 'Devin CLI',
    reports: 'session',
    version: 1,
    bin: 'devin',
    source: 'from the spec, not measured',
    dir: devinDir,
    file: (env) => join(devinDir(env), 'config.json'),
    kind: { type: 'settings-hooks', shape: 'nested', commandKey: 'command' },
    entries: nested('devin', 1, ['SessionStart', 'UserPromptSubmit'], { timeout: () => 5 }),
  },
  {
    harness: 'droid',
    name: 'Droid',
    reports: 'session',
    version: 1,
    bin: 'droid',
    source: 'from the spec, not measured: @factory/cli fetches its binary at install',
    dir: (env) => join(home(env), '.factory'),
    file: (env) => join(home(env), '.factory', 'settings.json'),
    kind: { type: 'settings-hooks', shape: 'nested', commandKey: 'command' },
    entries: nested('droid', 1, ['SessionStart'], { timeout: () => 5 }),
  },
  {
    harness: 'grok',
    name: 'Grok CLI',
    reports: 'session',
    version: 1,
    bin: 'grok',
    source: 'from the spec, not measured: the npm @vibe-kit/grok-cli 0.0.34 has no hooks',
    dir: (env) => env.GROK_HOME || join(home(env), '.grok'),
    file: (env) => join(env.GROK_HOME || join(home(env), '.grok'), 'hooks', 'tuios.json'),
    kind: { type: 'own-file', text: grokFile },
  },
  {
    harness: 'hermes',
    name: 'Hermes Agent',
    reports: 'session',
    version: 1,
    bin: 'hermes',
    source: 'from the spec, not measured: hermes-agent is a Python package, not on npm',
    dir: hermesDir,
    file: (env) => join(hermesDir(env), 'config.yaml'),
    kind: { type: 'hermes' },
  },
  {
    harness: 'qoder',
    name: 'Qoder CLI',
    reports: 'session',
    version: 1,
    bin: 'qodercli',
    source: 'checked against bundle/builtin/hook-config/SKILL.md of @qoder-ai/qodercli 1.1.52 (npm): `hooks` in settings.json, { matcher, hooks: [{ type: "command", command }] }, session_id in the payload',
    dir: (env) => env.QODER_CONFIG_DIR || join(home(env), '.qoder'),
    file: (env) => join(env.QODER_CONFIG_DIR || join(home(env), '.qoder'), 'settings.json'),
    kind: { type: 'settings-hooks', shape: 'nested', commandKey: 'command' },
    entries: nested('qoder', 1, ['SessionStart'], { timeout: () => 5 }),
  },
];

/** Harnesses with no integration in this build, and why (spec: Harness integrations). */
export const NO_INTEGRATION: Record<string, string> = {
  aider: 'its one hook, notifications-command, replaces your own and carries nothing',
  cline: 'one executable per event in a folder that has moved between releases, behind a setting',
  goose: 'its hooks have no event for a prompt that waits on you (goose issue 12007)',
  kiro: 'no documented user-wide hook location or payload',
  maki: 'Lua plugins loaded from your own init.lua',
};

export function integrationFor(name: string): Integration | undefined {
  const alias: Record<string, string> = { claude: 'claude-code', gemini: 'gemini-cli', 'qwen-code': 'qwen', 'github-copilot': 'copilot', cursor: 'cursor-agent', 'kimi-cli': 'kimi', kilocode: 'kilo', 'opencode-ai': 'opencode', 'pi-coding-agent': 'pi', 'oh-my-pi': 'omp', agy: 'antigravity', 'factory-droid': 'droid', 'grok-cli': 'grok', 'hermes-agent': 'hermes', qodercli: 'qoder' };
  const id = alias[name] ?? name;
  return INTEGRATIONS.find((i) => i.harness === id);
}

/** The plugin opencode (and Kilo, its fork) loads: forwards its events to `tuios agent-hook`, never waiting. */
export function pluginText(program: string, harness: 'opencode' | 'kilo'): string {
  return `${header(harness, '', OPENCODE_PLUGIN_VERSION)}${runnerText(program, harness, OPENCODE_PLUGIN_VERSION)}
const CHILD = new Set();

// The status line feed: the model of the session's last assistant message and the sum of their
// costs, sent through \`tuios agent-statusline\` only when one of them changes (it throttles too).
const COSTS = new Map();
const SHOWN = new Map();

function status(info) {
  if (!info || info.role !== "assistant" || typeof info.sessionID !== "string" || CHILD.has(info.sessionID)) return;
  let costs = COSTS.get(info.sessionID);
  if (!costs) {
    if (COSTS.size >= ${PLUGIN_STATUS_MAX_SESSIONS}) {
      const oldest = COSTS.keys().next().value;
      COSTS.delete(oldest);
      SHOWN.delete(oldest);
    }
    costs = new Map();
    COSTS.set(info.sessionID, costs);
  }
  if (typeof info.cost === "number" && Number.isFinite(info.cost) && info.cost >= 0 && (costs.has(info.id) || costs.size < ${PLUGIN_STATUS_MAX_MESSAGES})) costs.set(info.id, info.cost);
  let cost = 0;
  for (const c of costs.values()) cost += c;
  const model = typeof info.modelID === "string" && info.modelID ? info.modelID : undefined;
  const shown = (model ?? "") + "\u0000" + cost.toFixed(2);
  if (SHOWN.get(info.sessionID) === shown) return;
  SHOWN.set(info.sessionID, shown);
  tuios("agent-statusline", { session_id: info.sessionID, model, cost: costs.size ? cost : undefined });
}

export const TuiosAgentState = async () => ({
  event: async ({ event }) => {
    const t = event?.type;
    const pr = event?.properties ?? {};
    const info = pr.info ?? {};
    if ((t === "session.created" || t === "session.updated") && info.parentID) CHILD.add(info.id);
    const sid = pr.sessionID ?? info.id ?? pr.info?.sessionID;
    const base = { hook_event_name: t, session_id: sid, ...(sid && CHILD.has(sid) ? { is_child: true } : {}) };
    if (t === "message.updated") return status(info);
    if (t === "session.status") report({ ...base, status: pr.status?.type, message: pr.status?.message });
    else if (t === "session.idle" || t === "permission.replied" || t === "question.replied") report(base);
    else if (t === "session.created" && !info.parentID) report(base);
    else if (t === "permission.asked" || t === "permission.updated") report({ ...base, hook_event_name: "permission.asked", tool: pr.permission ?? pr.type ?? pr.tool, pattern: Array.isArray(pr.patterns) ? pr.patterns.join(" ") : pr.pattern ?? pr.title });
    else if (t === "question.asked") report({ ...base, message: pr.questions?.[0]?.question ?? pr.question });
    else if (t === "session.error") report({ ...base, message: pr.error?.data?.message ?? pr.error?.name });
  },
  "chat.message": async (input, output) => {
    const text = (output?.parts ?? []).map((p) => (p?.type === "text" ? p.text : "")).join(" ");
    report({ hook_event_name: "chat.message", session_id: input?.sessionID, ...(CHILD.has(input?.sessionID) ? { is_child: true } : {}), message: text });
  },
});
`;
}
