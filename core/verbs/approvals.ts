// Approvals held for the Inbox: request-approval (a harness's hook, for its own pane only, never
// over a link but from a window of this machine's whose process runs on a linked host, as that
// window), reply-approval (the person: the attach nonce, from the attached client) and
// release-approval (the person goes to answer in the pane). Spec: Approvals from the Inbox, Plans.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { findHarness } from '../detection/manifest.js';
import { holdableCall, holdablePlan, lineFits } from '../integrations/hooks/hold.js';
import { protocolOf } from '../git/protocol-pane.js';
import { claudeOffers, planOffers, type Offers } from '../integrations/hooks/offers.js';
import { planSha } from '../inbox/holds.js';
import { HOOK_HOLD_MAX_MS, REASON_MAX_BYTES } from '../limits.js';
import { capBytes } from '../agent-state/store.js';
import type { Services } from '../daemon/services.js';

const nonceParam = z.string().max(128).optional().describe('The attach nonce of the client acting as the person');

/** The harness ids [agents.approvals] enabled names, aliases read through the manifests. */
function approvalsOn(svc: Services, harness: string): boolean {
  const a = svc.config.current.agents.approvals;
  return a.enabled.some((n) => n === harness || findHarness(svc.manifests, n)?.id === harness);
}

/** The person's decision the hook prints for its harness (core/integrations/hooks/decision.ts PersonDecision). */
const personDecisionSchema = z.object({
  behavior: z.enum(['allow', 'deny']),
  updatedPermissions: z.array(z.unknown()).optional(),
  message: z.string().optional(),
});

/** request-approval's answer: not held (why), or held until the person answered or the hold ended. */
const holdAnswerSchema = z.discriminatedUnion('held', [
  z.object({ held: z.literal(false), why: z.string() }),
  // decision null: the hold ended with no answer (why says how); the harness asks in the pane.
  z.object({ held: z.literal(true), decision: personDecisionSchema.nullable(), why: z.string() }),
]);

export const requestApproval = defineVerb({
  name: 'request-approval',
  hosted: 'wait',
  access: 'self',
  summary: 'Hold a permission prompt for the Inbox and wait for the person\'s answer (a harness\'s hook, for its own pane)',
  help: 'Answers { held: false, why } at once when approvals are off for the harness or the call cannot be shown whole on one line; otherwise waits until the person answers 1, 2 or 3, or the hold ends (decision null).',
  target: 'window',
  mutates: true,
  params: z.object({
    harness: z.string().max(64).describe('The harness asking'),
    tool: z.string().min(1).max(128).describe('The tool the call is for'),
    input: z.record(z.string(), z.unknown()).describe('The tool input, as the harness sent it'),
    suggestions: z.array(z.unknown()).max(32).optional().describe('Claude Code\'s permission_suggestions'),
    plan: z.boolean().optional().describe('An ExitPlanMode call: held as a plan'),
  }),
  result: holdAnswerSchema,
  print: 'fields',
  // The hold lasts at most hold_seconds (at most 300); the hook gives up at HOOK_HOLD_MAX_MS.
  budgetMs: () => HOOK_HOLD_MAX_MS,
  async run({ params, window, svc, caller, signal }): Promise<z.input<typeof holdAnswerSchema>> {
    const w = window!;
    if (caller.channel === 'link') throw new TuiosError('forbidden', 'A hold is never requested over a link.');
    const own = svc.placement(caller);
    if (caller.channel !== 'tui' && (own.kind !== 'pane' || own.window !== w)) {
      throw new TuiosError('forbidden', 'A hold may be requested only for the caller\'s own pane.', 'Run the hook inside the pane its harness runs in.');
    }
    const harness = findHarness(svc.manifests, params.harness)?.id ?? params.harness;
    // A protocol pane: choosing the protocol is the opt in, and agent-proto sends the request's
    // one line as input.line; the daemon checks it with the same whole-line rule.
    const protocol = protocolOf(w);
    if (!protocol && !approvalsOn(svc, harness)) return { held: false, why: `approvals are off for ${harness} ([agents.approvals] enabled)` };
    const cfg = svc.config.current.agents.approvals;
    const info = svc.agents.info(w);
    if (info.state !== 'needs_input' || info.kind !== 'approval') return { held: false, why: `the pane is ${info.state}, not waiting on an approval` };
    let line: string;
    let offers: Offers;
    let plan: { text: string; sha: string } | undefined;
    if (params.plan) {
      if (harness !== 'claude-code' || params.tool !== 'ExitPlanMode') return { held: false, why: 'only Claude Code\'s ExitPlanMode is held as a plan' };
      if (!cfg.hold_plans) return { held: false, why: 'plans are not held (hold_plans = false)' };
      const p = holdablePlan(params.input);
      if (!p.ok) return { held: false, why: p.why };
      line = p.plan.row;
      plan = { text: p.plan.plan, sha: planSha(p.plan.plan) };
      offers = planOffers(params.suggestions);
    } else if (protocol) {
      const arg = params.input.line;
      if (typeof arg !== 'string' || arg === '') return { held: false, why: 'the request has no line' };
      const c = lineFits(params.tool, arg);
      if (!c.ok) return { held: false, why: c.why };
      line = c.call.line;
      offers = { keys: ['1', '3'], rules: [], updates: [] };
    } else {
      // The daemon checks the line again, from the same code the hook used.
      const c = holdableCall(harness, params.tool, params.input);
      if (!c.ok) return { held: false, why: c.why };
      line = c.call.line;
      offers = harness === 'claude-code' ? claudeOffers(params.suggestions) : { keys: ['1', '3'], rules: [], updates: [] };
    }
    const item = svc.inbox.approvalItem(w.id) ?? svc.inbox.open('approval', { windowId: w.id, summary: line, harness });
    const end = await svc.holds.hold({ windowId: w.id, harness, line, offers, seconds: cfg.hold_seconds, ...(plan ? { plan } : {}) }, item, signal);
    if (end.decision) {
      // The harness goes on once the hook prints the decision.
      svc.agents.report(w, { state: 'working', harness });
    }
    return { held: true, decision: end.decision, why: end.why };
  },
});

