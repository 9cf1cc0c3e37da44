// The clipboard of the machine the client runs on (spec: Replying to an agent, ctrl+v): read with
// the desktop's own tool, wl-paste on Wayland, xclip on X11, osascript on macOS and PowerShell on
// Windows, each as a program with fixed arguments (no shell), bounded in time and in bytes. Only a
// client on the person's machine (`tuios attach`) reads it; over ssh it is the server's.
import { execFile } from 'node:child_process';
import { readFile, rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IMAGE_MAX_BYTES } from '../core/limits.js';
import { CLIPBOARD_READ_MS } from './limits.js';

/** A tool's output; null when it failed, printed nothing, or passed the image limit. */
function run(cmd: string, args: string[]): Promise<Buffer | null> {
  return new Promise((resolve) => {
    execFile(cmd, args, { encoding: 'buffer', timeout: CLIPBOARD_READ_MS, maxBuffer: IMAGE_MAX_BYTES + 1 }, (err, out) => {
      resolve(err || !out || out.length === 0 || out.length > IMAGE_MAX_BYTES ? null : out);
    });
  });
}

/** The clipboard's text; null when it holds none, or it cannot be read here. */
export async function readClipboardText(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const tries: Array<[string, string[]]> =
    process.platform === 'darwin'
      ? [['pbpaste', []]]
      : process.platform === 'win32'
        ? [['powershell', ['-NoProfile', '-Command', 'Get-Clipboard -Raw']]]
        : [...(env.WAYLAND_DISPLAY ? [['wl-paste', ['--no-newline', '--type', 'text/plain']] as [string, string[]]] : []), ...(env.DISPLAY ? [['xclip', ['-selection', 'clipboard', '-o', '-t', 'UTF8_STRING']] as [string, string[]]] : [])];
  for (const [cmd, args] of tries) {
    const out = await run(cmd, args);
    if (out) return out.toString('utf8');
  }
  return null;
}

/** The clipboard's image as PNG (or as the desktop holds it); null when it holds none. */
export async function readClipboardImage(env: NodeJS.ProcessEnv = process.env): Promise<Buffer | null> {
  if (process.platform === 'darwin' || process.platform === 'win32') return viaFile();
  if (env.WAYLAND_DISPLAY) {
    const types = await run('wl-paste', ['--list-types']);
    const type = types ? imageType(types.toString('utf8').split('\n')) : null;
    if (type) {
      const out = await run('wl-paste', ['--no-newline', '--type', type]);
      if (out) return out;
    }
  }
  if (env.DISPLAY) {
    const targets = await run('xclip', ['-selection', 'clipboard', '-t', 'TARGETS', '-o']);
    const type = targets ? imageType(targets.toString('utf8').split('\n')) : null;
    if (type) return run('xclip', ['-selection', 'clipboard', '-t', type, '-o']);
  }
  return null;
}

/** The image type to ask for among those offered: PNG first. */
export function imageType(offered: string[]): string | null {
  const t = offered.map((s) => s.trim()).filter((s) => /^image\/(png|jpeg|gif|webp)$/.test(s));
  return t.find((s) => s === 'image/png') ?? t[0] ?? null;
}

/** macOS and Windows write the clipboard's image to a file of ours, which is read and removed. */
async function viaFile(): Promise<Buffer | null> {
  const dir = await mkdtemp(join(tmpdir(), 'tuios-clip-'));
  const file = join(dir, 'clip.png');
  try {
    if (process.platform === 'darwin') {
      await run('osascript', ['-e', `set f to open for access POSIX file "${file.replace(/[\\"]/g, '\\$&')}" with write permission`, '-e', 'write (the clipboard as «class PNGf») to f', '-e', 'close access f']);
    } else {
      await run('powershell', ['-NoProfile', '-Command', `Add-Type -AssemblyName System.Windows.Forms; $i = [System.Windows.Forms.Clipboard]::GetImage(); if ($i) { $i.Save('${file.replace(/'/g, "''")}', [System.Drawing.Imaging.ImageFormat]::Png) }`]);
    }
    const b = await readFile(file).catch(() => null);
    return b && b.length > 0 && b.length <= IMAGE_MAX_BYTES ? b : null;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
