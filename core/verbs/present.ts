// How sessions and windows look on the wire. Later services add their own window fields
// (agent_state, grants, ...) through `windowFields`, so list-windows --json stays complete.
import { z } from 'zod';
import { HostedPane } from '../hosts/hosted-pane.js';
import type { Services } from '../daemon/services.js';
import type { Session } from '../model/model.js';
import type { Window } from '../model/window.js';

export type WindowFieldProvider = (w: Window, svc: Services) => Record<string, unknown>;

/** Each daemon's providers: a process that runs several daemons (the tests) keeps them apart. */
const providers = new WeakMap<Services, WindowFieldProvider[]>();

export function addWindowFields(svc: Services, p: WindowFieldProvider): void {
  const list = providers.get(svc) ?? [];
  list.push(p);
  providers.set(svc, list);
}

/** A session on the wire (list-sessions, new-session, ...). */
export const sessionInfoSchema = z.object({
  id: z.string(),
  short_id: z.string(),
  name: z.string(),
  windows: z.number().int(),
  active_workspace: z.number().int(),
  workspaces: z.array(z.number().int()),
  /** The workspaces that are herdr's tabs: each one's tab number and name (core/model/tabs.ts). */
  tabs: z.array(z.object({ workspace: z.number().int(), number: z.number().int(), name: z.string().nullable() })),
  cwd: z.string().nullable(),
  created_at: z.number(),
  last_active_at: z.number(),
});

/**
 * A window on the wire (list-windows, new-window, ...). The services add their own fields
 * (agent_state, grants, ...) through addWindowFields; they pass through as extra fields.
 */
export const windowInfoSchema = z.object({
  id: z.string(),
  short_id: z.string(),
  name: z.string(),
  session: z.string().nullable(),
  session_id: z.string(),
  workspace: z.number().int(),
  focused: z.boolean(),
  pid: z.number().int().nullable(),
  foreground: z.object({ pid: z.number().int(), comm: z.string(), argv: z.array(z.string()).nullable() }).nullable(),
  command: z.array(z.string()).nullable(),
  cwd: z.string().nullable(),
  start_cwd: z.string().nullable(),
  title: z.string(),
  cols: z.number().int(),
  rows: z.number().int(),
  running: z.boolean(),
  exit: z.object({ code: z.number().int().nullable(), signal: z.number().int().nullable(), reason: z.string().optional() }).nullable(),
  created_at: z.number(),
  host: z.string().nullable(),
  host_pid: z.number().int().nullable().optional(),
  disconnected: z.boolean().optional(),
});

export function sessionInfo(s: Session, svc: Services): z.infer<typeof sessionInfoSchema> {
  const windows = svc.model.windowsOf(s);
  return {
    id: s.id,
    short_id: s.id.slice(0, 12),
    name: s.name,
    windows: windows.length,
    active_workspace: s.activeWorkspace,
    workspaces: [...new Set(windows.map((w) => w.workspace))].sort((a, b) => a - b),
    tabs: s.tabs.list(),
    cwd: s.cwd,
    created_at: s.createdAt,
    last_active_at: s.lastActiveAt,
  };
}

export function windowInfo(w: Window, svc: Services): z.infer<typeof windowInfoSchema> & Record<string, unknown> {
  const s = svc.model.sessions.get(w.sessionId);
  const fg = w.foreground();
  const base: Record<string, unknown> = {
    id: w.id,
    short_id: w.shortId,
    name: w.name,
    session: s?.name ?? null,
    session_id: w.sessionId,
    workspace: w.workspace,
    focused: s ? s.focused.get(w.workspace) === w.id : false,
    pid: w.pid,
    foreground: fg ? { pid: fg.pid, comm: fg.comm, argv: fg.argv } : null,
    command: w.argv,
    cwd: w.currentCwd(),
    start_cwd: w.startCwd,
    title: w.title,
    cols: w.cols,
    rows: w.rows,
    running: w.running,
    exit: w.exit ? { code: w.exit.code, signal: w.exit.signal, ...(w.exit.reason ? { reason: w.exit.reason } : {}) } : null,
    created_at: w.createdAt,
    // The linked host the process runs on (new-window --host); null: this machine.
    host: w.host,
  };
  if (w.process instanceof HostedPane) {
    base.host_pid = w.process.hostPid;
    // The link is down and the host keeps the process for a re-attach.
    base.disconnected = w.process.disconnected;
  }
  for (const p of providers.get(svc) ?? []) Object.assign(base, p(w, svc));
  return base as z.infer<typeof windowInfoSchema> & Record<string, unknown>;
}
