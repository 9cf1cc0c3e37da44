// core/rpc/json-depth.ts: nesting is counted outside strings only, and stops at the limit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonNestsDeeper } from '../../core/rpc/json-depth.js';

test('counts arrays and objects, at and past the limit', () => {
  assert.is(jsonNestsDeeper('[[[]]]', 3), false);
  assert.is(jsonNestsDeeper('[[[[]]]]', 3), true);
  assert.is(jsonNestsDeeper('{"a":{"b":[1]}}', 3), false);
  assert.is(jsonNestsDeeper('{"a":{"b":[{}]}}', 3), true);
  assert.is(jsonNestsDeeper('[],[],[],[]', 1), false, 'siblings do not add up');
});

test('brackets inside strings, escaped quotes included, do not count', () => {
  assert.is(jsonNestsDeeper('{"t":"[[[[{{{{"}', 1), false);
  assert.is(jsonNestsDeeper('{"t":"say \\"[[[[\\" twice"}', 1), false);
  assert.is(jsonNestsDeeper('{"t":"a\\\\"}', 1), false, 'an escaped backslash ends before the quote');
  assert.is(jsonNestsDeeper('{"t":"a\\\\",' + '"u":[[]]}', 2), true);
});

test('a 1 MB line of open brackets is read once, quickly', () => {
  const t0 = Date.now();
  assert.is(jsonNestsDeeper('['.repeat(1_000_000), 128), true);
  assert.is(jsonNestsDeeper('"' + '['.repeat(1_000_000) + '"', 128), false);
  assert.ok(Date.now() - t0 < 1000);
});

test.run();
