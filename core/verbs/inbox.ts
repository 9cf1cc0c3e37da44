// The person's Inbox: list-attention (anyone may read it), dismiss-attention and mark-attention
// (only the person: the attach nonce, from the attached client, outside every pane), and attach,
// which issues that nonce.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { parseSelector, matches, type SelectorRow } from '../agent-state/selector.js';
import { stateOfKind, ITEM_KINDS, type Item } from '../inbox/inbox.js';
import type { Services } from '../daemon/services.js';
import { readableSessions, readsEverySession } from '../security/access.js';
import { remoteItemJson, remoteItemSelectorRow } from '../hosts/rows.js';
import { attachTui } from './tui.js';
import { EDITOR_COMMAND_MAX, MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS } from '../limits.js';
import { table } from '../rpc/print-helpers.js';
import { readActivity, recapSchema } from './activity.js';
import { fence } from '../mail/fence.js';

const nonceParam = z.string().max(128).optional().describe('The attach nonce of the client acting as the person');

/** An Inbox row as a selector reads it: its state is the one its kind stands for. */
function itemRow(i: Item, svc: Services): SelectorRow {
  const w = i.window_id ? svc.model.windows.get(i.window_id) : undefined;
  const state = stateOfKind(i.kind);
  return {
    harness: i.harness,
    harnessNames: i.harness ? svc.harnessNames(i.harness) : [],
    state,
    session: i.session ?? undefined,
    host: i.host ?? 'local',
    name: i.name ?? undefined,
    cwd: undefined, // not known for an Inbox row (spec: Selectors)
    group: w ? ((svc.model.sessions.get(w.sessionId)?.attrs.get('group') as string | undefined) ?? null) : null,
  };
}

/** An Inbox item on the wire (list-attention, mark-attention, attach's attention events). */
export const itemSchema = z.object({
  id: z.number().int(),
  kind: z.enum(ITEM_KINDS),
  window_id: z.string().nullable(),
  session_id: z.string().nullable(),
  session: z.string().nullable(),
  name: z.string().nullable(),
  harness: z.string().nullable(),
  summary: z.string(),
  opened_at: z.number(),
  updated_at: z.number(),
  snoozed_until: z.union([z.number(), z.literal('change')]).nullable(),
  unread: z.boolean(),
  ref: z.record(z.string(), z.union([z.string(), z.number()])),
  options: z.array(z.string()).optional(),
  host: z.string().optional(),
  held: z.boolean().optional(),
  label: z.string(),
  waited_ms: z.number(),
  /** list-attention --recap, on a finished item whose pane keeps an activity ring: what the agent did (its text untrusted). */
  recap: recapSchema.optional(),
});
export type ItemJson = z.infer<typeof itemSchema>;

/** A linked host's Inbox row in list-attention (core/hosts/rows.ts remoteItemJson): display-only. */
export const remoteItemSchema = z.object({
  host: z.string(),
  id: z.string(),
  host_item_id: z.number().int(),
  kind: z.string(),
  window_id: z.string().nullable(),
  session: z.string().nullable(),
  name: z.string().nullable(),
  harness: z.string().nullable(),
  summary: z.string(),
  opened_at: z.number(),
  updated_at: z.number(),
  options: z.array(z.string()),
  held: z.boolean(),
  unread: z.boolean(),
  down: z.boolean(),
  seen_at: z.number(),
  label: z.string(),
  waited_ms: z.number(),
  seen_ms: z.number(),
  muted: z.boolean(),
  counted: z.boolean(),
  /** Always true: a linked host's row is answered there, not here. */
  display_only: z.boolean(),
});

export function itemJson(i: Item): ItemJson {
  const label = `${i.session ?? '-'}/${i.harness ?? i.name ?? '-'}`;
  return { ...i, label, waited_ms: Date.now() - i.opened_at };
}

