// The agent state store's bounds are in core/limits.ts (its "agent state store" section). This
// re-export stays only for core/verbs/hooks.ts, which is being edited elsewhere: it goes when the
// verb records land and that file imports core/limits.ts. Define nothing here.
export { AGENT_ID_RE } from '../limits.js';
