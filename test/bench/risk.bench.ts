// The risk rules on garbage (test/bench/risk-inputs.ts, the inputs test/unit/risk.test.ts feeds
// them): how long one assessment takes, the slowest input, and the 100 KB lines per KB. The rules
// read a line only up to its bounds (64 KB, 256 KB of work over nested lines, 16 levels, 1000
// commands), so the time is bounded by those, not by the input. Goal: the slowest assessment
// under 2000 ms on a loaded 2-core machine (the bound the unit test once held it to).
import { performance } from 'node:perf_hooks';
import { assessApproval, compileRiskRules, type RiskContext } from '../../core/security/risk/index.js';
import { asCalls, longLines, LONG_UNITS, shortGarbage } from './risk-inputs.js';
import { fmt, median, percentile } from './helpers.js';

const ROUNDS = Number(process.env.BENCH_RISK_ROUNDS ?? 5);
const pane: RiskContext = { root: '/home/u/proj', cwd: '/home/u/proj', home: '/home/u', realpath: (p) => p };
// A person's rule with nested repetition, which backtracks exponentially in a JS RegExp (RE2 is linear).
const withUserRule: RiskContext = { ...pane, rules: compileRiskRules({ builtin: false, rules: [{ name: 'nested', pattern: '^(a+)+$' }] }) };

function time(inputs: string[], ctx: RiskContext): { ms: number[]; worst: { ms: number; what: string } } {
  const ms: number[] = [];
  let worst = { ms: 0, what: '' };
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of inputs) {
      for (const call of asCalls(s)) {
        const t = performance.now();
        assessApproval(call, ctx);
        const d = performance.now() - t;
        ms.push(d);
        if (d > worst.ms) worst = { ms: d, what: `${'line' in call ? 'a line' : call.tool} of ${JSON.stringify(s.slice(0, 12))}${s.length > 12 ? `... (${s.length} chars)` : ''}` };
      }
    }
  }
  return { ms, worst };
}

const short = time(shortGarbage(), pane);
console.log(`risk rules on ${shortGarbage().length} short garbage inputs x 4 kinds x ${ROUNDS}: median ${fmt(median(short.ms), 3)} ms, p99 ${fmt(percentile(short.ms, 99), 3)} ms, slowest ${fmt(short.worst.ms, 2)} ms (${short.worst.what})`);
const long = time(longLines(), pane);
console.log(`risk rules on ${LONG_UNITS.length} lines of 100 KB x 4 kinds x ${ROUNDS}: median ${fmt(median(long.ms), 2)} ms, p99 ${fmt(percentile(long.ms, 99), 2)} ms, slowest ${fmt(long.worst.ms, 2)} ms (${long.worst.what})`);
console.log(`the slowest of all: ${fmt(Math.max(short.worst.ms, long.worst.ms), 2)} ms (goal: under 2000 ms on a loaded 2-core machine)`);
// A Write's whole text goes to the user rules: 100 KB of a then !, which that pattern fails on.
const evil = 'a'.repeat(100 * 1024) + '!';
const t = performance.now();
assessApproval({ tool: 'Write', command: evil }, withUserRule);
console.log(`a user rule ^(a+)+$ on a Write of 100 KB of a then !: ${fmt(performance.now() - t, 2)} ms (RE2: linear; a JS RegExp would not finish)`);
