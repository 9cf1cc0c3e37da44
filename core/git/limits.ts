// The budgets of every git call are in core/limits.ts (its "Git, worktrees and fleets" section).
// This re-export stays only for core/verbs/fan.ts and core/verbs/worktree.ts, which are being
// edited elsewhere: it goes when the verb records land and they import core/limits.ts. Define
// nothing here.
export { DIFF_LINK_MAX_BYTES, DIFF_LINK_PART_BYTES, GIT_DIFF_BUDGET_MS, GIT_TRANSFER_TIMEOUT_MS, LS_CONCURRENCY, MAX_FAN, READY_WAIT_MS, START_AGENT_WAIT_MS } from '../limits.js';
