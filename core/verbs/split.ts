// split-window: a new pane beside another, in the layout of its workspace (core/model/layout.ts).
// The window is made by new-window (its checks, grants and environment rules apply), then placed:
// with an attached client and neither a folder nor variables given, beside the pane it is cut
// from; else beside the focused pane of the workspace, where a tiling client puts a new window
// (spec: pane.split). The answer comes once the layout shows the new pane there, so a swap or a
// neighbour read right after it sees the new layout.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { layoutOf, leaves, neighbour, reconcile, removeLeaf, splitLeaf, tile } from '../model/layout.js';
import { envParam, checkEnv } from './params.js';
import { windowRowSchema, type WindowRow } from './windows.js';
import { tabTiles, focusInLayout, DIRECTIONS } from './layout.js';
import { MAX_ARGV } from '../limits.js';

export const splitWindow = defineVerb({
  name: 'split-window',
  summary: 'Open a window beside a pane, cutting the pane\'s place in the layout in two',
  help: 'right and left put the new pane beside the window, down and up above or below it. With a client attached and no --cwd or --env, the new pane goes beside WINDOW; else it opens on WINDOW\'s workspace beside that workspace\'s focused pane. --focus moves the focus to it. The result is the new window, as list-windows shows it, and the pane it was cut from.',
  target: 'window',
  mutates: true,
  access: 'admin',
  cli: { rest: 'argv', command: true, short: { c: 'cwd' }, usage: 'split-window -w WINDOW [--direction right|left|down|up] [--focus] [-c DIR] [COMMAND ARGS...]' },
  params: z.object({
    direction: z.enum(DIRECTIONS).default('right').describe('Where the new pane goes: right (default), left, down or up'),
    focus: z.boolean().optional().describe('Focus the new pane'),
    cwd: z.string().min(1).max(4096).optional().describe('The folder it starts in'),
    env: envParam,
    name: z.string().min(1).max(128).optional().describe('The window name (default: the program\'s name)'),
    argv: z.array(z.string()).max(MAX_ARGV).optional().describe('The command and its arguments; none runs your shell'),
  }),
  result: z.object({ window: windowRowSchema, from: z.string(), direction: z.enum(DIRECTIONS) }),
  print: (r) => r.window.id,
  async run({ window, params, svc, caller }) {
    const from = window!;
    checkEnv(params.env);
    const s = svc.model.sessionOf(from);
    const ws = from.workspace;
    // The tree holds the workspace's panes before the new one is cut in.
    const before = tabTiles(svc, s, ws);
    const area = before.area ?? { x: 0, y: 0, w: from.cols, h: from.rows };
    // No client has tiled it: the tree is made here, as a client would make it.
    if (!before.client) reconcile(layoutOf(s, ws), before.windows.map((o) => o.id), area);
    const made = (await svc.dispatcher.call('new-window', {
      session: s.id,
      workspace: ws,
      ...(params.cwd ? { cwd: params.cwd } : {}),
      ...(params.env ? { env: params.env } : {}),
      ...(params.name ? { name: params.name } : {}),
      ...(params.argv ? { argv: params.argv } : {}),
    }, caller)) as WindowRow;
    const w = svc.model.windows.get(made.id);
    const l = layoutOf(s, ws);
    const besideFocused = !before.client || params.cwd !== undefined || params.env !== undefined;
    const focusedId = s.focused.get(ws);
    const beside = besideFocused && focusedId && focusedId !== made.id && svc.model.windows.has(focusedId) ? focusedId : from.id;
    if (!w || w.closed || !svc.model.windows.has(beside)) {
      throw new TuiosError('pane_split_failed', 'The new pane closed before it could be placed.', 'See its exit with list-windows, or try again.');
    }
    const d = params.direction;
    // A client's frame may have placed it already (its own way): the split places it again.
    l.root = splitLeaf(removeLeaf(l.root, w.id), beside, w.id, d === 'left' || d === 'right' ? 'row' : 'column', d === 'left' || d === 'up');
    l.zoomed = null;
    if (!leaves(l.root).includes(w.id) || neighbour(tile(l.root, area), beside, d) !== w.id) {
      throw new TuiosError('pane_split_failed', 'The new pane is not beside the pane it was cut from.', 'Read the layout with get-layout.');
    }
    if (params.focus) focusInLayout(svc, w);
    svc.clients.changed(s.id);
    return { window: { ...made, focused: s.focused.get(ws) === w.id }, from: beside, direction: d };
  },
});
