// Limits in one place per layer (issue 21): a top-level constant whose name says it bounds
// something (MAX_…, …_MAX, …_BYTES, …_KEPT, …_LIMIT, …_CAP) lives in its layer's limits file,
// with the reason for its number, and nowhere else in core/, link/ or ssh-server/ (tui/ has
// tui/limits.ts). A new one outside fails here: move it to the limits file, or, when it is not a
// budget at all (a size fixed by a protocol, a tuning knob), name it below with the reason. An
// exception that no longer occurs fails too, so the list only shrinks.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..', '..');
const LAYERS = ['core', 'link', 'ssh-server'];
const LIMITS_FILES = new Set(['core/limits.ts', 'link/limits.ts', 'ssh-server/limits.ts']);
/** A name that says it is a bound. */
const BOUND_NAME = /^(MAX_|MIN_)|_MAX$|_MAX_|_KEPT$|_BYTES$|_LIMIT$|_CAP$/;
/** A top-level constant (or variable), as this codebase writes them: at the start of a line. */
const TOP_LEVEL = /^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*[:=]/gm;

/** FILE:NAME -> why it stays where it is. */
const EXCEPTIONS: Record<string, string> = {
  'link/codec/schema.ts:PROTOCOL_MAX': 'the newest link protocol version this build speaks, beside PROTOCOL_MIN: a version, not a budget',
  'ssh-server/padding.ts:TAG_BYTES': "the AEAD tag's size, fixed by the cipher (16 bytes for AES-GCM and chacha20-poly1305)",
  'core/agent-state/record.ts:MIN_TURN_MS': 'state tuning: a turn shorter than this that ends at rest is a flicker (hysteresis, not a bound)',
  'core/detection/screen-tier.ts:IDLE_CONFIRM_MAX_MS': 'detection tuning: the idle confirmation (with IDLE_CONFIRM_LOOKS and IDLE_CONFIRM_GAP_MS), kept with its group',
  'core/detection/screen-tier.ts:RELEASE_MAX_MS': 'detection tuning: how long the idle confirmation may hold a rest reading, kept with its group',
};

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const n of readdirSync(dir)) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (n.endsWith('.ts') && !n.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Every bound-named top-level constant outside the limits files, as FILE:NAME. */
function boundsOutsideLimits(root = ROOT): string[] {
  const found: string[] = [];
  for (const layer of LAYERS) {
    for (const path of walk(join(root, layer))) {
      const file = relative(root, path).split('\\').join('/');
      if (LIMITS_FILES.has(file)) continue;
      for (const m of readFileSync(path, 'utf8').matchAll(TOP_LEVEL)) if (BOUND_NAME.test(m[1]!)) found.push(`${file}:${m[1]}`);
    }
  }
  return found.sort();
}

test('no file of core/, link/ or ssh-server/ defines a bound outside its layer limits file, less the named exceptions', () => {
  const stray = boundsOutsideLimits().filter((k) => !(k in EXCEPTIONS));
  assert.equal(stray, [], `bounds defined outside the limits files: move each to its layer's limits file (core/limits.ts, link/limits.ts, ssh-server/limits.ts) with a one-line reason, or, if it is no budget, name it in EXCEPTIONS with why:\n${stray.map((k) => `  ${k}`).join('\n')}`);
});

test('every named exception still occurs (the list only shrinks)', () => {
  const now = new Set(boundsOutsideLimits());
  const gone = Object.keys(EXCEPTIONS).filter((k) => !now.has(k));
  assert.equal(gone, [], `exceptions that no longer occur: take them off EXCEPTIONS:\n${gone.map((k) => `  ${k}`).join('\n')}`);
});

test('a bound is defined in one limits file only', () => {
  const where = new Map<string, string[]>();
  for (const file of LIMITS_FILES) {
    for (const m of readFileSync(join(ROOT, file), 'utf8').matchAll(TOP_LEVEL)) where.set(m[1]!, [...(where.get(m[1]!) ?? []), file]);
  }
  const twice = [...where].filter(([, files]) => files.length > 1).map(([n, files]) => `${n}: ${files.join(', ')}`);
  assert.equal(twice, [], `defined in more than one limits file:\n${twice.join('\n')}`);
});

test('the check fires: a bound-named constant in a layer file is found, one in a limits file is not', () => {
  assert.ok(BOUND_NAME.test('MAX_THINGS') && BOUND_NAME.test('THINGS_MAX') && BOUND_NAME.test('RING_MAX_ITEMS') && BOUND_NAME.test('OWNERS_KEPT') && BOUND_NAME.test('BUF_BYTES') && BOUND_NAME.test('RATE_LIMIT') && BOUND_NAME.test('QUEUE_CAP') && BOUND_NAME.test('MIN_WIDTH'));
  assert.not.ok(BOUND_NAME.test('SETTLE_MS') || BOUND_NAME.test('MAXIMUM') || BOUND_NAME.test('FRAME_HEADER'));
  const names = [...'/** x */\nexport const MAX_PROBE = 1;\nconst PROBE_BYTES: number = 2;\n  const MAX_INNER = 3;\nlet PROBE_CAP = 4;\n'.matchAll(TOP_LEVEL)].map((m) => m[1]);
  assert.equal(names, ['MAX_PROBE', 'PROBE_BYTES', 'PROBE_CAP'], 'top-level only: a constant inside a function is not a module bound');
});

test.run();
