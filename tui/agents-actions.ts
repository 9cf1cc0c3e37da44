// What the agents view's keys do (spec: The agents view, Many agents at once): answer a prompt
// from its card or a held approval, reply, dismiss, snooze, hide a linked host's row here, undo,
// go to a pane, save what tuios saw. Acts go through verbs as the person; a refusal is said in the
// dock line, with the daemon's reason. The view decides which act a key is; these do it.
import type { TuiHost } from './overlay.js';
import type { Item } from '../core/inbox/inbox.js';
import type { RemoteItemRow } from '../core/hosts/remote.js';
import type { AgentRow } from './rows.js';
import type { Editor, EditorMessage } from './editor.js';
import type { AgentsModel, ViewRow } from './agents-model.js';
import { ANSWER_LABEL, type Answer, type Card, type CardContent, type PeekedPrompt } from './card.js';
import { heldItem, type HeldCard } from './held-card.js';
import { stateMark } from './marks.js';
import { age } from './text.js';
import { MAX_BULK_REPLY, UNDO_WINDOW_MS } from './limits.js';
import { giveBack } from './drafts.js';

/** What the acts work with: the view's host, model and cards. */
export interface AgentsActs {
  readonly host: TuiHost;
  readonly model: AgentsModel;
  readonly card: Card;
  readonly held: HeldCard;
  /** Draw again in `ms` (a card that settles). */
  wake(ms: number): void;
  /** An answer from the card went through: the view goes back to its list. */
  answered(): void;
}

export type PromptOf = { row: AgentRow; prompt: PeekedPrompt };

function failed(a: AgentsActs, text: string): void {
  a.host.dock.say(text, stateMark('errored', false, a.host.glyphs));
}

/** A row of a host whose link is down: what it said last, so nothing acts on it (spec). Says so. */
export function unreachable(a: AgentsActs, r: { host?: string; down?: boolean; seenAt?: number }): boolean {
  if (!r.down) return false;
  const seen = r.seenAt ? `, last heard ${age(Math.max(0, Date.now() - r.seenAt))} ago` : '';
  failed(a, `${r.host} cannot be reached: its link is down${seen}. The row is what it said last.`);
  return true;
}

/** A key that would change a linked host's Inbox: that Inbox is the host's, shown here and changed only there. */
export function displayOnly(a: AgentsActs, host: string, what: 'dismissed' | 'snoozed' | 'answered', item?: RemoteItemRow): void {
  if (item && unreachable(a, { host, down: item.down, seenAt: item.seen_at })) return;
  const how = item ? `deal with it on ${host}` : `answer it (space) or deal with it on ${host}`;
  a.host.dock.say(`Not ${what}: ${host}'s Inbox items are display-only here; ${how}.`);
}

export function goTo(a: AgentsActs, r: ViewRow, zoom: boolean): void {
  if (r.type === 'host-item') return displayOnly(a, r.item.host, 'answered', r.item);
  if (r.type === 'agent' && r.agent.host) {
    if (unreachable(a, r.agent)) return;
    a.host.openRemotePane(r.agent);
    return;
  }
  const w = r.type === 'agent' ? r.agent.w : r.item.window_id ? a.host.svc.model.windows.get(r.item.window_id) : undefined;
  if (!w) {
    a.host.dock.say(r.type === 'item' && r.item.kind === 'mail' ? 'This mail came from no pane; enter opens its thread.' : 'This row has no pane to go to.');
    return;
  }
  a.host.closeOverlay();
  a.host.goToWindow(w, { zoom });
  if (zoom) a.host.dock.say('Press ctrl+b i to go back to the agents.');
}

/** enter: mail opens its thread; else to the pane, which ends a hold (the harness asks there). */
export function enter(a: AgentsActs, r: ViewRow | null): void {
  if (!r) return;
  const thread = a.model.mailThread(r);
  if (thread !== null) return a.host.openMailbox({ thread, fromAgents: true });
  const h = heldItem(a.model.itemsOf(r));
  if (h?.window_id) void a.host.acts.call('release-approval', { window: h.window_id }, true);
  goTo(a, r, false);
}

