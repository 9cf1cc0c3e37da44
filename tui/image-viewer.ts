// Opening a reply's image in the desktop's image viewer (spec: Replying to an agent, Images, `o`
// on an image open with ctrl+o): from a private copy, in a folder of its own (0700, the file 0600),
// which is removed when the view closes. The viewer is the desktop's opener (xdg-open, open,
// start), run without a shell and left to itself.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EditorImage } from './editor-images.js';

/** The opener for this platform: a program and the arguments before the file. */
export function opener(platform = process.platform): [string, string[]] {
  if (platform === 'darwin') return ['open', []];
  if (platform === 'win32') return ['cmd', ['/c', 'start', '""']];
  return ['xdg-open', []];
}

/** Copies open now, in every client: a client that goes with one open leaves it to the daemon's exit. */
const open = new Set<string>();
let hooked = false;

function removeAll(): void {
  for (const dir of open) rmSync(dir, { recursive: true, force: true });
  open.clear();
}

export class ImageViewer {
  private dir: string | null = null;

  /** Writes the private copy and asks the desktop to show it; answers why not, or null. */
  open(img: EditorImage, n: number): string | null {
    this.close();
    try {
      this.dir = mkdtempSync(join(tmpdir(), 'tuios-image-'));
      open.add(this.dir);
      if (!hooked) {
        hooked = true;
        process.once('exit', removeAll);
      }
      const file = join(this.dir, `image-${n}.${img.info.format === 'jpeg' ? 'jpg' : img.info.format}`);
      writeFileSync(file, img.data, { mode: 0o600, flag: 'wx' });
      const [cmd, args] = opener();
      const child = spawn(cmd, [...args, file], { stdio: 'ignore', detached: true });
      child.on('error', () => undefined); // no opener on this machine: the dock said what was tried
      child.unref();
      return null;
    } catch (e) {
      this.close();
      return `The image could not be opened: ${String(e)}`;
    }
  }

  /** Removes the private copy (the view closed). */
  close(): void {
    if (this.dir) {
      rmSync(this.dir, { recursive: true, force: true });
      open.delete(this.dir);
    }
    this.dir = null;
  }

  get copy(): string | null {
    return this.dir;
  }
}
