// The model a harness's hooks name, fed to the pane's `model` key (spec: Agent metadata): Codex on
// every event, Claude Code on SessionStart, from the measured payloads in fixtures/hooks; and the
// daemon's rule that a hook's model never replaces one another feed (the status line) wrote.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mapHook } from '../../core/integrations/hooks/map.js';
import { Bus } from '../../core/bus.js';
import { Model, type PaneStarter } from '../../core/model/model.js';
import { AgentStore } from '../../core/agent-state/store.js';
import { HOOK_META_SOURCE } from '../../core/agent-state/meta.js';
import { nullLogger } from '../../core/log.js';
import { META_VALUE_MAX } from '../../core/limits.js';

const FIX = join(import.meta.dirname, '..', '..', 'fixtures', 'hooks');
const payload = (harness: string, name: string) => (JSON.parse(readFileSync(join(FIX, harness, `${name}.json`), 'utf8')) as { payload: Record<string, unknown> }).payload;

test('Claude Code: SessionStart names the model (measured, 2.1.332); other events do not carry it', () => {
  assert.equal(mapHook('claude-code', payload('claude-code', 'SessionStart-startup'), {}).meta, { model: 'claude-opus-5-5' });
  assert.is(mapHook('claude-code', { ...payload('claude-code', 'SessionStart-startup'), model: undefined }, {}).meta, undefined);
  assert.is(mapHook('claude-code', { ...payload('claude-code', 'SessionStart-startup'), source: 'compact' }, {}).meta, undefined, 'a compaction reports nothing');
  for (const e of ['UserPromptSubmit', 'Stop']) assert.is(mapHook('claude-code', { ...payload('claude-code', e), model: 'x' }, {}).meta, undefined, e);
});

test('Codex: every event it reports names the model (measured, 0.171.0)', () => {
  for (const e of ['SessionStart-startup', 'UserPromptSubmit', 'PreToolUse-Bash', 'PermissionRequest-Bash', 'Stop']) {
    assert.equal(mapHook('codex', payload('codex', e), {}).meta, { model: 'fake-model' }, e);
  }
});

test('a named model is data: one line, cut to the metadata limit; a foreign event feeds nothing', () => {
  const p = { ...payload('codex', 'Stop'), model: `gpt\x1b]0;x\x07-5\n${'m'.repeat(200)}` };
  const m = mapHook('codex', p, {}).meta!.model;
  assert.ok(!/[\x00-\x1f]/.test(m), m);
  assert.is([...m].length, META_VALUE_MAX);
  assert.is(mapHook('codex', payload('codex', 'Stop'), { TUIOS_AGENT: 'claude' }).meta, undefined);
});

const starter: PaneStarter = {
  prepare: (_s, spec) => ({ name: spec.name ?? 'w', argv: ['x'], startCwd: '/', cols: 80, rows: 24, scrollback: 10, isShell: false, env: {} }),
  start: () => {},
};

test('the daemon: a hook\'s model fills an empty key and follows itself, never replaces the status line\'s', () => {
  const bus = new Bus();
  const model = new Model(bus, nullLogger, starter, '/');
  const store = new AgentStore({ bus, model, log: nullLogger, stallMs: 0 });
  const w = model.createWindow(model.createSession({ name: 's' }), { name: 'a' });
  const meta = () => (store.info(w).meta ?? {}) as Record<string, string>;
  store.setMeta(w, { model: 'claude-opus-5-5' }, HOOK_META_SOURCE, null);
  assert.is(meta().model, 'claude-opus-5-5');
  store.setMeta(w, { model: 'claude-sonnet-5' }, HOOK_META_SOURCE, null);
  assert.is(meta().model, 'claude-sonnet-5', 'a hook updates its own value');
  store.setMeta(w, { model: 'Opus 5.5', context: '42%' }, 'statusline', null);
  assert.is(meta().model, 'Opus 5.5');
  const r = store.setMeta(w, { model: 'claude-opus-5-5' }, HOOK_META_SOURCE, null);
  assert.equal(r, { changed: false });
  assert.equal(meta(), { model: 'Opus 5.5', context: '42%' }, 'the status line\'s model stands');
  store.setMeta(w, { model: 'Sonnet 5' }, 'statusline', null);
  assert.is(meta().model, 'Sonnet 5', 'the status line follows a model change');
});

test.run();
