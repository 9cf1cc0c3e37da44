// A harness that left its pane keeps the pane's TUIOS_PANE_ID, and so do its hooks: Claude Code's
// background sessions run on its own daemon's terminal with the environment of the pane that asked
// for them (spec: Nested and foreign events). A report from such a process is refused with
// foreign_pane. tmux, screen, zellij, container helpers and systemd-run also run things outside
// the pane with its environment; those are the pane's, so only a harness daemon among the
// ancestors counts.
import { readArgv, readEnvVar, readStat } from '../pty/procfs.js';
import { decodeTtyNr, ttyDeviceKey } from '../security/placement.js';
import type { Window } from '../model/window.js';
import { FOREIGN_PANE_MAX_ANCESTRY } from '../limits.js';

/** A harness daemon: known by its program name and an argument it runs with. */
function isHarnessDaemon(pid: number): boolean {
  const argv = readArgv(pid);
  if (!argv || argv.length < 2) return false;
  const prog = (argv[0] ?? '').split('/').pop() ?? '';
  if (prog !== 'claude' && !argv.slice(0, 3).some((a) => /(^|\/)claude(\.exe)?$|@anthropic-ai\/claude-code/.test(a))) return false;
  return argv.includes('daemon') || argv.includes('--bg-pty-host');
}

/** Why the report from `pid` is another terminal's, or null when it is the pane's (or cannot be told). */
export function foreignPaneReason(pid: number, w: Window): string | null {
  if (readEnvVar(pid, 'TUIOS_PANE_ID') !== w.id) return null;
  const st = readStat(pid);
  if (!st || pid === w.pid) return null;
  const tty = ttyDeviceKey(w.process?.ttyName);
  if (tty && st.ttyNr > 0) {
    const [ma, mi] = decodeTtyNr(st.ttyNr);
    if (`${ma}:${mi}` === tty) return null;
  }
  let cur = st;
  let daemon = false;
  for (let i = 0; i < FOREIGN_PANE_MAX_ANCESTRY && cur.ppid > 1; i++) {
    if (cur.ppid === w.pid) return null; // descended from the pane
    if (isHarnessDaemon(cur.ppid)) daemon = true;
    const up = readStat(cur.ppid);
    if (!up) break;
    cur = up;
  }
  return daemon ? `pid ${pid} names this pane in TUIOS_PANE_ID but runs under a harness daemon on another terminal (a background session)` : null;
}
