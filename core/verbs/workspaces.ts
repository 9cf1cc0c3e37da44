// Workspace verbs: select-workspace, set-workspace-name, set-workspace-order, move-window. A
// session's workspaces are herdr's tabs (spec: How tuios maps onto herdr): each tab keeps its own
// number through renames, reorders and moves (core/model/tabs.ts).
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { sessionInfo, sessionInfoSchema, windowInfo } from './present.js';
import { windowRowSchema } from './windows.js';
import { table } from '../rpc/print-helpers.js';
import { TuiosError } from '../errors.js';
import { enforce } from '../security/access.js';
import { MAX_TAB_NUMBER, WORKSPACES } from '../limits.js';

const workspaceParam = z.number().int().min(1).max(WORKSPACES);

/** The tabs as list-sessions --json has them, printed: NUMBER, TAB, NAME. */
function printTabs(r: { session: z.infer<typeof sessionInfoSchema> }): string {
  return table([
    ['WORKSPACE', 'TAB', 'NAME'],
    ...r.session.tabs.map((t) => [`${t.workspace}${t.workspace === r.session.active_workspace ? '*' : ''}`, String(t.number), t.name ?? '-']),
  ]);
}

export const selectWorkspace = defineVerb({
  name: 'select-workspace',
  access: 'admin',
  summary: 'Show a workspace (1-9) of a session, as its number key does in the TUI',
  target: 'session',
  mutates: true,
  cli: { positionals: ['workspace'], usage: 'select-workspace [-s SESSION] NUMBER' },
  params: z.object({ workspace: workspaceParam.describe('The workspace to show (1-9)') }),
  result: z.object({ session: sessionInfoSchema }),
  print: 'none',
  run({ params, session, svc }) {
    svc.model.switchWorkspace(session!, params.workspace);
    return { session: sessionInfo(session!, svc) };
  },
});

export const setWorkspaceName = defineVerb({
  name: 'set-workspace-name',
  access: 'admin',
  summary: 'Name a workspace of a session (an empty name clears it)',
  help: 'A named workspace is a herdr tab even with no window in it. The name goes when its last window closes. Names are limited as window names are: 128 bytes, no control characters.',
  target: 'session',
  mutates: true,
  cli: { positionals: ['workspace', 'name'], usage: 'set-workspace-name [-s SESSION] NUMBER NAME' },
  params: z.object({
    workspace: workspaceParam.describe('The workspace (1-9)'),
    name: z.string().max(128).describe('The name; empty clears it'),
  }),
  result: z.object({ session: sessionInfoSchema }),
  print: 'none',
  run({ params, session, svc }) {
    svc.model.setWorkspaceName(session!, params.workspace, params.name === '' ? null : params.name);
    return { session: sessionInfo(session!, svc) };
  },
});

export const setWorkspaceOrder = defineVerb({
  name: 'set-workspace-order',
  access: 'admin',
  summary: 'Put the tabs of a session in a new order, given as their tab numbers',
  help: 'Name every tab once (list-sessions --json has each tab\'s number). The tabs take the workspace numbers they hold between them, in the new order, with their windows, names and layouts; each tab keeps its number, so its herdr id stays.',
  target: 'session',
  mutates: true,
  cli: { rest: 'order', comma: ['order'], usage: 'set-workspace-order [-s SESSION] TAB...' },
  params: z.object({
    order: z.array(z.coerce.number().int().min(1).max(MAX_TAB_NUMBER)).min(1).max(WORKSPACES).describe('The tab numbers in their new order'),
  }),
  result: z.object({ session: sessionInfoSchema, moves: z.array(z.object({ from: z.number().int(), to: z.number().int(), tab: z.number().int() })) }),
  print: printTabs,
  run({ params, session, svc }) {
    const moves = svc.model.reorderWorkspaces(session!, params.order);
    return { session: sessionInfo(session!, svc), moves };
  },
});

export const moveWindow = defineVerb({
  name: 'move-window',
  access: 'admin',
  summary: 'Move a window to another workspace of its session, or to another session, its program running on',
  help: 'The window keeps its id and its process. --to-session moves it to that session (its active workspace unless --workspace names one); a session left with no window closes. A window whose process runs on another machine moves only within its session.',
  target: 'window',
  mutates: true,
  cli: { positionals: ['workspace'], usage: 'move-window [-w WINDOW] [--to-session SESSION] [WORKSPACE]' },
  params: z.object({
    workspace: workspaceParam.optional().describe('The workspace it moves to (1-9); default: the target session\'s active one'),
    to_session: z.string().min(1).max(300).optional().describe('The session it moves to; default: its own'),
  }),
  result: z.object({ window: windowRowSchema, moved: z.boolean(), from_session_id: z.string(), from_workspace: z.number().int() }),
  print: (r) => (r.moved ? `${r.window.short_id} is on workspace ${r.window.workspace} of ${r.window.session}` : `${r.window.short_id} is there already`),
  run({ params, window, svc, caller }) {
    const w = window!;
    const from = svc.model.sessionOf(w);
    const to = params.to_session !== undefined ? svc.model.findSession(params.to_session) : from;
    if (to !== from) {
      // The session it goes to is reached as the one it leaves: admin there too.
      enforce(svc, caller, { verb: 'move-window', access: 'admin', target: null, sessionId: to.id });
      if (w.host) {
        throw new TuiosError('unsupported', `The window ${w.name} runs on ${w.host}; it moves only within its session.`, 'Move it to another workspace of its own session, or start a new window in the other session.');
      }
    }
    const workspace = params.workspace ?? to.activeWorkspace;
    const before = { session: from.id, workspace: w.workspace };
    svc.model.moveWindow(w, to, workspace);
    const moved = before.session !== to.id || before.workspace !== workspace;
    return { window: windowInfo(w, svc), moved, from_session_id: before.session, from_workspace: before.workspace };
  },
});