async function person(a: AgentsActs, verb: string, params: Record<string, unknown>, ok: string): Promise<boolean> {
  const r = await a.host.acts.call(verb, params, true);
  if (r.ok) a.host.dock.say(ok);
  else failed(a, `${verb}: ${r.message}`);
  a.host.redraw();
  return r.ok;
}

export async function wake(a: AgentsActs, item: Item): Promise<void> {
  await person(a, 'mark-attention', { action: 'wake', id: item.id }, 'Woken.');
}

export async function dismiss(a: AgentsActs, rows: ViewRow[]): Promise<void> {
  const ids = rows.flatMap((r) => a.model.itemsOf(r).map((i) => i.id));
  if (ids.length === 0) return a.host.dock.say('Nothing here waits in the Inbox to dismiss.');
  const r = await a.host.acts.call<{ dismissed: number[]; missing: unknown[] }>('dismiss-attention', { ids }, true);
  // One that another client or the daemon closed first is gone either way: said nothing of.
  if (r.ok) a.host.dock.say(`Dismissed ${r.value.dismissed.length === 1 ? 'it' : r.value.dismissed.length}. u undoes it for ${UNDO_WINDOW_MS / 1000} s.`);
  else failed(a, `Not dismissed: ${r.message}`);
  a.host.redraw();
}

export async function snooze(a: AgentsActs, rows: ViewRow[], until: string): Promise<void> {
  const items = rows.flatMap((r) => a.model.itemsOf(r)).filter((i) => i.kind !== 'ask' && i.kind !== 'plan' && !i.held);
  if (items.length === 0) return a.host.dock.say('Nothing here can be snoozed (a held approval or a question is answered or dismissed).');
  let ok = 0;
  let why = '';
  for (const i of items) {
    const r = await a.host.acts.call('mark-attention', { action: 'snooze', id: i.id, until }, true);
    if (r.ok) ok++;
    else why = r.message;
  }
  a.host.dock.say(ok ? `Snoozed ${ok === 1 ? 'it' : ok}${why ? `; not all: ${why}` : ''}. u undoes it.` : `Not snoozed: ${why}`);
  a.host.redraw();
}

/** d on a linked host's row: hidden here, nothing changes there (see AgentsModel.hideHere). */
export function hideHere(a: AgentsActs, r: ViewRow, host: string, signature: string): void {
  a.model.hideHere(r.key, signature, Date.now());
  a.host.dock.say(`Hidden here; nothing changes on ${host}, and it comes back when it changes. u undoes it for ${UNDO_WINDOW_MS / 1000} s.`);
  a.host.redraw();
}

export async function undo(a: AgentsActs): Promise<void> {
  if (a.model.unhide(Date.now())) {
    a.host.dock.say('Undone.');
    a.host.redraw();
    return;
  }
  const r = await a.host.acts.call<{ undone: unknown }>('mark-attention', { action: 'undo' }, true);
  if (!r.ok) a.host.dock.say(`Not undone: ${r.message}`);
  else a.host.dock.say(r.value.undone ? 'Undone.' : `Nothing to undo from the last ${UNDO_WINDOW_MS / 1000} s.`);
  a.host.redraw();
}

/** The reply history's key for an agent (spec: kept under the agent's harness and folder). */
export function historyKey(agent: AgentRow): [string | null, string | null] {
  return [agent.harness, agent.w ? agent.w.currentCwd() : (agent.remote?.cwd ?? null)];
}

export async function reply(a: AgentsActs, r: ViewRow, msg: EditorMessage, ed: Editor): Promise<void> {
  if (r.type !== 'agent') return;
  // A linked host's agent: queued there, through the link, under that host's policy for this one.
  const res = await a.host.acts.call<{ id: string; position: number }>('queue-prompt', { window: r.agent.target, ...msg }, true);
  // The draft was taken out of the drafts as it went (tui/drafts.ts): sent, it is dropped; refused, it comes back.
  if (res.ok) {
    const [harness, folder] = historyKey(r.agent);
    a.host.svc.replyHistory.add(harness, folder, ed.parts());
    const when = r.agent.state === 'working' || r.agent.state === 'needs_input' ? 'typed when it rests' : 'typed now';
    a.host.dock.say(`Queued for ${r.agent.name} (${res.value.id}${r.agent.host ? ` on ${r.agent.host}` : ''}), ${when}.`);
  } else {
    giveBack(a.model.mem.drafts, r.key, ed);
    failed(a, `Not queued: ${res.message} The draft is kept: r opens it.`);
  }
  a.host.redraw();
}

