// Window verbs: new-window, list-windows, close-window, set-window, resize-window, select-window.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { windowInfo, windowInfoSchema } from './present.js';
import { table, str } from '../rpc/print-helpers.js';
import { STATES } from '../agent-state/state.js';
import { MAX_ARGV, MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS } from '../limits.js';
import { envParam, checkEnv, absoluteDir } from './params.js';
import { TuiosError } from '../errors.js';
import { readableSessions, paneOf } from '../security/access.js';
import { checkGrantChange, grantsOf, parseGrants, GRANTS } from '../security/grants.js';
import { enforce } from '../security/access.js';
import { HOST_NAME_RE } from '../config/schema.js';
import { HostedPane } from '../hosts/hosted-pane.js';
import { focusInLayout } from './layout.js';

/**
 * A window as list-windows shows it: the wire shape plus the fields the daemon's services add
 * (core/daemon/main.ts: the pane's agent_state, and grants when the pane has its own).
 */
export const windowRowSchema = windowInfoSchema.extend({
  agent_state: z.object({ state: z.enum(STATES) }).optional(),
  grants: z.array(z.string()).optional(),
});

export type WindowRow = z.infer<typeof windowRowSchema>;

/** list-windows' STATE column: how it ended, disconnected, the agent's state, else running. */
function windowState(w: WindowRow): string {
  const exit = w.exit;
  const agent = w.agent_state;
  const ended = exit?.reason ? exit.reason.split(':')[0]! : exit?.signal ? `exited (signal ${exit.signal})` : `exited ${exit?.code}`;
  return exit ? ended : w.disconnected ? 'disconnected' : agent?.state && agent.state !== 'none' ? agent.state : 'running';
}

export const newWindow = defineVerb({
  name: 'new-window',
  summary: 'Open a window running COMMAND, or your shell when none is given',
  help: 'The window opens in the session (-s, else the caller\'s session, else the most recent; an empty daemon gets a first session). The result is the window as list-windows shows it. With --host the process runs on that linked host (its shell, in its home folder, unless a command and --cwd there are given) while the window lives here.',
  target: 'session-or-new',
  mutates: true,
  cli: { positionals: ['name'], rest: 'argv', command: true, short: { c: 'cwd', x: 'cols', y: 'rows' }, usage: 'new-window [-s SESSION] [--host HOST] [NAME] [COMMAND ARGS...]' },
  params: z.object({
    name: z.string().min(1).max(128).optional().describe('The window name (default: the program\'s name)'),
    argv: z.array(z.string()).max(MAX_ARGV).optional().describe('The command and its arguments; none runs your shell'),
    cwd: z.string().min(1).max(4096).optional().describe('The folder it starts in'),
    env: envParam,
    cols: z.number().int().min(MIN_COLS).max(MAX_COLS).optional().describe('Columns'),
    rows: z.number().int().min(MIN_ROWS).max(MAX_ROWS).optional().describe('Rows'),
    workspace: z.number().int().min(1).max(9).optional().describe('The workspace (1-9) it opens in'),
    term: z.string().max(64).optional().describe('TERM of the client (used when the call makes a session)'),
    grants: z.array(z.string().max(32)).max(16).optional().describe('What the new pane may do through tuios (read,write,fan,respond,files,task,admin)'),
    host: z.string().regex(HOST_NAME_RE).optional().describe('A linked host to run the process on; the window lives here'),
  }),
  result: windowRowSchema,
  print: (r) => r.id,
  async run({ params, session, svc, caller }) {
    checkEnv(params.env);
    if (params.host !== undefined) {
      if (caller.channel === 'link') throw new TuiosError('forbidden', 'A call from a linked host does not start a process on another machine.');
      if (!svc.remote?.has(params.host)) throw new TuiosError('host_not_found', `There is no linked host "${params.host}".`, 'List them with: tuios hosts ls');
      // Another machine is in a pane's reach only with admin, as for any call that goes there.
      enforce(svc, caller, { verb: 'new-window --host', access: 'admin', target: null });
    }
    // A pane never starts a pane that holds more than it does: no --grants gives it the caller's own.
    const { window: pane, inside } = paneOf(svc, caller);
    let grants: string[] | undefined;
    if (params.grants) {
      const bad = params.grants.filter((g) => g !== 'none' && !(GRANTS as readonly string[]).includes(g));
      if (bad.length) throw new TuiosError('invalid_params', `Unknown grant ${bad.join(', ')}.`, `Grants: ${GRANTS.join(', ')}, or none.`, { field: 'grants' });
      grants = parseGrants(params.grants);
      if (inside && pane) checkGrantChange(pane, pane, grants as never, svc.permissions.current);
    } else if (inside && pane && grantsOf(pane, svc.permissions.current).from === 'explicit') {
      grants = pane.attrs.get('grants') as string[];
    }
    // A folder on the host is checked there.
    const cwd = params.cwd ? (params.host ? hostFolder(params.cwd) : absoluteDir(params.cwd)) : undefined;
    const s = session ?? svc.model.createSession({ cwd: params.host ? undefined : cwd, term: params.term });
    const w = svc.model.createWindow(s, {
      name: params.name,
      argv: params.argv,
      cwd,
      env: params.env,
      cols: params.cols,
      rows: params.rows,
      workspace: params.workspace,
      grants,
      host: params.host,
    });
    svc.model.touch(s);
    if (w.process instanceof HostedPane) {
      try {
        await w.process.ready;
      } catch (e) {
        svc.model.closeWindow(w);
        throw e;
      }
    }
    return windowInfo(w, svc);
  },
});

