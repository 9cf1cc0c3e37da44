// The turn checkpoint verbs (spec: Turn checkpoints): list a pane's checkpoints, diff one, restore
// one. The checkpoints themselves are core/git/checkpoints.ts; when they are taken,
// core/git/checkpoint-service.ts.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { table } from '../rpc/print-helpers.js';
import type { CheckpointService } from '../git/checkpoint-service.js';
import { paneOf } from '../security/access.js';
import { grantsOf } from '../security/grants.js';
import type { Services } from '../daemon/services.js';
import type { Caller } from '../rpc/caller.js';
import type { Window } from '../model/window.js';

const checkpointSchema = z.object({
  n: z.number().int(),
  commit: z.string(),
  tree: z.string(),
  parent: z.string().nullable(),
  kind: z.enum(['turn', 'safety']),
  turn: z.number().int().nullable(),
  state: z.string(),
  time: z.string(),
  label: z.string(),
});

const skippedSchema = z.object({ path: z.string(), bytes: z.number().int().nullable() });

function serviceOf(svc: Services): CheckpointService {
  return svc.checkpoints;
}

function nameOf(w: Window): string {
  return w.name || w.id.slice(0, 12);
}

export const listCheckpoints = defineVerb({
  name: 'list-checkpoints',
  summary: 'A pane\'s turn checkpoints, newest first',
  help: 'One row per saved turn: its number, when, the state the turn ended in and what the turn was. A checkpoint is taken when an agent\'s turn ends and a file changed since the last one ([agents.checkpoints]). `checkpoint diff N` shows what turn N changed; `checkpoint restore N` puts the files back as it left them.',
  target: 'window',
  mutates: false,
  access: 'read',
  cli: { aliases: ['checkpoint', 'checkpoints'], subcommands: { list: 'list-checkpoints', ls: 'list-checkpoints', diff: 'checkpoint-diff', restore: 'restore-checkpoint' }, usage: 'checkpoint list -w WINDOW | checkpoint diff -w WINDOW N | checkpoint restore -w WINDOW N [--force]' },
  params: z.object({}),
  result: z.object({
    window_id: z.string(),
    /** false while [agents.checkpoints] is off: no new ones are taken. */
    enabled: z.boolean(),
    checkpoints: z.array(checkpointSchema),
  }),
  print: (r) => {
    const head = r.enabled ? '' : 'checkpoints are off ([agents.checkpoints] enabled = false)\n';
    if (!r.checkpoints.length) return head + 'no checkpoints';
    return head + table([['N', 'TIME', 'KIND', 'TURN', 'STATE', 'LABEL'], ...r.checkpoints.map((c) => [String(c.n), c.time.replace('T', ' ').replace(/\.\d+Z$/, 'Z'), c.kind, c.turn === null ? '-' : String(c.turn), c.state || '-', c.label.slice(0, 60)])]);
  },
  async run({ svc, window, signal }) {
    const s = serviceOf(svc);
    const w = window!;
    let checkpoints: z.infer<typeof checkpointSchema>[] = [];
    try {
      checkpoints = await s.store.list(s.dirOf(w), w.id, { signal });
    } catch (e) {
      if (!(e instanceof TuiosError && e.code === 'not_repo')) throw e;
    }
    return { window_id: w.id, enabled: s.enabled, checkpoints };
  },
});

