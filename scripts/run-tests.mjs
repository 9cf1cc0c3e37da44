// Runs every uvu test file (each in its own Node process, TypeScript through tsx) and ends with
// one plain line, `N passed, N failed, N skipped`, which is what CI reads. Unit files run four at
// a time, then e2e files, which start daemons and real programs, three at a time; the attack suite
// one at a time beside them (see lanes below).
//
// A skip is a skip: a test gated on a missing prerequisite (test/helpers/prereq.ts) prints a
// marker line; uvu counts it as passed, so it is taken off the passed count here, counted as
// skipped, and listed with its reason before the closing line. uvu's own `test.skip` counts too.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const args = process.argv.slice(2);
const filter = args.find((a) => !a.startsWith('-'));
/** test/helpers/prereq.ts SKIP_MARK: `[tuios-test-skip] TITLE — REASON`, ending its line. */
const SKIP_LINE = /\[tuios-test-skip\] (.*)$/gm;
/** A line a test file wants in the suite's own output even when it passes: `[tuios-test-note] TEXT`. */
const NOTE_LINE = /\[tuios-test-note\] (.*)$/gm;
const FILE_TIMEOUT_MS = Number(process.env.TUIOS_TEST_FILE_TIMEOUT_MS || (args.includes('--soak') ? 30 : 8) * 60 * 1000);

function walk(dir) {
  const out = [];
  let names = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) out.push(...walk(p));
    else if (n.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

// The attack suite (test/fuzz, test/soak) runs one file at a time, in a lane of its own beside the
// unit and e2e files: each of its files measures one daemon's memory and descriptors, which are
// that process's own, and its time bounds are generous, so another file's load slows it without
// blurring what it measures. `--soak` (npm run soak) runs only it, in its long form: TUIOS_SOAK=1,
// which each file reads for its counts. e2e files, which mostly wait on daemons, programs and the
// spec's own timers, run three at a time (TUIOS_TEST_E2E_CONCURRENCY).
const soak = args.includes('--soak');
if (soak) process.env.TUIOS_SOAK = '1';
const byFilter = (g) => ({ ...g, files: filter ? g.files.filter((f) => f.includes(filter)) : g.files });
const attack = byFilter({ name: 'attack', files: [...walk(join(root, 'test/fuzz')), ...walk(join(root, 'test/soak'))], concurrency: 1 });
const unit = byFilter({ name: 'unit', files: walk(join(root, 'test/unit')), concurrency: 4 });
const e2e = byFilter({ name: 'e2e', files: walk(join(root, 'test/e2e')), concurrency: Number(process.env.TUIOS_TEST_E2E_CONCURRENCY || 3) });
/** Lanes run at once; a lane's groups one after another. */
const lanes = soak ? [[attack]] : [[unit, e2e], [attack]];

function runFile(file) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', file], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => {
      out += `\n[run-tests] ${relative(root, file)} ran past ${FILE_TIMEOUT_MS} ms and was killed\n`;
      child.kill('SIGKILL');
    }, FILE_TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      const num = (label) => {
        const m = new RegExp(`${label}:\\s+(\\d+)`).exec(out);
        return m ? Number(m[1]) : null;
      };
      // uvu: Total counts the tests that ran (its own skips are apart), Passed those that passed.
      const total = num('Total');
      const passed = num('Passed');
      const skips = [...out.matchAll(SKIP_LINE)].map((m) => m[1]);
      let p = Math.max(0, (passed ?? 0) - skips.length);
      let f = total !== null && passed !== null ? total - passed : 0;
      if (code !== 0 && f === 0) f = 1; // crashed, or failed outside a test
      if (total === null && code === 0) p = 0;
      const skipped = skips.length + (num('Skipped') ?? 0);
      const notes = [...out.matchAll(NOTE_LINE)].map((m) => m[1]);
      resolve({ file, passed: p, failed: f, skipped, skips, notes, code, out, ms: Date.now() - started });
    });
  });
}

async function runGroup(g) {
  const results = [];
  let next = 0;
  async function worker() {
    while (next < g.files.length) {
      const file = g.files[next++];
      const r = await runFile(file);
      const mark = r.failed ? 'FAIL' : 'ok  ';
      process.stdout.write(`${mark} ${relative(root, file)}  (${r.passed} passed${r.skipped ? `, ${r.skipped} skipped` : ''}${r.failed ? `, ${r.failed} failed` : ''}, ${(r.ms / 1000).toFixed(1)}s)\n`);
      if (r.failed) process.stdout.write(indent(r.out) + '\n');
      else if (r.notes.length) process.stdout.write(indent(r.notes.join('\n')) + '\n');
      results.push(r);
    }
  }
  await Promise.all(Array.from({ length: Math.min(g.concurrency, g.files.length) }, worker));
  return results;
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)}s`;
}

function indent(s) {
  return s
    .split('\n')
    .map((l) => '    ' + l)
    .join('\n');
}

const all = [];
const groupTimes = [];
const suiteStarted = Date.now();
await Promise.all(
  lanes.map(async (lane) => {
    for (const g of lane) {
      if (g.files.length === 0) continue;
      process.stdout.write(`# ${g.name}: ${g.files.length} files\n`);
      const started = Date.now();
      all.push(...(await runGroup(g)));
      groupTimes.push(`${g.name} ${seconds(Date.now() - started)}`);
    }
  }),
);
// Where the time went, at the end where a CI log's tail keeps it: each group's wall time and the
// slowest files.
const slowest = [...all].sort((a, b) => b.ms - a.ms).slice(0, 8);
process.stdout.write(`\nTime: ${seconds(Date.now() - suiteStarted)} (${groupTimes.join(', ')}); slowest: ${slowest.map((r) => `${relative(root, r.file)} ${seconds(r.ms)}`).join(', ')}\n`);
const passed = all.reduce((a, r) => a + r.passed, 0);
const failed = all.reduce((a, r) => a + r.failed, 0);
const skipped = all.reduce((a, r) => a + r.skipped, 0);
const skipList = all.flatMap((r) => r.skips.map((s) => `  ${relative(root, r.file)}: ${s}`));
if (skipped > 0) {
  process.stdout.write(`\nSkipped (${skipped}):\n${skipList.join('\n')}\n`);
  if (skipped > skipList.length) process.stdout.write(`  and ${skipped - skipList.length} by uvu's test.skip\n`);
}
process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
process.exitCode = failed > 0 || all.length === 0 ? 1 : 0;