export const listAttention = defineVerb({
  name: 'list-attention',
  link: { untargeted: true },
  summary: 'The Inbox: approvals, questions, mail for you, errors and finished turns, oldest first',
  help: 'Items of linked hosts follow this machine\'s, with ids like build:17 and labels like build:api/claude; they are display-only here. A host whose link is down keeps its rows, muted and not counted (`counted` is the number that are).',
  target: 'none',
  mutates: false,
  params: z.object({
    select: z.string().max(1000).optional().describe('Keep the items a selector matches'),
    snoozed: z.boolean().optional().describe('List the snoozed items instead'),
    recap: z.boolean().optional().describe("Add to each finished item what its agent did: the recap of its pane's activity ring (as `agent-log --recap`)"),
  }),
  result: z.object({ items: z.array(z.union([itemSchema, remoteItemSchema])), snoozed: z.number().int(), counted: z.number().int() }),
  print: (r) => {
    if (r.items.length === 0) return 'nothing waits for you';
    const age = (ms: number) => (ms < 60_000 ? '<1m' : ms < 3_600_000 ? `${Math.floor(ms / 60_000)}m` : `${Math.floor(ms / 3_600_000)}h`);
    const rows = table([['ID', 'KIND', 'WHERE', 'WAIT', 'WHAT'], ...r.items.map((i) => [String(i.id), i.kind, i.label, age(i.waited_ms), i.summary])]);
    // The recaps follow the table, each fenced: the text is the agent's.
    const recaps = r.items.flatMap((i) => ('recap' in i && i.recap ? [fence(`the agent of item ${i.id} (${i.label})`, i.recap.lines.join('\n'))] : []));
    return [rows, ...recaps].join('\n\n');
  },
  run({ params, svc, caller }) {
    const sel = params.select ? parseSelector(params.select) : null;
    const may = readableSessions(svc, caller);
    const items = svc.inbox.list({ snoozed: params.snoozed }).filter((i) => (!i.session_id || may(i.session_id)) && (!sel || matches(sel, itemRow(i, svc))));
    const remote = !params.snoozed && readsEverySession(svc, caller) ? (svc.remote?.itemRows() ?? []).filter((r) => !sel || matches(sel, remoteItemSelectorRow(r, svc))) : [];
    const local = items.map((i) => {
      const json = itemJson(i);
      // Read only when asked, as the Inbox reads one for the item under its cursor: nothing on a timer.
      const w = params.recap && i.kind === 'done' && i.window_id ? svc.model.windows.get(i.window_id) : undefined;
      const recap = w ? readActivity(svc, w, { recap: true }) : null;
      return recap?.ring && recap.recap ? { ...json, recap: recap.recap } : json;
    });
    const hosts = remote.map((r) => remoteItemJson(r));
    return { items: [...local, ...hosts], snoozed: svc.inbox.snoozed.size, counted: local.length + hosts.filter((h) => h.counted).length };
  },
});

function findItem(svc: Services, id: string | number): Item {
  const n = typeof id === 'number' ? id : Number(String(id).replace(/^local:/, ''));
  const item = Number.isInteger(n) ? svc.inbox.get(n) : undefined;
  if (!item) throw new TuiosError('not_found', `There is no Inbox item ${id}.`, 'List them with: tuios list-attention');
  return item;
}

