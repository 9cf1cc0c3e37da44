// Captures the Claude Code hook payloads that the one-turn run of capture-agents.ts does not
// reach: a failing tool call (PostToolUseFailure), the idle notification (after 60 s at the
// prompt), /compact (SessionStart source compact) and /clear (SessionEnd and SessionStart clear).
// The real program from npm, in a tuios pane, against test/fake-apis/anthropic.ts; each hook is
// `cat > <file>`. Only files whose name is new are written: measured fixtures are never edited.
//
//   node --import tsx scripts/capture-hook-events.ts
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon } from '../test/helpers/daemon.js';
import { ensureAgent, startFakeFor, agentHome, startAgentInPane, stopAgent, screenText, REPO } from '../test/helpers/agents.js';
import { waitFor } from '../test/helpers/wait.js';

const EVENTS = ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure', 'PermissionDenied', 'Notification', 'Stop', 'StopFailure', 'SessionEnd', 'SubagentStart', 'SubagentStop', 'PreCompact', 'ElicitationResult'];

async function main(): Promise<void> {
  const a = ensureAgent('claude-code');
  if ('skip' in a) throw new Error(a.skip);
  const root = mkdtempSync('/var/tmp/tuios-capture-claude-code-events-');
  const sink = join(root, 'payloads');
  mkdirSync(sink, { recursive: true });
  const hooks = Object.fromEntries(EVENTS.map((e) => [e, [{ matcher: '*', hooks: [{ type: 'command', command: `cat > "${sink}/${e}.$(date +%s%N).json"` }] }]]));
  const api = await startFakeFor('claude-code', { command: 'false', finalText: 'The command failed.' });
  const d = await TestDaemon.start();
  const run = agentHome('claude-code', { apiUrl: api.url, cwd: join(root, 'project'), home: join(root, 'home'), hooks });
  const pane = await startAgentInPane(d, { agent: a, run, session: 'capture', name: 'claude', cols: 120, rows: 40 });
  const w = pane.window;
  const screen = (re: RegExp, what: string, timeout = 90_000) => waitFor(async () => re.test(await screenText(d, w)), { timeout, what });
  const count = (event: string) => readdirSync(sink).filter((f) => f.startsWith(`${event}.`)).length;
  const steps: string[] = [];
  try {
    await screen(/for shortcuts|\? for/, 'the idle prompt');
    await d.ok(['send-text', '-w', w, 'Please run false']);
    await d.ok(['send-keys', '-w', w, 'Enter']);
    // Claude Code runs `false` without asking; a prompt, if one shows, is allowed.
    let asked = false;
    await waitFor(async () => {
      if (count('Stop') > 0) return true;
      if (!asked && /Do you want to proceed\?/.test(await screenText(d, w))) {
        asked = true;
        await d.ok(['send-keys', '-w', w, 'Enter']);
      }
      return false;
    }, { timeout: 90_000, what: 'the Stop hook' });
    steps.push(`a turn whose command \`false\` failed${asked ? ' (pressed Enter on "1. Yes")' : ' (run without asking)'}`);
    // Claude Code says it waits on you after 60 s at the prompt.
    await waitFor(() => readdirSync(sink).some((f) => f.startsWith('Notification.') && readFileSync(join(sink, f), 'utf8').includes('idle_prompt')), { timeout: 120_000, interval: 1000, what: 'the idle_prompt notification' });
    steps.push('left at the prompt until the idle_prompt notification (about 60 s)');
    await d.ok(['send-text', '-w', w, '/compact']);
    await d.ok(['send-keys', '-w', w, 'Enter']);
    await waitFor(() => readdirSync(sink).some((f) => f.startsWith('SessionStart.') && readFileSync(join(sink, f), 'utf8').includes('"compact"')), { timeout: 90_000, what: 'SessionStart after /compact' }).then(
      () => steps.push('typed /compact'),
      (e) => console.log(`compact: ${(e as Error).message}`),
    );
    await screen(/for shortcuts|\? for/, 'the prompt after /compact', 30_000).catch(() => undefined);
    await d.ok(['send-text', '-w', w, '/clear']);
    await d.ok(['send-keys', '-w', w, 'Enter']);
    await waitFor(() => readdirSync(sink).some((f) => f.startsWith('SessionStart.') && readFileSync(join(sink, f), 'utf8').includes('"clear"')), { timeout: 60_000, what: 'SessionStart after /clear' }).then(
      () => steps.push('typed /clear'),
      (e) => console.log(`clear: ${(e as Error).message}`),
    );
  } finally {
    await stopAgent(d, pane, run);
    await api.close();
    await d.stop();
  }
  const out = join(REPO, 'fixtures', 'hooks', 'claude-code');
  const seen = new Map<string, number>();
  const files = readdirSync(sink).sort((x, y) => Number(x.split('.')[1]) - Number(y.split('.')[1]));
  for (const f of files) {
    const event = f.split('.')[0]!;
    const payload = JSON.parse(readFileSync(join(sink, f), 'utf8')) as Record<string, unknown>;
    const variant = String(payload.notification_type ?? payload.tool_name ?? payload.source ?? payload.reason ?? '').replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 40);
    let name = variant ? `${event}-${variant}` : event;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    if (n > 1) name = `${name}-${n}`;
    const file = join(out, `${name}.json`);
    if (existsSync(file)) continue;
    const doc = {
      source: `measured: @anthropic-ai/claude-code ${a.version} in a 120x40 tuios pane against test/fake-apis/anthropic.ts; a hook command \`cat > <file>\` registered for the event in the harness's settings wrote its stdin; ${steps.join('; ')}; then the agent was stopped`,
      provenance: 'measured',
      harness: 'claude-code',
      harness_version: a.version,
      event,
      payload,
    };
    writeFileSync(file, `${JSON.stringify(doc, null, 2)}\n`);
    console.log(`wrote ${file.slice(REPO.length + 1)}`);
  }
  rmSync(root, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