export const checkpointDiff = defineVerb({
  name: 'checkpoint-diff',
  summary: 'What one turn changed: checkpoint N against the pane\'s checkpoint before it',
  help: 'The first checkpoint compares with HEAD at the time it was taken; --from names another checkpoint to compare with. The caps of review-diff apply: 400 files, 2 MiB of text (truncated), 10 s for its git calls together. --stat leaves the patch out.',
  target: 'window',
  mutates: false,
  access: 'read',
  link: { right: 'files' },
  cli: { positionals: ['n'], usage: 'checkpoint diff -w WINDOW N [--from M] [--stat]' },
  params: z.object({
    n: z.number().int().min(1).describe('The checkpoint'),
    from: z.number().int().min(1).optional().describe('Compare with this checkpoint instead of the one before N'),
    stat: z.boolean().optional().describe('Counts only, no patch'),
  }),
  result: z.object({
    window_id: z.string(),
    n: z.number().int(),
    from_n: z.number().int().nullable(),
    from: z.string(),
    to: z.string(),
    files: z.array(z.object({ path: z.string(), status: z.string(), added: z.number().int().nullable(), deleted: z.number().int().nullable(), binary: z.boolean() })),
    added: z.number().int(),
    deleted: z.number().int(),
    patch: z.string(),
    truncated: z.boolean(),
  }),
  print: (r) => {
    const head = `checkpoint ${r.n} against ${r.from_n === null ? 'HEAD then' : `checkpoint ${r.from_n}`}: ${r.files.length} file${r.files.length === 1 ? '' : 's'}, +${r.added} -${r.deleted}${r.truncated ? ' (truncated)' : ''}`;
    const list = r.files.map((f) => `${f.status} ${f.path}  ${f.added === null ? 'binary' : `+${f.added} -${f.deleted}`}`).join('\n');
    return [head, list, r.patch ? '\n' + r.patch.replace(/\n$/, '') : ''].filter(Boolean).join('\n');
  },
  async run({ params, svc, window, signal }) {
    const s = serviceOf(svc);
    const w = window!;
    const d = await s.store.diff(s.dirOf(w), w.id, params.n, params.from ?? null, { signal });
    return { window_id: w.id, ...d, patch: params.stat ? '' : d.patch };
  },
});

/** A pane restores only a pane that holds no grant it does not hold (spec: Turn checkpoints, Grants). */
function checkRestoreGrants(svc: Services, caller: Caller, target: Window): void {
  const { window: pane } = paneOf(svc, caller);
  if (!pane || pane.id === target.id) return;
  const mine = grantsOf(pane, svc.permissions.current).grants;
  const more = [...grantsOf(target, svc.permissions.current).grants].filter((g) => !mine.has(g));
  if (more.length) throw new TuiosError('forbidden', `restore-checkpoint is refused for this pane: ${nameOf(target)} holds ${more.join(', ')}, which this pane does not hold.`, 'A pane can restore only a pane that holds no grant it does not hold.');
}

export const restoreCheckpoint = defineVerb({
  name: 'restore-checkpoint',
  summary: 'Put a pane\'s files back as turn N left them, after saving them as a safety checkpoint',
  help: 'First the work tree is saved as a safety checkpoint (restore that one to undo). Then the files that differ are written and the files checkpoint N does not have are removed. Ignored files, the index and HEAD are not touched, so git status shows the restored files as changes. An untracked file no checkpoint holds (past max_untracked_mb) is kept as it is and listed. Refused while the agent is working or needs input, unless --force.',
  target: 'window',
  mutates: true,
  access: 'write',
  cli: { positionals: ['n'], short: { f: 'force' }, usage: 'checkpoint restore -w WINDOW N [--force]' },
  params: z.object({
    n: z.number().int().min(1).describe('The checkpoint to restore'),
    force: z.boolean().optional().describe('Restore even while the agent is working or needs input'),
  }),
  result: z.object({
    window_id: z.string(),
    restored: checkpointSchema,
    safety: checkpointSchema,
    safety_taken: z.boolean(),
    written: z.array(z.string()),
    removed: z.array(z.string()),
    written_count: z.number().int(),
    removed_count: z.number().int(),
    kept: z.array(skippedSchema),
  }),
  print: (r) => {
    const lines = [`restored checkpoint ${r.restored.n}: ${r.written_count} written, ${r.removed_count} removed; undo with: tuios checkpoint restore ${r.safety.n}`];
    if (r.kept.length) lines.push(`kept as they are (in no checkpoint): ${r.kept.map((k) => k.path).join(', ')}`);
    return lines.join('\n');
  },
  async run({ params, svc, caller, window, signal }) {
    const s = serviceOf(svc);
    const w = window!;
    checkRestoreGrants(svc, caller, w);
    const state = svc.agents.stateOf(w);
    if ((state === 'working' || state === 'needs_input') && !params.force) {
      throw new TuiosError('conflict', `The agent in ${nameOf(w)} is ${state === 'working' ? 'working' : 'waiting for input'}: it would write over the restored files.`, 'Wait for the turn to end, or pass --force.', { state });
    }
    const r = await s.store.restore(s.dirOf(w), w.id, params.n, { ...s.options(signal) });
    return { window_id: w.id, ...r };
  },
});