export async function bulkReply(a: AgentsActs, rows: ViewRow[], msg: EditorMessage, ed: Editor): Promise<void> {
  const agents = rows.filter((r): r is Extract<ViewRow, { type: 'agent' }> => r.type === 'agent' && !r.agent.down);
  const waiting = agents.filter((r) => r.agent.state === 'needs_input');
  const targets = agents.filter((r) => r.agent.state !== 'needs_input').slice(0, MAX_BULK_REPLY);
  let ok = 0;
  const refused: string[] = [];
  for (const r of targets) {
    const res = await a.host.acts.call('queue-prompt', { window: r.agent.target, ...msg }, true);
    if (res.ok) ok++;
    else refused.push(r.agent.name);
  }
  // Refused for every agent: the draft comes back, at the top of one started meanwhile.
  if (!ok) {
    const now = a.model.mem.bulkDraft;
    if (!now || now === ed || now.empty) a.model.mem.bulkDraft = ed;
    else now.putOnTop(ed.parts());
  }
  const left = [waiting.length ? `${waiting.map((r) => r.agent.name).join(', ')} wait${waiting.length === 1 ? 's' : ''} on a prompt` : '', refused.length ? `refused for ${refused.join(', ')}` : ''].filter(Boolean).join('; ');
  a.host.dock.say(`Queued for ${ok} agent${ok === 1 ? '' : 's'}${left ? `; left out: ${left}` : ''}.`);
  a.host.redraw();
}

export function contentOf(a: AgentsActs, r: ViewRow | null): CardContent | null {
  if (!r) return null;
  if (r.type === 'host-item') return null;
  return r.type === 'agent' ? a.card.contentFor(r.agent, null) : a.card.contentFor(null, r.item);
}

/** An answer from the card: after the 0.4 s rule, the offered check, and a risky allow's second press. */
export async function answerFromCard(a: AgentsActs, r: ViewRow, action: Answer, choice: number | undefined, keyName: string, now: number, text?: string): Promise<void> {
  if (r.type === 'host-item') return displayOnly(a, r.item.host, 'answered', r.item);
  if (r.type === 'agent' && unreachable(a, r.agent)) return;
  const c = contentOf(a, r);
  const say = (s: string) => a.host.dock.say(s);
  if (c?.kind === 'ask') {
    if (action !== 'choose' || choice === undefined) return say('Pick one of the numbered answers.');
    if (!a.card.settled(now)) return say('The question just changed on screen; read it, then press the key again.');
    if (choice > c.options.length) return say(`There is no answer ${choice}.`);
    await person(a, 'answer-ask', { id: Number(c.item.ref.ask_id), answer: choice }, `Answered "${c.options[choice - 1]}".`);
    return;
  }
  if (!c || c.kind !== 'prompt') return say(c?.kind === 'unreadable' ? c.why : c?.kind === 'loading' ? 'The prompt is still being read.' : 'Nothing on this row waits for an answer.');
  const p = c.prompt;
  if (!a.card.settled(now)) return say('The prompt just changed on screen; read it, then press the key again.');
  if (!p.offered.includes(action)) return say(`${ANSWER_LABEL[action]} is not offered by this prompt (offered: ${p.offered.join(', ') || 'none'}).`);
  if (action === 'choose' && choice !== undefined && !p.options.some((o) => o.n === choice)) return say(`The prompt has no option ${choice}.`);
  const allows = action === 'approve' || action === 'approve_always' || action === 'choose';
  if (allows && p.risk?.risky && !a.card.secondPress(keyName, p.prompt_id, now)) {
    a.host.dock.say(`Risky: ${p.risk.detail.join('; ') || p.risk.ack.join(', ')}. Press ${keyName} again within 3 s to allow.`, stateMark('needs_input', false, a.host.glyphs));
    return;
  }
  const res = await a.host.acts.call<{ state: string }>(
    'respond',
    { window: c.row.target, action, ...(choice !== undefined ? { choice: String(choice) } : {}), ...(text !== undefined ? { choice: text } : {}), prompt_id: p.prompt_id, ...(allows && p.risk?.risky ? { risk_ack: p.risk.ack } : {}), timeout: 3000 },
    true,
  );
  const who = c.row.harness ?? c.row.name;
  const pressed = action === 'choose' ? `"${choice}"` : action === 'text' ? 'the answer' : `"${ANSWER_LABEL[action]}"`;
  if (res.ok) {
    a.answered();
    a.card.forget();
    a.host.dock.say(`Sent ${pressed} to ${who}; it is ${res.value.state === 'needs_input' ? 'still waiting' : res.value.state} now.`, stateMark(res.value.state, false, a.host.glyphs));
  } else {
    failed(a, `Not answered: ${res.message}`);
    if (res.code === 'prompt_changed') a.card.refresh(c.row);
  }
  a.host.redraw();
}

