// A permission question in the pane (spec: Headless agents over a protocol): one number key per
// answer, in the agent's own words. A digit counts only once the question has been on screen for
// PERMISSION_SETTLE_MS, so a key typed for something else as it appears never answers it; a
// paste and Enter never answer. Pure: the pane side feeds it keys and the time.
import type { ProtoPermissionOption } from './agent.js';
import type { Key } from './keys.js';

/** How long a question is on screen before a digit answers it. */
export const PERMISSION_SETTLE_MS = 500;
/** Answers shown with a key: 1 to 9. */
export const PERMISSION_OPTIONS_MAX = 9;

export class PermissionQuestion {
  readonly options: ProtoPermissionOption[];

  constructor(
    options: ProtoPermissionOption[],
    /** When it was drawn (ms, the same clock as `key`'s). */
    readonly shownAt: number,
  ) {
    this.options = options.slice(0, PERMISSION_OPTIONS_MAX);
  }

  /** The option a key answers with, or null: too soon, not a digit, a paste, Enter. */
  answer(key: Key, now: number): ProtoPermissionOption | null {
    if (key.kind !== 'char') return null;
    if (now - this.shownAt < PERMISSION_SETTLE_MS) return null;
    if (!/^[1-9]$/.test(key.ch)) return null;
    return this.options[Number(key.ch) - 1] ?? null;
  }

  /** The option the Inbox's answer stands for: allow once, or deny (exactly one call). */
  inboxOption(behavior: 'allow' | 'deny'): ProtoPermissionOption | null {
    return this.options.find((o) => o.kind === (behavior === 'allow' ? 'allow_once' : 'deny')) ?? null;
  }
}
