// ctrl+g (spec: Replying to an agent): the TUI gives its client's terminal to the person's editor
// and takes it back. The editor runs in a terminal of its own the size of the client's; while it
// runs, the client's keys go to it unchanged and its output goes to the client unchanged, and no
// frame is drawn. When it exits the TUI enters its screen again and draws it whole. The draft file
// (draft-file.ts) is read back and removed, with its folder; a client that leaves meanwhile ends
// the editor and removes them too.
import * as pty from 'node-pty';
import { editorCommand, writeDraftFile, type DraftFile } from './draft-file.js';

export type EditOutcome = { text: string } | { refused: string };

export interface EditorRun {
  /** The client's keys, for the editor. */
  input(bytes: Buffer): void;
  resize(cols: number, rows: number): void;
  /** Ends the editor (the client left): nothing comes back. */
  dispose(): void;
  /** The saved text, or why there is none; settles when the editor exits. */
  readonly done: Promise<EditOutcome>;
}

export interface EditorRunOptions {
  text: string;
  cols: number;
  rows: number;
  term: string;
  env: NodeJS.ProcessEnv;
  /** Bytes for the client's terminal. */
  write(data: string): void;
}

/** Starts the person's editor on the draft; a refusal (no editor set, it would not start) when it cannot. */
export async function runEditor(o: EditorRunOptions): Promise<EditorRun | { refused: string }> {
  const cmd = editorCommand(o.env);
  if (!cmd) return { refused: 'Set $VISUAL or $EDITOR to edit the draft in your editor.' };
  const file: DraftFile = await writeDraftFile(o.text);
  let p: pty.IPty;
  try {
    const env = { ...o.env, TERM: o.term } as Record<string, string>;
    p = pty.spawn(cmd[0]!, [...cmd.slice(1), file.path], { name: o.term, cols: o.cols, rows: o.rows, cwd: o.env.HOME || process.cwd(), env });
  } catch (e) {
    await file.remove();
    return { refused: `The editor ${cmd[0]} did not start: ${(e as Error).message}` };
  }
  let ended = false;
  const done = new Promise<EditOutcome>((resolve) => {
    p.onData((d) => {
      if (!ended) o.write(d);
    });
    p.onExit(({ exitCode }) => {
      const wasEnded = ended;
      ended = true;
      void (async () => {
        try {
          if (wasEnded) return resolve({ refused: 'The client left; the draft stays as it was.' });
          if (exitCode !== 0) return resolve({ refused: `The editor exited with status ${exitCode}; the draft stays as it was.` });
          resolve(await file.read());
        } catch (e) {
          resolve({ refused: `The file could not be read back: ${(e as Error).message}` });
        } finally {
          await file.remove().catch(() => undefined);
        }
      })();
    });
  });
  return {
    input: (bytes) => {
      if (!ended) p.write(bytes);
    },
    resize: (cols, rows) => {
      if (!ended) p.resize(cols, rows);
    },
    dispose: () => {
      if (ended) return;
      ended = true;
      p.kill('SIGHUP');
    },
    done,
  };
}
