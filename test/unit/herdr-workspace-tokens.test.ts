// workspace.report_metadata's token store (herdr/workspace-tokens.ts): ttl, the seq rule, herdr's
// limits, and a closed session's tokens gone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WorkspaceTokens } from '../../herdr/workspace-tokens.js';

test('a token lives until its ttl runs out; null clears; no ttl stays', () => {
  const t = new WorkspaceTokens(() => true);
  t.apply('s', { source: 'a', seq: null, tokens: { x: '1', y: '2' }, ttlMs: 100 }, 1000);
  t.apply('s', { source: 'a', seq: null, tokens: { z: '3' }, ttlMs: null }, 1000);
  assert.equal(t.read('s', 1099), { x: '1', y: '2', z: '3' });
  assert.equal(t.read('s', 1100), { z: '3' });
  t.apply('s', { source: 'a', seq: null, tokens: { z: null }, ttlMs: null }, 1200);
  assert.equal(t.read('s', 1200), {});
});

test('a seq at or below the last from its source changes nothing; sources have their own', () => {
  const t = new WorkspaceTokens(() => true);
  assert.ok(t.apply('s', { source: 'a', seq: 5, tokens: { x: '1' }, ttlMs: null }));
  assert.not.ok(t.apply('s', { source: 'a', seq: 5, tokens: { x: '2' }, ttlMs: null }));
  assert.ok(t.apply('s', { source: 'b', seq: 1, tokens: { x: '3' }, ttlMs: null }));
  assert.equal(t.read('s'), { x: '3' });
});

test('32 keys a workspace and 32 sequenced sources in its lifetime', () => {
  const t = new WorkspaceTokens(() => true);
  for (let i = 0; i < 2; i++) t.apply('s', { source: 'a', seq: null, tokens: Object.fromEntries(Array.from({ length: 16 }, (_, j) => [`k${i}_${j}`, 'v'])), ttlMs: null });
  assert.throws(() => t.apply('s', { source: 'a', seq: null, tokens: { more: 'v' }, ttlMs: null }), /at most 32 tokens/);
  // Replacing a key is no new key.
  t.apply('s', { source: 'a', seq: null, tokens: { k0_0: 'w' }, ttlMs: null });
  for (let i = 0; i < 32; i++) t.apply('s2', { source: `src${i}`, seq: 1, tokens: {}, ttlMs: null });
  assert.throws(() => t.apply('s2', { source: 'src32', seq: 1, tokens: {}, ttlMs: null }), /at most 32 sources/);
});

test('a closed session\'s tokens are gone', () => {
  const alive = new Set(['s', 't']);
  const tokens = new WorkspaceTokens((id) => alive.has(id));
  tokens.apply('s', { source: 'a', seq: 1, tokens: { x: '1' }, ttlMs: null });
  tokens.apply('t', { source: 'a', seq: 1, tokens: { y: '1' }, ttlMs: null });
  alive.delete('s');
  assert.equal(tokens.read('s'), {});
  // A session id that came back would start clean, its seq marks gone too.
  alive.add('s');
  assert.ok(tokens.apply('s', { source: 'a', seq: 1, tokens: { x: '2' }, ttlMs: null }));
  assert.equal(tokens.read('t'), { y: '1' });
});

test.run();
