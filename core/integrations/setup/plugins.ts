// The plugin and extension files tuios owns whole for Amp, Pi and oh-my-pi (spec: Harness
// integrations, What each event reports, Failure behaviour). Each forwards a small JSON object per
// event to `tuios agent-hook HARNESS` in a child process it does not wait on, so it never holds
// its harness up, one child at a time in the order of the events (runnerText), and does nothing
// unless TUIOS_ENV or TUIOS_AGENT is set. The map itself is core/integrations/hooks/map-plugins.ts.
//
// Amp: checked against the plugin API that `amp plugins show-docs` prints (@ampcode/cli
// 0.0.1790142911, installed from npm): system plugins are `~/.config/amp/plugins/*.ts`, run by
// Bun, `export default function (amp)`, `amp.on('session.start' | 'agent.start' | 'agent.end' |
// 'tool.call' | 'tool.result', handler)`, `event.thread.id`, agent.end's `status` done / error /
// cancelled, and a `tool.call` handler that must answer `{ action: 'allow' }`.
// Pi: checked against docs/extensions.md of @mariozechner/pi-coding-agent 0.73.1 (npm): global
// extensions are `~/.pi/agent/extensions/*.ts` (PI_CODING_AGENT_DIR overrides ~/.pi/agent, per
// docs/usage.md), `export default function (pi)`, `pi.on('session_start' | 'agent_start' |
// 'agent_end', (event, ctx) => ...)`, `ctx.hasUI`, `ctx.isIdle()`,
// `ctx.sessionManager.getSessionId()`. 0.73.1 emits no `agent_settled` and no `ui_prompt_start` /
// `ui_prompt_end`: those are from the spec, not measured; on a Pi without `agent_settled` the
// extension ends the turn on an `agent_end` no `agent_start` follows within 300 ms. Measured with
// the real Pi 0.73.1 in a tuios pane (test/e2e/hooks-pi.test.ts): it loads the extension, and the
// pane goes idle, working and done from its reports.
// oh-my-pi: from the spec, not measured (its npm package does not install here): the extension
// directory, `ctx.agent.kind` (18.3.2 or newer), `tool_approval_requested` /
// `tool_approval_resolved`, and how `agent_end` says an automatic continuation is scheduled.
import { PLUGIN_HOOK_TIMEOUT_MS, PLUGIN_REPORT_QUEUE_MAX } from '../../limits.js';

/**
 * The JS each plugin runs tuios with: `tuios(VERB, payload)`. One child at a time, in the order of
 * the events, so a report slowed by a loaded machine is never overtaken by a later one (a late
 * session start would turn a working pane idle); the harness never waits on any of them. An
 * agent-hook child has PLUGIN_HOOK_TIMEOUT_MS; one that does not end in a second past that is let
 * go, and the queue drops its oldest waiting report past PLUGIN_REPORT_QUEUE_MAX.
 */
export function runnerText(program: string, harness: string, version: number): string {
  return `import { spawn } from "node:child_process";

const QUEUE = [];
let running = false;

function tuios(verb, payload) {
  if (!process.env.TUIOS_ENV && !process.env.TUIOS_AGENT) return;
  if (QUEUE.length >= ${PLUGIN_REPORT_QUEUE_MAX}) QUEUE.shift();
  QUEUE.push({ verb, payload });
  next();
}

function next() {
  if (running || QUEUE.length === 0) return;
  const { verb, payload } = QUEUE.shift();
  running = true;
  let ended = false;
  let timer = null;
  const done = () => {
    if (ended) return;
    ended = true;
    if (timer) clearTimeout(timer);
    running = false;
    next();
  };
  try {
    const budget = verb === "agent-hook" ? ["--timeout", "${PLUGIN_HOOK_TIMEOUT_MS}"] : [];
    const p = spawn(${JSON.stringify(program)}, [verb, ${JSON.stringify(harness)}, "--integration", "${version}", ...budget], { stdio: ["pipe", "ignore", "ignore"], detached: true });
    p.on("error", done);
    p.on("exit", done);
    p.stdin.on("error", () => {});
    p.stdin.end(JSON.stringify(payload));
    p.unref();
    timer = setTimeout(done, ${PLUGIN_HOOK_TIMEOUT_MS + 1000});
    if (timer.unref) timer.unref();
  } catch {
    done();
  }
}

function report(payload) {
  tuios("agent-hook", payload);
}
`;
}

/** The version of the Amp, Pi and oh-my-pi files (2: reports in order, each with PLUGIN_HOOK_TIMEOUT_MS). */
export const PLUGIN_FILE_VERSION = 2;

/** The first lines of every plugin file tuios writes: what it is, and its version. */
export function header(harness: string, what: string, version = PLUGIN_FILE_VERSION): string {
  return `// tuios agent state for ${harness} (tuios integration install ${harness}; --integration ${version}).
// Written by tuios; tuios replaces or removes this file. It does nothing outside tuios.${what ? ` ${what}` : ''}
`;
}

