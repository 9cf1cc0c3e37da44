// ctrl+g in the reply editor (spec: Replying to an agent): the draft goes to a file, with each
// block's text in its place, in a folder made for it (0700, the file 0600); the person's editor
// edits it; what was saved comes back as the draft, and the folder goes. A block whose text is
// still there whole becomes the block again, under its own label; an edited one stays text.
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DRAFT_FILE_MAX_BYTES } from './limits.js';

/** `edited` with each block's text, found whole and in order, put back as its character. */
export function rejoinBlocks(edited: string, blocks: ReadonlyArray<{ ch: string; text: string }>): string {
  let out = '';
  let from = 0;
  for (const b of blocks) {
    const at = edited.indexOf(b.text, from);
    if (at < 0) continue;
    out += edited.slice(from, at) + b.ch;
    from = at + b.text.length;
  }
  return out + edited.slice(from);
}

export interface DraftFile {
  path: string;
  /** What the editor saved: the text, or why it is not taken (too large, gone). */
  read(): Promise<{ text: string } | { refused: string }>;
  /** Removes the file and its folder. */
  remove(): Promise<void>;
}

/** Writes `text` to a new private folder; `base` is where the folder is made (the system's temporary folder by default). */
export async function writeDraftFile(text: string, base = tmpdir()): Promise<DraftFile> {
  const dir = await mkdtemp(join(base, 'tuios-draft-'));
  const path = join(dir, 'reply.txt');
  await writeFile(path, text, { mode: 0o600, flag: 'wx' });
  return {
    path,
    async read() {
      const s = await stat(path).catch(() => null);
      if (!s || !s.isFile()) return { refused: 'The editor left no file; the draft stays as it was.' };
      if (s.size > DRAFT_FILE_MAX_BYTES) return { refused: 'The file is larger than a draft holds; the draft stays as it was.' };
      return { text: await readFile(path, 'utf8') };
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** The person's editor as a program and its words: $VISUAL, else $EDITOR, split on spaces (no shell runs it); null when neither is set. */
export function editorCommand(env: NodeJS.ProcessEnv): string[] | null {
  const v = (env.VISUAL || env.EDITOR || '').trim();
  return v ? v.split(/\s+/) : null;
}
