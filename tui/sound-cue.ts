// sound_mode = "system": a cue file played through a system audio player on the machine the
// client runs on, which for a TUI drawn by the daemon is the daemon's host (under `tuios ssh`
// that is not where the person sits: the client says so when it starts). One cue at a time, each
// killed past ALERT_CUE_PLAY_MS; no player on PATH plays nothing and logs it once.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ALERT_CUE_PLAY_MS } from '../core/limits.js';

/** Players tried in order: PipeWire, PulseAudio, ALSA, macOS. */
const PLAYERS = ['pw-play', 'paplay', 'aplay', 'afplay'];

let found: string | null | undefined;

function findPlayer(path = process.env.PATH ?? ''): string | null {
  if (found !== undefined) return found;
  found = null;
  for (const p of PLAYERS)
    for (const dir of path.split(delimiter)) {
      if (!dir) continue;
      try {
        accessSync(join(dir, p), constants.X_OK);
        found = join(dir, p);
        return found;
      } catch {
        // not here
      }
    }
  return found;
}

let playing: ChildProcess | null = null;

/** Plays `file`; false when no player was found or a cue is already playing. */
export function playCue(file: string, warn: (msg: string) => void): boolean {
  const player = findPlayer();
  if (!player) {
    warn('sound_mode is "system" but no audio player (pw-play, paplay, aplay, afplay) is on PATH');
    return false;
  }
  if (playing) return false;
  let child: ChildProcess;
  try {
    child = spawn(player, [file], { stdio: 'ignore' });
  } catch (e) {
    warn(`the cue did not play: ${String(e)}`);
    return false;
  }
  playing = child;
  const t = setTimeout(() => child.kill('SIGKILL'), ALERT_CUE_PLAY_MS);
  t.unref();
  const done = () => {
    clearTimeout(t);
    if (playing === child) playing = null;
  };
  child.once('error', done);
  child.once('exit', done);
  return true;
}