/** Pi's and oh-my-pi's extension: the same session and turn events; Pi's UI prompts, omp's tool approvals. */
export function piExtensionText(program: string, harness: 'pi' | 'omp'): string {
  const omp = harness === 'omp';
  return `${header(harness, omp ? 'Needs omp 18.3.2 or newer (ctx.agent.kind).' : '')}${runnerText(program, harness, PLUGIN_FILE_VERSION)}
function tui(ctx) {
  if (!ctx || ctx.hasUI !== true || !process.stdout.isTTY) return false;
  return !process.argv.some((a) => a === "-p" || a === "--print" || a === "--mode" || a.startsWith("--mode="));
}

function mainAgent(ctx) {
  ${omp ? 'const kind = ctx && ctx.agent ? ctx.agent.kind : undefined;\n  return kind === undefined || kind === "main";' : 'return true;'}
}

function sessionId(ctx) {
  try {
    const id = ctx.sessionManager.getSessionId();
    return typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}

export default function (pi) {
  if (!process.env.TUIOS_ENV && !process.env.TUIOS_AGENT) return;
  let busy = false;
  let settles = false;
  let endTimer = null;
  const clear = () => {
    if (endTimer) clearTimeout(endTimer);
    endTimer = null;
  };
  const send = (ctx, name, extra) => {
    try {
      if (!tui(ctx) || !mainAgent(ctx)) return;
      report({ hook_event_name: name, session_id: sessionId(ctx), ...(extra || {}) });
    } catch {}
  };
  const on = (name, fn) => {
    try {
      pi.on(name, (event, ctx) => {
        try {
          fn(event || {}, ctx);
        } catch {}
      });
    } catch {}
  };
  on("session_start", (e, ctx) => {
    let running = busy;
    try {
      if (typeof ctx.isIdle === "function") running = !ctx.isIdle();
    } catch {}
    send(ctx, "session_start", { reason: typeof e.reason === "string" ? e.reason : undefined, busy: running });
  });
  on("agent_start", (e, ctx) => {
    clear();
    busy = true;
    send(ctx, "agent_start", { prompt: typeof e.prompt === "string" ? e.prompt : undefined });
  });
  on("agent_settled", (e, ctx) => {
    clear();
    settles = true;
    busy = false;
    send(ctx, "agent_settled");
  });
  on("agent_end", (e, ctx) => {
    busy = false;
${
  omp
    ? `    const continuing = e.willContinue === true || e.continuing === true || e.autoContinue === true;
    clear();
    endTimer = setTimeout(() => send(ctx, "agent_end", { continuing }), 300);`
    : `    if (settles) return;
    clear();
    endTimer = setTimeout(() => send(ctx, "agent_end"), 300);`
}
  });
${
  omp
    ? `  on("tool_approval_requested", (e, ctx) => {
    send(ctx, "tool_approval_requested", { tool: e.toolName || e.tool || e.name, input: e.input || e.args });
  });
  on("tool_approval_resolved", (e, ctx) => send(ctx, "tool_approval_resolved"));`
    : `  on("ui_prompt_start", (e, ctx) => {
    send(ctx, "ui_prompt_start", { prompt_kind: e.kind || e.type, title: e.title || e.message });
  });
  on("ui_prompt_end", (e, ctx) => send(ctx, "ui_prompt_end", { busy }));`
}
}
`;
}

/** Amp's plugin. It listens to tool.call only when its answer (always allow) cannot change what Amp permits. */
export function ampPluginText(program: string): string {
  return `${header('amp', '')}${runnerText(program, 'amp', PLUGIN_FILE_VERSION)}import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { homedir } from "node:os";

export const description = "Reports this Amp's state to tuios";

const OURS = "tuios-agent-state.ts";

function settingsSayAllow() {
  const dir = join(process.env.XDG_CONFIG_HOME || join(homedir(), ".config"), "amp");
  let s = {};
  try {
    s = JSON.parse(readFileSync(join(dir, "settings.json"), "utf8"));
  } catch (e) {
    if (!e || e.code !== "ENOENT") return false;
  }
  if (!s || typeof s !== "object") return false;
  for (const k of ["amp.permissions", "amp.guardedFiles.allowlist", "amp.mcpPermissions"]) if (k in s) return false;
  if (s["amp.dangerouslyAllowAll"] === false) return false;
  for (const d of [join(dir, "plugins"), join(process.cwd(), ".amp", "plugins")]) {
    let names = [];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    if (names.some((n) => n !== OURS && /\\.(ts|js|mjs|mts)$/.test(n))) return false;
  }
  return true;
}

export default function (amp) {
  if (!process.env.TUIOS_ENV && !process.env.TUIOS_AGENT) return;
  const send = (name, e, extra) => {
    try {
      report({ hook_event_name: name, thread_id: e && e.thread ? e.thread.id : undefined, ...(extra || {}) });
    } catch {}
  };
  amp.on("session.start", (e) => {
    send("session.start", e);
  });
  amp.on("agent.start", (e) => {
    send("agent.start", e, { message: e && typeof e.message === "string" ? e.message : undefined });
    return {};
  });
  amp.on("agent.end", (e) => {
    send("agent.end", e, { status: e ? e.status : undefined });
  });
  amp.on("tool.result", (e) => {
    if (e && e.tool === "ask_user_choice") send("tool.result", e, { tool: e.tool });
  });
  let listen = false;
  try {
    listen = settingsSayAllow();
  } catch {}
  if (listen) {
    amp.on("tool.call", (e) => {
      try {
        if (e && e.tool === "ask_user_choice") {
          const i = e.input || {};
          const q = typeof i.question === "string" ? i.question : Array.isArray(i.questions) && i.questions[0] ? i.questions[0].question : undefined;
          send("tool.call", e, { tool: e.tool, question: q });
        }
      } catch {}
      return { action: "allow" };
    });
  }
}
`;
}
