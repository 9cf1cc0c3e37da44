// list-pane-files: the names in a pane's folder, or in a folder under it, for the reply editor's
// `@` list (spec: Naming a pane, an agent or a file). Names only, never a file's content. Bounded:
// PANE_FILES_MAX_ENTRIES names an answer, PANE_FILES_SCAN_MAX read from a folder, a path at most
// PANE_FILES_MAX_DEPTH folders down, a name at most PANE_FILES_NAME_MAX_BYTES. A name is data: one
// with a control or invisible character, or too long, is left out and counted, never passed on;
// a path that climbs out (`..`, a link that points outside the pane's folder) is refused.
import { opendir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { INVISIBLE_CLASS } from '../mail/fence.js';
import { PANE_FILES_MAX_DEPTH, PANE_FILES_MAX_ENTRIES, PANE_FILES_NAME_MAX_BYTES, PANE_FILES_PATH_MAX_BYTES, PANE_FILES_SCAN_MAX } from '../limits.js';

/** A name the editor may show and insert: no control characters (C0, DEL, C1), no invisible ones, no separators. */
const UNSAFE_NAME = new RegExp(`[\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029${INVISIBLE_CLASS}/\\\\]`, 'u');
/** Folders no one names in a reply, whose insides are the tool's own. */
const NOT_LISTED = new Set(['.git']);

export interface FolderListing {
  entries: Array<{ name: string; dir: boolean }>;
  /** More entries than PANE_FILES_MAX_ENTRIES (or than PANE_FILES_SCAN_MAX were read). */
  truncated: boolean;
  /** Names left out: control or invisible characters, or longer than PANE_FILES_NAME_MAX_BYTES. */
  skipped: number;
}

/** The folders of a path under the pane's folder (`api/v2/` or `api/v2`); refused when it climbs out or is too deep. */
export function pathParts(path: string): string[] {
  const parts = path.split('/').filter((p, i, all) => !(p === '' && i === all.length - 1));
  if (path === '') return [];
  if (path.startsWith('/')) throw new TuiosError('invalid_params', 'The path is from the pane\'s folder, not from the root.', 'Give a path such as api/v2/.', { field: 'path' });
  for (const p of parts) {
    if (p === '' || p === '.' || p === '..' || UNSAFE_NAME.test(p)) throw new TuiosError('invalid_params', 'The path names a folder under the pane\'s folder, one name a step: no "..", ".", empty or unprintable names.', 'Give a path such as api/v2/.', { field: 'path' });
  }
  if (parts.length > PANE_FILES_MAX_DEPTH) throw new TuiosError('limit_reached', `The path is more than ${PANE_FILES_MAX_DEPTH} folders deep.`, 'Name a folder nearer the pane\'s folder.', { field: 'path' });
  return parts;
}

/** Lists `path` under `root`: folders and files by name, bounded, names with unsafe characters left out. */
export async function listFolder(root: string, path: string): Promise<FolderListing> {
  const parts = pathParts(path);
  let top: string;
  try {
    top = await realpath(root);
  } catch {
    throw new TuiosError('not_found', 'The pane\'s folder cannot be read.', 'The pane may have left it; its files are not offered.');
  }
  let dir: string;
  try {
    dir = await realpath(join(top, ...parts));
  } catch {
    throw new TuiosError('not_found', `There is no folder ${parts.join('/')} in the pane's folder.`, 'List its parent to see what is there.', { field: 'path' });
  }
  if (dir !== top && !dir.startsWith(top.endsWith(sep) ? top : top + sep)) throw new TuiosError('forbidden', 'That folder is a link that points out of the pane\'s folder.', 'Name files under the pane\'s folder.', { field: 'path' });
  const found: Array<{ name: string; dir: boolean }> = [];
  let skipped = 0;
  let truncated = false;
  let read = 0;
  const d = await opendir(dir).catch(() => {
    throw new TuiosError('not_found', `The folder ${parts.join('/') || '.'} cannot be read.`, 'Its permissions may keep it closed.', { field: 'path' });
  });
  try {
    for await (const e of d) {
      if (++read > PANE_FILES_SCAN_MAX) {
        truncated = true;
        break;
      }
      if (NOT_LISTED.has(e.name)) continue;
      if (UNSAFE_NAME.test(e.name) || Buffer.byteLength(e.name) > PANE_FILES_NAME_MAX_BYTES) {
        skipped++;
        continue;
      }
      let isDir = e.isDirectory();
      if (e.isSymbolicLink()) isDir = await stat(join(dir, e.name)).then((s) => s.isDirectory(), () => false);
      found.push({ name: e.name, dir: isDir });
    }
  } finally {
    // for-await closes the folder when it runs to its end or breaks; a throw mid-way closes it here.
    await d.close().catch(() => undefined);
  }
  found.sort((a, b) => (a.dir === b.dir ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.dir ? -1 : 1));
  if (found.length > PANE_FILES_MAX_ENTRIES) truncated = true;
  return { entries: found.slice(0, PANE_FILES_MAX_ENTRIES), truncated, skipped };
}

export const listPaneFiles = defineVerb({
  name: 'list-pane-files',
  summary: 'List the files and folders in a pane\'s folder, or in a folder under it (names only)',
  help: `What the reply editor's @ offers. The result has the pane's folder, the path listed, and its entries (name, and dir for a folder), folders first. At most ${PANE_FILES_MAX_ENTRIES} entries (truncated says when there were more), ${PANE_FILES_MAX_DEPTH} folders down; a name with a control or invisible character, or longer than ${PANE_FILES_NAME_MAX_BYTES} bytes, is left out and counted in skipped. A pane whose shell runs on another machine has no files here.`,
  target: 'window',
  mutates: false,
  access: 'read',
  link: { right: 'files' },
  cli: { positionals: ['path'], usage: 'list-pane-files [-w WINDOW] [PATH] [--json]' },
  params: z.object({
    path: z.string().max(PANE_FILES_PATH_MAX_BYTES).optional().describe('A folder under the pane\'s folder, such as api/v2/ (default: the folder itself)'),
  }),
  result: z.object({
    folder: z.string(),
    path: z.string(),
    entries: z.array(z.object({ name: z.string(), dir: z.boolean() })),
    truncated: z.boolean(),
    skipped: z.number().int(),
  }),
  print: (r) => r.entries.map((e) => `${e.name}${e.dir ? '/' : ''}`).join('\n'),
  async run({ window, params }) {
    const w = window!;
    if (w.host) throw new TuiosError('unsupported', `The pane's shell runs on ${w.host}; its files are there, not here.`, 'Name its files by their path yourself.');
    const path = params.path ?? '';
    const folder = w.currentCwd();
    const listing = await listFolder(folder, path);
    return { folder, path, ...listing };
  },
});
