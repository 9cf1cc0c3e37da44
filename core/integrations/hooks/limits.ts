// The budgets of `tuios agent-hook` are in core/limits.ts (its "tuios agent-hook" section). This
// re-export stays only for core/verbs/approvals.ts, tui/held-card.ts and tui/agents-view.ts, which
// are being edited elsewhere: it goes when they import core/limits.ts. Define nothing here.
export { HOLD_SETTLE_MS, HOOK_HOLD_MAX_MS, REASON_MAX_BYTES } from '../../limits.js';
