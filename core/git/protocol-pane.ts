// A pane whose agent tuios speaks to over a protocol (spec: Headless agents over a protocol): its
// process is `tuios agent-proto`, which reports the pane's state from the protocol alone. The
// window carries `protocol` (acp or codex): start-agent is ready on its report alone, list-agents
// shows it, and request-approval needs no [agents.approvals] for it.
import { basename } from 'node:path';
import type { Services } from '../daemon/services.js';
import type { Session } from '../model/model.js';
import type { Window } from '../model/window.js';
import { TuiosError } from '../errors.js';
import { findHarness } from '../detection/manifest.js';
import { TUIOS_BIN } from '../self.js';
import { onPath } from './on-path.js';

export const PANE_PROTOCOLS = ['acp', 'codex'] as const;
export type PaneProtocol = (typeof PANE_PROTOCOLS)[number];

/** The protocol a pane's agent speaks, or null for a pane tuios reads from its screen and hooks. */
export function protocolOf(w: Window): PaneProtocol | null {
  const p = w.attrs.get('protocol');
  return p === 'acp' || p === 'codex' ? p : null;
}

/** Splits `opencode acp` into words; quotes group words, nothing else is interpreted. */
export function commandWords(text: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1] ?? m[2] ?? m[3]!);
  return out;
}

/**
 * A window running `tuios agent-proto` for the command. The harness is the manifest's whose
 * program the command runs, else the protocol's name.
 */
export async function startProtocolWindow(
  svc: Services,
  s: Session,
  a: { protocol: PaneProtocol; command: string; args?: string[]; name?: string; grants?: string[]; cwd?: string },
): Promise<{ window: Window; harness: string; program: string }> {
  const words = [...commandWords(a.command), ...(a.args ?? [])];
  const program = words[0];
  if (!program) throw new TuiosError('invalid_params', 'start-agent --protocol needs the agent\'s command.', "e.g. tuios start-agent --protocol acp 'opencode acp'", { field: 'harness' });
  if (!(await onPath(program, svc.baseEnv))) {
    throw new TuiosError('not_found', `The agent's program \`${program}\` is not on the daemon's PATH.`, 'Install it, or start the daemon with its folder on PATH.', { field: 'harness' });
  }
  const harness = findHarness(svc.manifests, basename(program))?.id ?? a.protocol;
  const argv = [TUIOS_BIN, 'agent-proto', '--protocol', a.protocol, '--harness', harness, '--', ...words];
  const w = svc.model.createWindow(s, { name: a.name ?? harness, argv, cwd: a.cwd, grants: a.grants });
  w.attrs.set('protocol', a.protocol);
  svc.model.touch(s);
  return { window: w, harness, program };
}

/**
 * Ready (idle or done) as start-agent counts it: for a protocol pane, only on the pane's own
 * report (source report), never a screen's or the silence timer's guess.
 */
export function readyNow(svc: Services, w: Window): boolean {
  const st = svc.agents.stateOf(w);
  if (st !== 'idle' && st !== 'done') return false;
  return protocolOf(w) === null || svc.agents.recordOf(w)?.view().source === 'report';
}
