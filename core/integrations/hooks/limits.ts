// The budgets of `tuios agent-hook` and the holds it asks for (spec: Failure behaviour, Approvals
// from the Inbox). Named here once, each with why it is that number.

/** The whole hook call, report included: harnesses run some hooks synchronously. */
export const HOOK_TIMEOUT_MS = 500;
/** A hook that waits on a hold gives up after this, below the 310 s its harness allows it. */
export const HOOK_HOLD_MAX_MS = 305_000;
/** The timeout tuios writes for the hook that may hold (Claude Code and Qwen Code read ms ≥ 1000 as ms). */
export const HOLD_HOOK_TIMEOUT_S = 310;
/** Stdin a hook reads at most: a payload with a plan or a long tool input fits well inside. */
export const HOOK_STDIN_MAX_BYTES = 1024 * 1024;
/** The rollout tail read for Codex's automatic reviewer: its turn context is written near the end. */
export const CODEX_ROLLOUT_TAIL_BYTES = 256 * 1024;
/** A key answers a held approval only once it has been on screen this long, unchanged. */
export const HOLD_SETTLE_MS = 400;
/** A reason typed for a deny, in bytes. */
export const REASON_MAX_BYTES = 500;
/** A resume id: letters, digits, _ . / : -, not starting with -, at most 256 bytes. */
export const RESUME_ID_RE = /^[A-Za-z0-9_./:][A-Za-z0-9_./:-]{0,255}$/;
/** Auto resume waits this long for each new shell's prompt, and staggers panes by this much. */
export const RESUME_PROMPT_WAIT_MS = 10_000;
export const RESUME_STAGGER_MS = 100;
/** A shell that sent no OSC 133 marks counts as at its prompt after this long quiet. */
export const RESUME_QUIET_MS = 300;
