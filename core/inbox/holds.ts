// Approvals held for the Inbox (spec: Approvals from the Inbox, Plans). A harness's permission hook
// asks to hold its prompt; while it waits, the Inbox item carries a request_id and answers 1, 2
// or 3 from the attached client only. A hold ends with no decision, and the harness then asks in
// its pane, on the first of: hold_seconds, enter on the item, the pane focused, the item
// dismissed, the pane leaving needs_input (or its block turning into a question), the pane or
// session closing, a newer prompt from the same pane, the hook giving up, the daemon stopping.
import { createHash, randomBytes } from 'node:crypto';
import type { Bus, Disposable } from '../bus.js';
import type { Logger } from '../log.js';
import type { Inbox, Item } from './inbox.js';
import type { PersonDecision } from '../integrations/hooks/decision.js';
import type { Offers } from '../integrations/hooks/offers.js';
import { HOLD_SETTLE_MS } from '../limits.js';

export interface HoldRequest {
  windowId: string;
  harness: string;
  /** The one line the Inbox shows: `approve Bash: go test ./...`, or the plan's row. */
  line: string;
  offers: Offers;
  seconds: number;
  /** A plan: its whole text and digest. */
  plan?: { text: string; sha: string };
}

export interface HoldEnd {
  decision: PersonDecision | null;
  why: string;
}

interface Hold {
  requestId: string;
  req: HoldRequest;
  startedAt: number;
  itemId: number;
  timer: NodeJS.Timeout;
  resolve(e: HoldEnd): void;
}

export function planSha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export class HoldRegistry implements Disposable {
  private readonly byWindow = new Map<string, Hold>();
  private readonly subs: Disposable[] = [];
  private ending = false;

  constructor(
    bus: Bus,
    private readonly inbox: Inbox,
    private readonly log: Logger,
  ) {
    this.subs.push(
      bus.on('agent-state', (ev) => {
        if (ev.state !== 'needs_input') this.release(ev.window_id, `the pane is ${ev.state} now`);
        else if (ev.kind === 'question') this.release(ev.window_id, 'the block turned into a question');
      }),
      bus.on('window-seen', (ev) => this.release(ev.window_id, 'the pane was focused')),
      bus.on('attention', (ev) => {
        if (ev.op !== 'close' || this.ending) return;
        const h = ev.item.window_id ? this.byWindow.get(ev.item.window_id) : undefined;
        if (h && h.itemId === ev.item.id) this.end(h, { decision: null, why: ev.reason === 'dismissed' ? 'the item was dismissed' : ev.reason }, false);
      }),
    );
  }

  heldFor(windowId: string): { requestId: string; line: string } | null {
    const h = this.byWindow.get(windowId);
    return h ? { requestId: h.requestId, line: h.req.line } : null;
  }

  /** Holds the prompt until an answer or an end; a newer prompt from the same pane ends the older. */
  hold(req: HoldRequest, item: Item, signal: AbortSignal): Promise<HoldEnd> {
    const old = this.byWindow.get(req.windowId);
    if (old) this.end(old, { decision: null, why: 'a newer prompt from the same pane' });
    const requestId = randomBytes(8).toString('hex');
    return new Promise<HoldEnd>((resolve) => {
      const h: Hold = {
        requestId,
        req,
        startedAt: Date.now(),
        itemId: item.id,
        resolve,
        timer: setTimeout(() => this.end(h, { decision: null, why: `hold_seconds (${req.seconds} s) passed` }), req.seconds * 1000),
      };
      h.timer.unref();
      this.byWindow.set(req.windowId, h);
      this.inbox.holdItem(item, {
        summary: req.line,
        kind: req.plan ? 'plan' : 'approval',
        ref: {
          request_id: requestId,
          line: req.line,
          offers: req.offers.keys.join(','),
          ...(req.offers.rules.length ? { rules: req.offers.rules.join('; ') } : {}),
          ...(req.plan ? { plan_sha: req.plan.sha, plan: req.plan.text } : {}),
        },
      });
      signal.addEventListener('abort', () => this.end(h, { decision: null, why: 'the hook gave up (its connection closed)' }), { once: true });
    });
  }

  /**
   * The person's answer, checked against the hold it was made from: the same request, the line it
   * was read from, a key that was offered, and for a plan the digest that was shown.
   */
  answer(a: { requestId: string; key: '1' | '2' | '3'; line: string; planSha?: string; reason?: string }): { ok: true; windowId: string } | { ok: false; code: 'not_found' | 'prompt_changed' | 'invalid_params' | 'not_ready'; why: string } {
    const h = [...this.byWindow.values()].find((x) => x.requestId === a.requestId);
    if (!h) return { ok: false, code: 'not_found', why: 'No hold has that request id: it was answered or ended.' };
    if (a.line !== h.req.line) return { ok: false, code: 'prompt_changed', why: 'The hold is on another call now (changed).' };
    if (Date.now() - h.startedAt < HOLD_SETTLE_MS) return { ok: false, code: 'not_ready', why: 'The approval just arrived; read it, then answer.' };
    if (!h.req.offers.keys.includes(a.key)) return { ok: false, code: 'invalid_params', why: `${a.key} is not offered for this approval (offered: ${h.req.offers.keys.join(', ')}).` };
    if (h.req.plan && a.key !== '3' && a.planSha !== h.req.plan.sha) return { ok: false, code: 'prompt_changed', why: 'The plan shown is not the plan held (plan_sha).' };
    let decision: PersonDecision;
    if (a.key === '3') decision = { behavior: 'deny', ...(a.reason ? { message: a.reason } : {}) };
    else decision = { behavior: 'allow', ...(a.key === '2' ? { updatedPermissions: h.req.offers.updates } : {}) };
    this.end(h, { decision, why: 'answered from the Inbox' }, true, 'answered');
    return { ok: true, windowId: h.req.windowId };
  }

  /** Ends a pane's hold with no decision (enter on the item, the pane focused, ...). */
  release(windowId: string, why: string): boolean {
    const h = this.byWindow.get(windowId);
    if (!h) return false;
    this.end(h, { decision: null, why });
    return true;
  }

  private end(h: Hold, e: HoldEnd, touchItem = true, closeAs?: string): void {
    if (this.byWindow.get(h.req.windowId) !== h) return;
    this.byWindow.delete(h.req.windowId);
    clearTimeout(h.timer);
    this.ending = true;
    try {
      const item = this.inbox.get(h.itemId);
      if (item && touchItem) {
        // Answered: the item closes. Ended: it is the pane's approval again, answered in the pane.
        if (closeAs) this.inbox.close(item.id, closeAs);
        else this.inbox.unholdItem(item);
      }
    } finally {
      this.ending = false;
    }
    this.log.debug('hold ended', { window: h.req.windowId, why: e.why, decided: !!e.decision });
    h.resolve(e);
  }

  dispose(): void {
    for (const h of [...this.byWindow.values()]) this.end(h, { decision: null, why: 'the daemon stopped' }, false);
    for (const s of this.subs) s.dispose();
  }
}