/** 1, 2 or 3 on a held approval or plan: only the attached client, only what was read. */
export async function answerHeld(a: AgentsActs, item: Item, key: '1' | '2' | '3', now: number, reason?: string): Promise<void> {
  const why = a.held.refusal(item, key, now);
  if (why) {
    a.host.dock.say(why);
    if (/moment|just arrived/.test(why)) a.wake(a.held.msUntilSettled(now) + 5);
    return;
  }
  const params: Record<string, unknown> = { request_id: item.ref.request_id, answer: key, line: item.ref.line };
  if (item.ref.plan_sha) params.plan_sha = item.ref.plan_sha;
  // An empty reason sends none: the hook gives the model the default.
  if (key === '3' && reason) params.reason = reason;
  const res = await a.host.acts.call('reply-approval', params, true);
  const word = key === '1' ? 'Allowed once' : key === '2' ? 'Allowed always' : reason ? 'Denied with your reason' : 'Denied';
  if (res.ok) a.host.dock.say(`${word}: ${item.name ?? item.harness ?? 'the agent'} goes on.`);
  else failed(a, `Not answered: ${res.message}`);
  a.host.redraw();
}

/** The prompts of the rows that wait on one (the marked rows, for 1 and 3). */
export async function peekAll(a: AgentsActs, rows: ViewRow[]): Promise<PromptOf[]> {
  const out: PromptOf[] = [];
  for (const r of rows) {
    if (r.type !== 'agent' || r.agent.state !== 'needs_input' || r.agent.down) continue;
    const p = await a.host.acts.call<PeekedPrompt>('peek-prompt', { window: r.agent.target });
    if (p.ok) out.push({ row: r.agent, prompt: p.value });
  }
  return out;
}

export async function bulkDeny(a: AgentsActs, rows: ViewRow[]): Promise<void> {
  const prompts = (await peekAll(a, rows)).filter((x) => x.prompt.offered.includes('deny'));
  let ok = 0;
  for (const { row, prompt } of prompts) {
    const r = await a.host.acts.call('respond', { window: row.target, action: 'deny', prompt_id: prompt.prompt_id, timeout: 0 }, true);
    if (r.ok) ok++;
  }
  a.host.dock.say(`Rejected ${ok} approval${ok === 1 ? '' : 's'}${prompts.length > ok ? `; ${prompts.length - ok} changed first` : ''}.`);
  a.host.redraw();
}

export async function allowMany(a: AgentsActs, list: PromptOf[]): Promise<void> {
  let ok = 0;
  for (const { row, prompt } of list) {
    // An approval that changed after the list showed it is not allowed (prompt_id).
    const r = await a.host.acts.call('respond', { window: row.target, action: 'approve', prompt_id: prompt.prompt_id, timeout: 0 }, true);
    if (r.ok) ok++;
  }
  a.host.dock.say(`Allowed ${ok} of ${list.length}.`);
  a.host.redraw();
}

/** capture-state on the agent's pane: the capture's path in the dock line. */
export async function captureState(a: AgentsActs, row: AgentRow, want: string): Promise<void> {
  const res = await a.host.acts.call<{ path: string; verdict: { state: string } }>('capture-state', { window: row.target, want });
  const where = row.host ? ` on ${row.host}` : '';
  if (res.ok) a.host.dock.say(`Saved${where}: ${res.value.path} (tuios said ${res.value.verdict.state}; you said ${want}).`, null, 20_000);
  else failed(a, `Not saved: ${res.message}`);
}
