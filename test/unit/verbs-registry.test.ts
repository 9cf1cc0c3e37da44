import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { allVerbs } from '../../core/verbs/index.js';
import { describeVerb } from '../../core/rpc/describe.js';

test('every verb has a unique name, a summary and describable params', () => {
  const names = new Set<string>();
  for (const v of allVerbs) {
    assert.not.ok(names.has(v.name), `duplicate verb ${v.name}`);
    names.add(v.name);
    assert.ok(v.summary.length > 10, `${v.name} has a summary`);
    assert.match(v.name, /^[a-z][a-z-]*$/);
    const d = describeVerb(v);
    for (const p of d.params) assert.match(p.name, /^[a-z][a-z_]*$/, `${v.name}.${p.name} is snake_case`);
  }
});

test('every positional and rest names a param of its verb', () => {
  for (const v of allVerbs) {
    const d = describeVerb(v);
    const ps = new Set(d.params.map((p) => p.name));
    for (const n of v.cli?.positionals ?? []) assert.ok(ps.has(n), `${v.name}: positional ${n}`);
    if (v.cli?.rest) assert.ok(ps.has(v.cli.rest), `${v.name}: rest ${v.cli.rest}`);
    for (const n of Object.values(v.cli?.short ?? {})) assert.ok(ps.has(n), `${v.name}: short for ${n}`);
  }
});

test('aliases do not shadow another verb', () => {
  const names = new Set(allVerbs.map((v) => v.name));
  const seen = new Set<string>();
  for (const v of allVerbs) {
    for (const a of v.cli?.aliases ?? []) {
      assert.not.ok(names.has(a), `${a} is a verb and an alias`);
      assert.not.ok(seen.has(a), `${a} aliased twice`);
      seen.add(a);
    }
  }
});

test.run();
