// What the hook prints for a decision the person made in the Inbox, in the harness's own shape
// (spec: Approvals from the Inbox, Plans). Only ever called with a decision the daemon returned;
// every failure prints nothing, which every harness here reads as "ask the user". Pure.

export interface PersonDecision {
  behavior: 'allow' | 'deny';
  /** `2`: the permission updates to send back, rebuilt from the rules shown. */
  updatedPermissions?: unknown[];
  /** A deny's reason (the person's, or the default). */
  message?: string;
}

export const DEFAULT_DENY = 'The user denied this from the tuios Inbox.';

/** Claude Code's and Qwen Code's PermissionRequest output. `input` is the call as it came (a plan's allow needs it). */
export function permissionRequestOutput(harness: string, d: PersonDecision, plan: { input: Record<string, unknown> } | null): string {
  let decision: Record<string, unknown>;
  if (d.behavior === 'deny') decision = { behavior: 'deny', message: d.message || DEFAULT_DENY };
  else {
    decision = { behavior: 'allow' };
    if (plan) decision.updatedInput = plan.input;
    // Qwen Code ignores updatedPermissions from this hook, so always is never offered there.
    if (harness === 'claude-code' && d.updatedPermissions?.length) decision.updatedPermissions = d.updatedPermissions;
  }
  return JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } }) + '\n';
}
