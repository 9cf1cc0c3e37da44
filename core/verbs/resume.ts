// resume-agent: types the command that reopens a pane's last conversation (spec: Resuming after a
// restart), only while the pane's shell holds the foreground. --dry-run prints it.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { findHarness } from '../agent/manifest.js';
import { resumeCommand, shellHoldsForeground } from '../agent/resume.js';
import type { Services } from '../daemon/services.js';
import type { Window } from '../model/window.js';

/** The pane's resume command, or a typed error a person can act on. */
export function paneResume(svc: Services, w: Window): { argv: string[]; line: string; harness: string } {
  const s = svc.agents.sessionOf(w);
  const m = s.harness ? findHarness(svc.manifests, s.harness) : undefined;
  const r = resumeCommand(m, s.id);
  if (!r.ok) throw new TuiosError('not_found', `${w.name} cannot be resumed: ${r.why}.`, 'A harness reports its conversation id once its integration is installed: tuios integration install HARNESS');
  return { argv: r.argv, line: r.line, harness: m!.id };
}

/** Types the command into the pane's shell; false when the shell does not hold the foreground. */
export function typeResume(svc: Services, w: Window, line: string): boolean {
  if (!shellHoldsForeground(w)) return false;
  w.write(`${line}\r`);
  svc.inbox.closeWhere((i) => i.kind === 'resume' && i.window_id === w.id, 'the resume command was typed');
  return true;
}

export const resumeAgent = defineVerb({
  name: 'resume-agent',
  summary: 'Type the command that reopens the pane\'s last agent conversation (only when its shell holds the foreground)',
  help: 'The command comes from the harness manifest\'s [resume] block and the pane\'s recorded agent_session_id, nothing else. --dry-run prints it.',
  target: 'window',
  mutates: true,
  types: true,
  cli: { usage: 'resume-agent -w W [--dry-run]' },
  params: z.object({ dry_run: z.boolean().optional().describe('Print the command, type nothing') }),
  run({ params, window, svc }) {
    const w = window!;
    const r = paneResume(svc, w);
    if (params.dry_run) return { window_id: w.id, command: r.line, argv: r.argv, typed: false };
    if (!typeResume(svc, w, r.line)) {
      throw new TuiosError('agent_blocked', `${w.name}'s shell does not hold the terminal's foreground; nothing was typed.`, 'Leave the program that runs there, then run resume-agent again (or --dry-run to see the command).');
    }
    return { window_id: w.id, command: r.line, argv: r.argv, typed: true };
  },
});

export const resumeVerbs = [resumeAgent];
