// Codex app-server approval requests as agent-proto shows them (spec: Headless agents over a
// protocol). Pure: a request's params in, a ProtoPermissionRequest and the way back out.
//
// A command approval offers what Codex offers (its `availableDecisions`, or the whole enum when a
// server sends none), each in Codex's own words. Only `accept` means exactly one call; `decline`
// (or `cancel`, when Codex offers no `decline`) is the one-call deny. It is one-line only when
// its title holds the whole command. A file change approval is never one-line: the pane shows
// the files it knows, says when it knows none (an item it has not seen), and says what
// `grantRoot` asks.
import type { ProtoPermissionOption, ProtoPermissionRequest } from './agent.js';
import { CODEX_APPROVAL_FILES_SHOWN, CODEX_TITLE_MAX_CHARS } from './codex-limits.js';
import type { Json } from './codex-wire.js';

/** A request ready for the pane, and the decision to send back for each option id. */
export interface CodexApproval {
  req: ProtoPermissionRequest;
  decisions: Map<string, Json>;
}

/** The decisions a server that sends no `availableDecisions` accepts (CommandExecutionApprovalDecision). */
const COMMAND_DECISIONS = ['accept', 'acceptForSession', 'decline', 'cancel'];
/** FileChangeApprovalDecision. */
const FILE_DECISIONS = ['accept', 'acceptForSession', 'decline', 'cancel'];

/** What a file change item said of its files, kept from item/started. */
export interface FileChangeSeen {
  changes: Array<{ path: string; kind: string; movePath: string | null }>;
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function oneLineText(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/** An option for one decision: a string (`accept`) or an object with one key (`{acceptWithExecpolicyAmendment: ...}`). */
function option(decision: Json, hasDecline: boolean): ProtoPermissionOption | null {
  if (typeof decision === 'string') {
    const kind: ProtoPermissionOption['kind'] =
      decision === 'accept' ? 'allow_once' : decision === 'acceptForSession' ? 'allow_more' : decision === 'decline' ? 'deny' : decision === 'cancel' ? (hasDecline ? 'other' : 'deny') : 'other';
    return { id: decision, label: decision, kind };
  }
  if (!decision || typeof decision !== 'object' || Array.isArray(decision)) return null;
  const key = Object.keys(decision)[0];
  if (!key) return null;
  const body = decision[key];
  if (key === 'acceptWithExecpolicyAmendment') {
    const argv = body?.execpolicy_amendment;
    const prefix = Array.isArray(argv) ? argv.filter((a: unknown) => typeof a === 'string').join(' ') : '';
    return { id: key, label: prefix ? `${key}: ${prefix}` : key, kind: 'allow_more' };
  }
  if (key === 'applyNetworkPolicyAmendment') {
    const a = body?.network_policy_amendment;
    const host = str(a?.host) ?? '';
    const action = str(a?.action) ?? '';
    return { id: key, label: `${key}: ${action} ${host}`.trim(), kind: action === 'allow' ? 'allow_more' : 'other' };
  }
  return { id: key, label: key, kind: 'other' };
}

function options(available: unknown, fallback: string[]): { opts: ProtoPermissionOption[]; decisions: Map<string, Json> } {
  const list: Json[] = Array.isArray(available) && available.length > 0 ? available : fallback;
  const hasDecline = list.some((d) => d === 'decline');
  const opts: ProtoPermissionOption[] = [];
  const decisions = new Map<string, Json>();
  for (const d of list) {
    const o = option(d, hasDecline);
    if (!o || decisions.has(o.id)) continue;
    opts.push(o);
    decisions.set(o.id, d);
  }
  return { opts, decisions };
}

/** item/commandExecution/requestApproval. */
export function commandApproval(p: Json): CodexApproval {
  const command = str(p?.command);
  const kind = str(p?.kind) ?? 'command';
  const detail: string[] = [];
  const reason = str(p?.reason);
  if (reason) detail.push(reason);
  const host = str(p?.networkApprovalContext?.host);
  if (host) detail.push(`network access to ${host}`);
  let title: string;
  let whole = false;
  if (command === null) title = kind === 'writeStdin' ? 'Write to a running command' : 'Run a command';
  else {
    const flat = oneLineText(command);
    const cut = flat.length > CODEX_TITLE_MAX_CHARS ? `${flat.slice(0, CODEX_TITLE_MAX_CHARS - 1)}…` : flat;
    title = kind === 'writeStdin' ? `Write to ${cut}` : `Run ${cut}`;
    // Input to a running command is never one-line; a command is when the title holds it as is.
    whole = kind !== 'writeStdin' && cut === command;
  }
  const { opts, decisions } = options(p?.availableDecisions, COMMAND_DECISIONS);
  return { req: { title, oneLine: whole, detail, options: opts }, decisions };
}

function changeLine(c: { path: string; kind: string; movePath: string | null }): string {
  const mark = c.kind === 'add' ? 'A' : c.kind === 'delete' ? 'D' : 'M';
  return c.movePath ? `${mark} ${c.path} -> ${c.movePath}` : `${mark} ${c.path}`;
}

/** item/fileChange/requestApproval; `seen` is the item when item/started named it. */
export function fileChangeApproval(p: Json, seen: FileChangeSeen | undefined): CodexApproval {
  const detail: string[] = [];
  let title: string;
  if (seen && seen.changes.length > 0) {
    title = seen.changes.length === 1 ? `Edit ${oneLineText(seen.changes[0]!.path)}` : `Edit ${seen.changes.length} files`;
    for (const c of seen.changes.slice(0, CODEX_APPROVAL_FILES_SHOWN)) detail.push(oneLineText(changeLine(c)));
    if (seen.changes.length > CODEX_APPROVAL_FILES_SHOWN) detail.push(`and ${seen.changes.length - CODEX_APPROVAL_FILES_SHOWN} more`);
  } else {
    title = 'Change files';
    detail.push('which files is not known: this change was not seen');
  }
  const reason = str(p?.reason);
  if (reason) detail.push(oneLineText(reason));
  const root = str(p?.grantRoot);
  if (root) detail.push(`and allow writes under ${oneLineText(root)} for the rest of the session (grantRoot)`);
  const { opts, decisions } = options(p?.availableDecisions, FILE_DECISIONS);
  return { req: { title, oneLine: false, detail, options: opts }, decisions };
}

/** The changes of a fileChange item (ThreadItem), read field by field. */
export function fileChangesOf(item: Json): FileChangeSeen {
  const changes: FileChangeSeen['changes'] = [];
  const list = Array.isArray(item?.changes) ? item.changes : [];
  for (const c of list) {
    const path = str(c?.path);
    if (!path) continue;
    changes.push({ path, kind: str(c?.kind?.type) ?? 'update', movePath: str(c?.kind?.move_path) });
  }
  return { changes };
}
