// What an ACP agent's messages mean for the pane (spec: Headless agents over a protocol, the ACP
// column of the second table, and the permission rules). Every field is read on its own, so a
// missing or changed field costs only its key. Pure: proto/acp.ts feeds it the wire's objects.
import type { ProtoPermissionOption, ProtoPermissionRequest } from './agent.js';
import { contextValue, costValue, planValue } from './meta.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : null);
const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

/** `model`: the name of session/new's `models.currentModelId` (unstable in ACP), else its id. */
export function modelOf(newSession: unknown): string | null {
  const models = obj(obj(newSession)?.models);
  const id = str(models?.currentModelId);
  if (!id) return null;
  const list = Array.isArray(models?.availableModels) ? models.availableModels : [];
  for (const m of list) {
    const o = obj(m);
    if (o && o.modelId === id) return str(o.name) ?? id;
  }
  return id;
}

/** `opencode 1.2`: initialize's agentInfo, name and version. */
export function agentOf(init: unknown): string | null {
  const info = obj(obj(init)?.agentInfo);
  const name = str(info?.title) ?? str(info?.name);
  if (!name) return null;
  const version = str(info?.version);
  return version ? `${name} ${version}` : name;
}

/** usage_update: `context` from used of size, `cost` from cost.amount in cost.currency. */
export function usageOf(update: unknown): { context: string | null; cost: string | null } {
  const u = obj(update);
  const cost = obj(u?.cost);
  return { context: contextValue(u?.used, u?.size), cost: cost ? costValue(cost.amount, cost.currency) : null };
}

/** plan: each entry's words and whether it is complete; the `plan` key as completed of all. */
export function planOf(update: unknown): { entries: { text: string; done: boolean }[]; value: string | null } {
  const raw = obj(update)?.entries;
  const entries = (Array.isArray(raw) ? raw : []).map((e) => obj(e)).filter((e): e is Obj => !!e).map((e) => ({ text: str(e.content) ?? '', done: e.status === 'completed' }));
  return { entries, value: planValue(entries.filter((e) => e.done).length, entries.length) };
}

/** The text of a content block (agent_message_chunk), or '' for anything but text. */
export function textOf(content: unknown): string {
  const c = obj(content);
  return c && c.type === 'text' ? (str(c.text) ?? '') : '';
}

const KIND: Record<string, ProtoPermissionOption['kind']> = { allow_once: 'allow_once', allow_always: 'allow_more', reject_once: 'deny', reject_always: 'other' };

/**
 * session/request_permission as the pane shows it. One line is the whole request only for a
 * command (kind execute) whose title is exactly its command, and nothing else in its input but
 * words that change nothing (a description, a timeout); never a diff, an edit or other content.
 */
export function permissionOf(params: unknown): ProtoPermissionRequest {
  const p = obj(params);
  const call = obj(p?.toolCall);
  const title = str(call?.title) ?? str(call?.kind) ?? 'a tool call';
  const input = obj(call?.rawInput);
  const command = str(input?.command);
  const content = Array.isArray(call?.content) ? call.content : [];
  const detail: string[] = [];
  if (command && command !== title) detail.push(`$ ${command}`);
  for (const c of content.slice(0, 8)) {
    const o = obj(c);
    if (o?.type === 'diff') detail.push(`changes ${str(o.path) ?? 'a file'}`);
    else if (o?.type === 'content') {
      const t = textOf(o.content);
      if (t) detail.push(...t.split('\n').slice(0, 5));
    }
  }
  const quiet = input ? Object.keys(input).every((k) => k === 'command' || k === 'description' || k === 'timeout') : false;
  const oneLine = call?.kind === 'execute' && !!command && command === title && quiet && content.every((c) => obj(c)?.type !== 'diff');
  const options = (Array.isArray(p?.options) ? p.options : [])
    .map((o) => obj(o))
    .filter((o): o is Obj => !!o && typeof o.optionId === 'string')
    .map((o) => ({ id: o.optionId as string, label: str(o.name) ?? String(o.kind ?? o.optionId), kind: KIND[String(o.kind)] ?? 'other' }));
  return { title, oneLine, detail, options };
}

/** How a prompt's stopReason ends the turn. */
export function stopOf(reason: unknown): 'done' | 'cancelled' | { failed: string } {
  switch (reason) {
    case 'end_turn':
      return 'done';
    case 'cancelled':
      return 'cancelled';
    case 'refusal':
      return { failed: 'the agent refused' };
    case 'max_tokens':
      return { failed: 'the model reached its token limit' };
    case 'max_turn_requests':
      return { failed: 'the turn reached its request limit' };
    default:
      return { failed: `the turn stopped (${typeof reason === 'string' ? reason.slice(0, 40) : 'no reason'})` };
  }
}
