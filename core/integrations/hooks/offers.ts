// Which answers a held approval offers, and what `2` adds (spec: Approvals from the Inbox, Plans).
// `2` is offered only when every rule it adds can be shown; the updates sent back are rebuilt from
// the rules shown, never passed through. Pure.
import { obj, str } from './plan.js';
import { hasUndrawable } from './text.js';
import { APPROVAL_OFFER_MAX_RULES } from '../../limits.js';

export interface Offers {
  /** The keys that answer: '1' allow once, '2' always (or accept edits for a plan), '3' deny. */
  keys: Array<'1' | '2' | '3'>;
  /** The rules `2` adds, as shown: `Bash(go test:*) in .claude/settings.local.json`. */
  rules: string[];
  /** Claude Code's updatedPermissions for `2`, rebuilt from `rules`. */
  updates: unknown[];
}

const DESTINATIONS: Record<string, string> = {
  session: 'this session',
  localSettings: '.claude/settings.local.json',
  projectSettings: '.claude/settings.json',
  userSettings: '~/.claude/settings.json',
};
const RULE_KEYS = new Set(['type', 'rules', 'behavior', 'destination']);

function once(): Offers {
  return { keys: ['1', '3'], rules: [], updates: [] };
}

/** Claude Code: `2` only when every suggestion is an allow addRules we can show, four rules at most. */
export function claudeOffers(suggestions: unknown): Offers {
  if (!Array.isArray(suggestions) || suggestions.length === 0) return once();
  const shown: string[] = [];
  const updates: unknown[] = [];
  for (const s of suggestions) {
    const o = obj(s);
    if (!o || o.type !== 'addRules' || o.behavior !== 'allow') return once();
    if (Object.keys(o).some((k) => !RULE_KEYS.has(k))) return once();
    const dest = str(o, 'destination');
    const where = DESTINATIONS[dest];
    if (!where || !Array.isArray(o.rules) || o.rules.length === 0) return once();
    const rules: Array<{ toolName: string; ruleContent?: string }> = [];
    for (const r of o.rules) {
      const ro = obj(r);
      const tool = ro ? str(ro, 'toolName') : '';
      if (!ro || !/^[A-Za-z0-9_.:-]{1,64}$/.test(tool) || Object.keys(ro).some((k) => k !== 'toolName' && k !== 'ruleContent')) return once();
      const content = ro.ruleContent;
      if (content !== undefined && (typeof content !== 'string' || content.length > 200 || hasUndrawable(content))) return once();
      rules.push(content === undefined ? { toolName: tool } : { toolName: tool, ruleContent: content });
      shown.push(`${tool}${content !== undefined ? `(${content})` : ''} in ${where}`);
    }
    if (shown.length > APPROVAL_OFFER_MAX_RULES) return once();
    updates.push({ type: 'addRules', rules, behavior: 'allow', destination: dest });
  }
  return { keys: ['1', '2', '3'], rules: shown, updates };
}

/** A plan: `2` (accept edits) only when Claude Code suggests exactly that mode change. */
export function planOffers(suggestions: unknown): Offers {
  const list = Array.isArray(suggestions) ? suggestions : [];
  const only = list.length === 1 ? obj(list[0]) : null;
  if (only && only.type === 'setMode' && only.mode === 'acceptEdits' && Object.keys(only).every((k) => ['type', 'mode', 'destination'].includes(k))) {
    return { keys: ['1', '2', '3'], rules: ['accept edits for this session'], updates: [{ type: 'setMode', mode: 'acceptEdits', destination: 'session' }] };
  }
  return once();
}
