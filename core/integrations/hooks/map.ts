// One hook event to one plan: the harness's own map, after the guards that keep events of another
// harness or another conversation off the pane (spec: Nested and foreign events). Pure.
import { hookHarness } from './harnesses.js';
import { foreignEvent } from './foreign.js';
import { mapClaudeFamily } from './map-claude.js';
import { mapGemini } from './map-gemini.js';
import { mapCopilot } from './map-copilot.js';
import { mapCursor } from './map-cursor.js';
import { mapOpencode } from './map-opencode.js';
import { mapAmp, mapPiFamily } from './map-plugins.js';
import { mapSessionOnly } from './map-session.js';
import { nothing, obj, str, type HookEnv, type HookPlan } from './plan.js';

export { foreignEvent } from './foreign.js';

export function mapHook(harnessName: string, payload: unknown, env: HookEnv, argEvent?: string): HookPlan {
  const h = hookHarness(harnessName);
  if (!h) return nothing(argEvent ?? '', `tuios agent-hook does not know the harness ${harnessName}`);
  const p = obj(payload);
  if (!p) return nothing(argEvent ?? '', 'the payload is not a JSON object');
  const foreign = foreignEvent(h.id, p, env);
  if (foreign) return nothing(str(p, 'hook_event_name') || argEvent || '', foreign);
  switch (h.id) {
    case 'claude-code':
    case 'codex':
    case 'qwen':
    case 'kimi':
      return mapClaudeFamily(h.id, p, argEvent);
    case 'gemini-cli':
      return mapGemini(p, argEvent);
    case 'copilot':
      return mapCopilot(p, argEvent);
    case 'cursor-agent':
      return mapCursor(p, argEvent);
    case 'opencode':
    case 'kilo':
      return mapOpencode(p, argEvent);
    case 'pi':
    case 'omp':
      return mapPiFamily(h.id, p, argEvent);
    case 'amp':
      return mapAmp(p, argEvent);
    default:
      if (h.reports === 'session') return mapSessionOnly(h.id, p, env, argEvent);
      return nothing(argEvent ?? '', `${h.id} has no event map`);
  }
}
