// The recap under the list for a Finished item in the Inbox (spec: The away recap): what the agent
// did since this client last had the pane in front of it, read from its ring (agent-activity) when
// the item comes under the cursor, once per finished turn. A pane with no ring has none: the Inbox
// shows the turn's own line. [agents.recap] mode off shows none.
import type { Acts } from './acts.js';
import type { AgentRow } from './rows.js';
import type { Item } from '../core/inbox/inbox.js';
import type { ActivityResult } from '../core/verbs/activity.js';
import { ago, recapLines } from '../core/activity/recap.js';
import { lastInFront } from './away-recap.js';
import { clean } from './text.js';

/** Files the Inbox's recap names before "and N more" (spec's example: two). */
export const INBOX_RECAP_FILES = 2;

export interface RecapContent {
  kind: 'recap';
  lines: string[];
}

export class RecapCard {
  private fetchedFor: string | null = null;
  private shown: RecapContent | null = null;

  constructor(
    private readonly acts: Acts,
    private readonly changed: () => void,
  ) {}

  /** The recap for a finished row or item, or null; starts its read when the row changed. */
  contentFor(row: AgentRow | null, item: Item | null): RecapContent | null {
    const windowId = item ? (item.kind === 'done' ? item.window_id : null) : row && !row.host && row.state === 'done' && row.finishedUnread ? row.id : null;
    if (!windowId || this.acts.svc.config.current.agents.recap.mode === 'off') return null;
    const key = `${windowId}:${item ? item.updated_at : row!.stateSince}`;
    if (this.fetchedFor !== key) this.fetch(windowId, key);
    return this.shown;
  }

  private fetch(windowId: string, key: string): void {
    this.fetchedFor = key;
    this.shown = null;
    const since = lastInFront(this.acts.svc, windowId);
    void this.acts.call<ActivityResult>('agent-activity', { window: windowId, recap: true, ...(since !== null ? { since_ms: since } : {}) }).then((r) => {
      if (this.fetchedFor !== key || !r.ok || !r.value.ring || !r.value.recap) return;
      const now = Date.now();
      const rec = r.value.recap;
      const head = since !== null ? `While you were away (${ago(now - since)})` : `Since ${new Date(rec.since).toTimeString().slice(0, 5)}, when its log starts`;
      // The row's own facts line (agent, model, context, cost) follows it; where it is now is the row's state.
      this.shown = { kind: 'recap', lines: recapLines(rec, now, { head, filesShown: INBOX_RECAP_FILES }).filter((l) => !l.startsWith('Now: ')).map(clean) };
      this.changed();
    });
  }
}
