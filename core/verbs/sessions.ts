// Session verbs: new-session, list-sessions, kill-session, set-session-name.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { sessionInfo, windowInfo, sessionInfoSchema, windowInfoSchema } from './present.js';
import { table } from '../rpc/print-helpers.js';
import { MAX_ARGV, MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS } from '../limits.js';
import { envParam, checkEnv, absoluteDir } from './params.js';
import { readableSessions } from '../security/access.js';

export const newSession = defineVerb({
  name: 'new-session',
  access: 'admin',
  summary: 'Create a session with a first window running your shell (or COMMAND)',
  help: 'The result has the session and its first window. The session gets the next free number as its name when none is given.',
  target: 'none',
  mutates: true,
  cli: { positionals: ['name'], rest: 'argv', command: true, short: { c: 'cwd', x: 'cols', y: 'rows', n: 'window_name' }, callerCwd: 'cwd', usage: 'new-session [NAME] [COMMAND ARGS...]' },
  params: z.object({
    name: z.string().min(1).max(128).optional().describe('The session name'),
    argv: z.array(z.string()).max(MAX_ARGV).optional().describe('The first window\'s command; none runs your shell'),
    window_name: z.string().min(1).max(128).optional().describe('The first window\'s name'),
    cwd: z.string().min(1).max(4096).optional().describe('The folder the session starts in'),
    env: envParam,
    cols: z.number().int().min(MIN_COLS).max(MAX_COLS).optional().describe('Columns of the first window'),
    rows: z.number().int().min(MIN_ROWS).max(MAX_ROWS).optional().describe('Rows of the first window'),
    term: z.string().max(64).optional().describe('TERM of the client creating it (the CLI sends its own)'),
  }),
  result: z.object({ session: sessionInfoSchema, window: windowInfoSchema }),
  print: (r) => r.window.id,
  run({ params, svc }) {
    checkEnv(params.env);
    const cwd = params.cwd ? absoluteDir(params.cwd) : undefined;
    const s = svc.model.createSession({ name: params.name, cwd, term: params.term });
    try {
      const w = svc.model.createWindow(s, {
        name: params.window_name,
        argv: params.argv,
        cwd,
        env: params.env,
        cols: params.cols,
        rows: params.rows,
      });
      svc.model.touch(s);
      return { session: sessionInfo(s, svc), window: windowInfo(w, svc) };
    } catch (e) {
      svc.model.killSession(s);
      throw e;
    }
  },
});

export const listSessions = defineVerb({
  name: 'list-sessions',
  link: { untargeted: true },
  summary: 'List the sessions',
  target: 'none',
  mutates: false,
  cli: { aliases: ['ls'] },
  params: z.object({}),
  result: z.object({ sessions: z.array(sessionInfoSchema) }),
  print: (r) => (r.sessions.length === 0 ? 'no sessions' : table([['NAME', 'WINDOWS', 'ID'], ...r.sessions.map((s) => [s.name, String(s.windows), s.short_id])])),
  run({ svc, caller }) {
    const may = readableSessions(svc, caller);
    return { sessions: [...svc.model.sessions.values()].filter((s) => may(s.id)).map((s) => sessionInfo(s, svc)) };
  },
});

export const killSession = defineVerb({
  name: 'kill-session',
  access: 'admin',
  summary: 'Close a session and every window in it',
  target: 'session',
  mutates: true,
  cli: { positionals: ['session'] },
  params: z.object({}),
  result: z.object({ killed: sessionInfoSchema }),
  print: 'none',
  run({ session, svc }) {
    const s = session!;
    const info = sessionInfo(s, svc);
    svc.model.killSession(s);
    return { killed: info };
  },
});

export const setSessionName = defineVerb({
  name: 'set-session-name',
  access: 'admin',
  summary: 'Rename a session',
  target: 'session',
  mutates: true,
  cli: { positionals: ['name'], usage: 'set-session-name [-s SESSION] NAME' },
  params: z.object({ name: z.string().min(1).max(128).describe('The new name') }),
  result: z.object({ session: sessionInfoSchema }),
  print: 'none',
  run({ params, session, svc }) {
    svc.model.renameSession(session!, params.name);
    return { session: sessionInfo(session!, svc) };
  },
});