export const dismissAttention = defineVerb({
  name: 'dismiss-attention',
  access: 'person',
  summary: 'Dismiss Inbox items (the person only: the attached client\'s nonce)',
  target: 'none',
  mutates: true,
  cli: { rest: 'ids' },
  params: z.object({
    ids: z.array(z.union([z.string().max(64), z.number().int()])).min(1).max(256).describe('The items to dismiss'),
    nonce: nonceParam,
  }),
  result: z.object({
    dismissed: z.array(z.number().int()),
    // A linked host's rows hidden here (`build:17`), only when there are any.
    hidden: z.array(z.string()).optional(),
    missing: z.array(z.union([z.string(), z.number().int()])),
    undo_ms: z.number().int(),
  }),
  print: 'fields',
  run({ params, svc, caller }) {
    const done: number[] = [];
    const hidden: string[] = [];
    const missing: Array<string | number> = [];
    for (const id of params.ids) {
      // `build:17`: a linked host's row is hidden here, and nothing is marked on that host.
      const remote = typeof id === 'string' ? /^([A-Za-z0-9][A-Za-z0-9_.-]{0,62}):(\d+)$/.exec(id) : null;
      if (remote && remote[1] !== 'local') {
        if (svc.remote?.hideItem(remote[1]!, Number(remote[2]))) hidden.push(id as string);
        else missing.push(id);
        continue;
      }
      const item = (() => {
        try {
          return findItem(svc, id);
        } catch {
          return null;
        }
      })();
      if (!item) {
        missing.push(id);
        continue;
      }
      svc.inbox.dismiss(item);
      done.push(item.id);
    }
    return { dismissed: done, ...(hidden.length ? { hidden } : {}), missing, undo_ms: 10_000 };
  },
});

const DURATION = /^(\d+)(m|h)$/;

function snoozeUntil(until: string): number | 'change' {
  if (until === 'change') return 'change';
  const d = DURATION.exec(until);
  if (d) return Date.now() + Number(d[1]) * (d[2] === 'm' ? 60_000 : 3_600_000);
  if (until === 'tomorrow') {
    const t = new Date();
    t.setDate(t.getDate() + 1);
    t.setHours(9, 0, 0, 0);
    return t.getTime();
  }
  const at = Date.parse(until);
  if (Number.isFinite(at) && at > Date.now()) return at;
  throw new TuiosError('invalid_params', `Snooze until ${JSON.stringify(until)} is not a time.`, 'Use 15m, 1h, tomorrow (9:00), an ISO time, or change.', { field: 'until' });
}

export const markAttention = defineVerb({
  name: 'mark-attention',
  access: 'person',
  summary: 'Snooze, wake or undo an Inbox item, or mark a pane\'s finished turn unread (the person only)',
  target: 'none',
  mutates: true,
  cli: { positionals: ['action', 'id'] },
  params: z.object({
    action: z.enum(['snooze', 'wake', 'unread', 'undo']).describe('What to do'),
    id: z.union([z.string().max(64), z.number().int()]).optional().describe('The item (snooze, wake)'),
    window: z.string().max(300).optional().describe('The pane (unread)'),
    until: z.string().max(64).optional().describe('snooze: 15m, 1h, tomorrow, an ISO time, or change'),
    nonce: nonceParam,
  }),
  // undo: the item brought back, or null when there was nothing to undo; the others: the item.
  result: z.union([z.object({ undone: itemSchema.nullable() }), z.object({ item: itemSchema })]),
  print: 'fields',
  run({ params, svc, caller }) {
    const inbox = svc.inbox;
    switch (params.action) {
      case 'undo': {
        const back = inbox.undoLast();
        return { undone: back ? itemJson(back) : null };
      }
      case 'unread': {
        if (!params.window) throw new TuiosError('invalid_params', 'unread names a pane with -w.', undefined, { field: 'window' });
        const w = svc.model.findWindow(params.window);
        const item = inbox.markUnread(w.id);
        if (!item) throw new TuiosError('not_found', `${w.name} has no finished turn to mark unread.`);
        return { item: itemJson(item) };
      }
      case 'snooze': {
        if (params.id === undefined) throw new TuiosError('invalid_params', 'snooze names an item.', undefined, { field: 'id' });
        const item = findItem(svc, params.id);
        if (!inbox.snoozable(item)) throw new TuiosError('invalid_params', `A ${item.held ? 'held approval' : item.kind} is answered or dismissed, not snoozed: something waits on it.`, undefined, { field: 'id' });
        inbox.snooze(item, snoozeUntil(params.until ?? '15m'));
        return { item: itemJson(item) };
      }
      case 'wake': {
        if (params.id === undefined) throw new TuiosError('invalid_params', 'wake names an item.', undefined, { field: 'id' });
        const item = findItem(svc, params.id);
        inbox.wake(item, 'woken by the person');
        return { item: itemJson(item) };
      }
    }
  },
});