function hostFolder(dir: string): string {
  if (!dir.startsWith('/')) throw new TuiosError('invalid_params', `The folder ${dir} is not an absolute path.`, 'With --host, name a folder on that host from its root.', { field: 'cwd' });
  return dir;
}

export const listWindows = defineVerb({
  name: 'list-windows',
  mcp: { tool: 'tuios_list_panes' },
  link: { untargeted: true },
  summary: 'List the windows of every session, or of one with -s',
  help: 'With --json every field of every window: id, name, session, workspace, pid, foreground process, cwd, title, size, exit status.',
  target: 'none',
  mutates: false,
  params: z.object({
    session: z.string().min(1).max(300).optional().describe('Only this session'),
  }),
  result: z.object({ windows: z.array(windowRowSchema) }),
  print: (r) => {
    if (r.windows.length === 0) return 'no windows';
    return table([
      ['SESSION', 'NAME', 'ID', 'PID', 'COMMAND', 'SIZE', 'STATE', 'CWD'],
      ...r.windows.map((w) => {
        // A process on a linked host: its pid there, as HOST:PID.
        const pid = w.host ? `${str(w.host)}:${w.host_pid ?? '-'}` : str(w.pid);
        return [str(w.session), str(w.name), str(w.short_id), pid, str(w.foreground?.comm), `${w.cols}x${w.rows}`, windowState(w), str(w.cwd)];
      }),
    ]);
  },
  run({ params, svc, caller }) {
    const only = params.session ? svc.model.findSession(params.session) : null;
    const may = readableSessions(svc, caller);
    const windows = [...svc.model.windows.values()]
      .filter((w) => (!only || w.sessionId === only.id) && may(w.sessionId))
      .sort((a, b) => a.order - b.order)
      .map((w) => windowInfo(w, svc));
    return { windows };
  },
});

export const closeWindow = defineVerb({
  name: 'close-window',
  summary: 'Close a window, ending its program (the last window takes its session)',
  target: 'window',
  mutates: true,
  cli: { aliases: ['kill-window'] },
  params: z.object({}),
  result: z.object({ closed: z.object({ id: z.string(), name: z.string(), session_id: z.string() }) }),
  print: 'none',
  run({ window, svc }) {
    const w = window!;
    const info = { id: w.id, name: w.name, session_id: w.sessionId };
    svc.model.closeWindow(w);
    return { closed: info };
  },
});

export const setWindow = defineVerb({
  name: 'set-window',
  summary: 'Rename a window',
  target: 'window',
  mutates: true,
  cli: { positionals: ['name'], aliases: ['rename-window'], usage: 'set-window [-w WINDOW] NAME' },
  params: z.object({ name: z.string().min(1).max(128).describe('The new name') }),
  result: windowRowSchema,
  print: 'none',
  run({ params, window, svc }) {
    svc.model.renameWindow(window!, params.name);
    return windowInfo(window!, svc);
  },
});

export const resizeWindow = defineVerb({
  name: 'resize-window',
  summary: 'Set a window\'s size in columns and rows',
  target: 'window',
  mutates: true,
  cli: { short: { x: 'cols', y: 'rows' } },
  params: z.object({
    cols: z.number().int().min(MIN_COLS).max(MAX_COLS).optional().describe('Columns'),
    rows: z.number().int().min(MIN_ROWS).max(MAX_ROWS).optional().describe('Rows'),
  }),
  result: z.object({ id: z.string(), cols: z.number().int(), rows: z.number().int() }),
  print: 'none',
  run({ params, window, svc }) {
    const w = window!;
    if (params.cols === undefined && params.rows === undefined) {
      throw new TuiosError('invalid_params', 'Give --cols, --rows or both.', undefined, { field: 'cols' });
    }
    svc.model.resizeWindow(w, params.cols ?? w.cols, params.rows ?? w.rows);
    return { id: w.id, cols: w.cols, rows: w.rows };
  },
});

export const selectWindow = defineVerb({
  name: 'select-window',
  summary: 'Focus a window in its session (and switch to its workspace)',
  target: 'window',
  mutates: true,
  params: z.object({}),
  result: windowRowSchema,
  print: 'none',
  run({ window, svc }) {
    const w = window!;
    // As the TUI focuses: a zoom on another pane of the workspace ends.
    if (focusInLayout(svc, w)) svc.clients.changed(w.sessionId);
    return windowInfo(w, svc);
  },
});
