// resume-agent: types the command that reopens a pane's last conversation (spec: Resuming after a
// restart), only while the pane's shell holds the foreground. --dry-run prints it.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { paneResume, typeResume } from '../integrations/resume-offers.js';

export const resumeAgent = defineVerb({
  name: 'resume-agent',
  summary: 'Type the command that reopens the pane\'s last agent conversation (only when its shell holds the foreground)',
  help: 'The command comes from the harness manifest\'s [resume] block and the pane\'s recorded agent_session_id, nothing else. --dry-run prints it.',
  target: 'window',
  mutates: true,
  types: true,
  cli: { usage: 'resume-agent -w W [--dry-run]' },
  params: z.object({ dry_run: z.boolean().optional().describe('Print the command, type nothing') }),
  result: z.object({ window_id: z.string(), command: z.string(), argv: z.array(z.string()), typed: z.boolean() }),
  print: 'fields',
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