/** attach --mode control: the person's nonce (null for a caller inside a pane). */
const attachControlSchema = z.object({ client_id: z.number().int(), nonce: z.string().nullable(), inside_pane: z.boolean(), session: z.string().nullable() });
/** attach --mode tui (core/verbs/tui.ts attachTui): the session it draws, made when --create and there was none. */
const attachTuiSchema = z.object({ client_id: z.number().int(), session: z.string(), session_id: z.string(), inside_pane: z.boolean() });

export const attach = defineVerb({
  name: 'attach',
  access: 'none',
  summary: 'Attach a client: the person\'s nonce in the reply, then the Inbox and state pushes',
  help: 'mode control registers a client without drawing (scripts and tests standing in for the person); the terminal client is `tuios attach`. A caller inside a pane gets no nonce.',
  target: 'none',
  mutates: false,
  stream: true,
  params: z.object({
    mode: z.enum(['control', 'tui']).default('control').describe('control: no drawing; tui: the terminal client (tuios attach)'),
    session: z.string().max(300).optional().describe('The session the client shows'),
    // The tui mode's terminal (core/verbs/tui.ts).
    cols: z.number().int().min(MIN_COLS).max(MAX_COLS).optional().describe('tui: the terminal\'s columns'),
    rows: z.number().int().min(MIN_ROWS).max(MAX_ROWS).optional().describe('tui: the terminal\'s rows'),
    term: z.string().max(64).optional().describe('tui: the terminal\'s TERM'),
    ascii: z.boolean().optional().describe('tui: draw ASCII marks (--ascii-only)'),
    create: z.boolean().optional().describe('tui: make a session when there is none'),
    editor: z.string().max(EDITOR_COMMAND_MAX).optional().describe('tui: the terminal\'s $VISUAL or $EDITOR, for ctrl+g in a reply (taken from a client outside every pane only)'),
  }),
  result: z.union([attachControlSchema, attachTuiSchema]),
  print: 'fields',
  run(ctx) {
    const { svc, caller, params } = ctx;
    // attachTui (core/verbs/tui.ts) answers unknown; attachTuiSchema says what it returns.
    if (params.mode === 'tui') return attachTui(ctx) as z.input<typeof attachTuiSchema>;
    const s = params.session ? svc.model.findSession(params.session) : null;
    const c = svc.person.attach(caller, svc.placement(caller), s?.id ?? null);
    const sub = svc.bus.on('attention', (ev) => ctx.emit({ type: 'attention', op: ev.op, reason: ev.reason, item: itemJson(ev.item) }));
    ctx.signal.addEventListener('abort', () => {
      sub.dispose();
      svc.person.detach(c.id);
    });
    svc.log.info('client attached', { client: c.id, mode: params.mode, inside: c.inside });
    return { client_id: c.id, nonce: c.nonce || null, inside_pane: c.inside, session: s?.name ?? null };
  },
});

export const focusWindow = defineVerb({
  name: 'focus-window',
  access: 'person',
  summary: 'An attached client shows a pane: its finished turns count as seen (the person only)',
  help: 'What a client does when the person looks at a pane. From a client inside a pane, or without the nonce, it is refused: looking is what marks a turn seen.',
  target: 'window',
  mutates: true,
  params: z.object({ nonce: nonceParam }),
  result: z.object({ window_id: z.string(), seen: z.literal(true) }),
  print: 'fields',
  run({ params, window, svc, caller }) {
    const w = window!;
    svc.agents.markSeen(w);
    svc.bus.publish('window-seen', { window_id: w.id, session_id: w.sessionId });
    return { window_id: w.id, seen: true as const };
  },
});