export const replyApproval = defineVerb({
  name: 'reply-approval',
  access: 'person',
  summary: 'Answer a held approval or plan: 1 allow once, 2 always (or accept edits), 3 deny (the person only)',
  target: 'none',
  mutates: true,
  cli: { positionals: ['request_id', 'answer'] },
  params: z.object({
    request_id: z.string().min(1).max(64).describe('The held item\'s request_id'),
    answer: z.enum(['1', '2', '3']).describe('1 allow once, 2 always allow (offered only with the rules it adds), 3 deny'),
    line: z.string().max(1000).describe('The line the answer was made from, exactly as shown'),
    plan_sha: z.string().max(128).optional().describe('For a plan: the digest of the plan shown'),
    reason: z.string().max(4096).optional().describe('A deny\'s reason, which the model reads'),
    nonce: nonceParam,
  }),
  result: z.object({ window_id: z.string(), answered: z.enum(['1', '2', '3']) }),
  print: 'fields',
  run({ params, svc, caller }) {
    const reason = params.reason !== undefined ? capBytes(params.reason.replace(/\s+/g, ' ').trim(), REASON_MAX_BYTES) : undefined;
    const r = svc.holds.answer({ requestId: params.request_id, key: params.answer, line: params.line, planSha: params.plan_sha, reason: reason || undefined });
    if (!r.ok) throw new TuiosError(r.code, r.why);
    return { window_id: r.windowId, answered: params.answer };
  },
});

export const releaseApproval = defineVerb({
  name: 'release-approval',
  access: 'person',
  summary: 'End a pane\'s hold with no answer, so its harness asks in the pane (the person only)',
  target: 'window',
  mutates: true,
  params: z.object({ nonce: nonceParam }),
  // released: false when the pane had no hold.
  result: z.object({ window_id: z.string(), released: z.boolean() }),
  print: 'fields',
  run({ params, window, svc, caller }) {
    return { window_id: window!.id, released: svc.holds.release(window!.id, 'the person went to the pane') };
  },
});
