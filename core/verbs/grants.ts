// Pane grants verbs: pane-grants (what a pane holds), set-pane-grants, config-apply.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { grantsOf, grantsText, parseGrants, checkGrantChange, expand, defaultGrants, GRANTS } from '../security/grants.js';
import { paneOf } from '../security/access.js';

const grantListSchema = z.array(z.enum(GRANTS));

export const paneGrants = defineVerb({
  name: 'pane-grants',
  access: 'none',
  summary: 'What a pane may do through tuios (your own pane by default)',
  target: 'window',
  mutates: false,
  params: z.object({}),
  result: z.object({
    window_id: z.string(),
    grants: grantListSchema,
    text: z.string(),
    from: z.enum(['explicit', 'default']),
    mode: z.enum(['open', 'strict']),
    // A config change that gives panes more, waiting for config-apply.
    waiting: z.string().optional(),
  }),
  print: 'fields',
  run({ window, svc }) {
    const w = window!;
    const g = grantsOf(w, svc.permissions.current);
    const pending = svc.permissions.pending;
    return {
      window_id: w.id,
      grants: [...g.grants].sort(),
      text: grantsText(g.grants),
      from: g.from,
      mode: svc.permissions.current.mode,
      ...(pending ? { waiting: `a config change that gives more (${grantsText(expand(defaultGrants(pending)))}) waits for tuios config-apply from outside tuios` } : {}),
    };
  },
});

export const setPaneGrants = defineVerb({
  name: 'set-pane-grants',
  access: 'none',
  summary: 'Set what a pane may do (your own pane by default); never more than the caller holds',
  help: 'Grants: read, write, fan, respond, files, task, admin (or none). A pane changes only its own unless it holds admin, and admin cannot give respond.',
  target: 'window',
  mutates: true,
  cli: { comma: ['grants'], usage: 'set-pane-grants [-w W] --grants read,write' },
  params: z.object({ grants: z.array(z.string().max(32)).max(16).describe('The grants (comma separated)') }),
  result: z.object({ window_id: z.string(), grants: grantListSchema, text: z.string() }),
  print: 'fields',
  run({ params, window, svc, caller }) {
    const w = window!;
    const unknown = params.grants.filter((g) => g !== 'none' && !(GRANTS as readonly string[]).includes(g));
    if (unknown.length) throw new TuiosError('invalid_params', `Unknown grant ${unknown.join(', ')}.`, `Grants: ${GRANTS.join(', ')}, or none.`, { field: 'grants' });
    const want = parseGrants(params.grants);
    const { window: pane, inside } = paneOf(svc, caller);
    if (inside && !pane) throw new TuiosError('forbidden', 'set-pane-grants is refused: the caller runs in a pane this daemon cannot name.');
    checkGrantChange(inside ? pane : null, w, want, svc.permissions.current);
    w.attrs.set('grants', want);
    svc.snapshot.markDirty();
    svc.log.info('pane grants set', { window: w.id, grants: want.join(',') || 'none', by: inside ? `pane ${pane!.id}` : 'outside' });
    return { window_id: w.id, grants: [...expand(want)].sort(), text: grantsText(expand(want)) };
  },
});

export const configApply = defineVerb({
  name: 'config-apply',
  access: 'none',
  summary: 'Apply a config change that gives panes more (only from a terminal outside tuios)',
  target: 'none',
  mutates: true,
  params: z.object({}),
  // applied: a pending change that gives more took effect; error and warnings: config.toml's, read again.
  result: z.object({ applied: z.boolean(), error: z.string().nullable(), warnings: z.array(z.string()) }),
  print: 'fields',
  run({ svc, caller }) {
    if (svc.placement(caller).kind !== 'outside') {
      throw new TuiosError('forbidden', 'config-apply is refused from inside a pane: a process in a pane can write config.toml.', 'Run it from a terminal outside tuios.');
    }
    const r = svc.config.load();
    const applied = svc.permissions.apply();
    return { applied, error: r.error, warnings: r.warnings };
  },
});
