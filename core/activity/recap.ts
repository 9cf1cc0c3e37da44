// The recap of a ring (spec: What the agent has been doing, The away recap): how many turns
// finished, which files were written, how many commands ran, the newest test run and whether it
// passed, what the agent last said and where it is now. Pure: entries and a clock in, a summary
// and its lines out.
import { RECAP_FILES_SHOWN, RECAP_TEST_PATTERN_MAX, RECAP_TEST_PATTERNS_MAX } from '../limits.js';
import type { ActivityEntry } from './ring.js';

/** The shell tools of the harnesses: a call of one is a command the agent ran. */
export const SHELL_TOOLS = new Set(['Bash', 'bash', 'Shell', 'shell', 'exec_command', 'local_shell', 'run_shell_command', 'run_terminal_cmd', 'execute', 'terminal']);
/** The tools that write a file: the call's argument is the file written. */
export const WRITE_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit', 'apply_patch', 'edit', 'write', 'write_file', 'replace', 'str_replace_based_edit_tool', 'edit_file', 'create']);

/** [agents.recap] test_patterns' default: the test runners most repositories use. */
export const DEFAULT_TEST_PATTERNS = ['go test', 'npm test', 'npm run test', 'yarn test', 'pnpm test', 'bun test', 'npx jest', 'npx vitest', 'npx uvu', 'pytest', 'python -m pytest', 'cargo test', 'cargo nextest', 'mvn test', 'gradle test', './gradlew test', 'make test', 'make check', 'ctest', 'dotnet test', 'mix test', 'rspec', 'phpunit', 'swift test', 'deno test'];

export type TestResult = 'passed' | 'failed' | 'unknown';

export interface RecapTest {
  /** The command line, as the ring keeps it. */
  command: string;
  /** The pattern it matched (`go test`): the dock's short name for it. */
  pattern: string;
  result: TestResult;
  at: number;
}

export interface Recap {
  /** Where the recap starts (ms): the since asked for, else the ring's oldest entry. */
  since: number;
  turns: number;
  /** Distinct files written, in the order first written. */
  files: string[];
  commands: number;
  test: RecapTest | null;
  last_said: string | null;
  /** The pane's state now. */
  now: string;
  /** Entries the recap read. */
  entries: number;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/**
 * A matcher for the patterns: each is plain text, found where a word starts and ends (after the
 * start, a space or one of `;&|(`), so `go test` matches `cd api && go test ./...` and not
 * `ergo testing`. Plain text, never a regular expression, so no pattern can be slow.
 */
export function testMatcher(patterns: readonly string[]): (command: string) => string | null {
  const res = patterns
    .slice(0, RECAP_TEST_PATTERNS_MAX)
    .map((p) => p.trim().slice(0, RECAP_TEST_PATTERN_MAX))
    .filter((p) => p !== '')
    .map((p) => ({ p, re: new RegExp(`(?:^|[\\s;&|(])${escapeRe(p)}(?=$|[\\s;&|)])`) }));
  return (command) => res.find((r) => r.re.test(command))?.p ?? null;
}

/** The result of a shell tool call: the done or failed entry that closes it, if one came. */
function resultOf(entries: ActivityEntry[], i: number): TestResult {
  const call = entries[i]!;
  for (let j = i + 1; j < entries.length; j++) {
    const e = entries[j]!;
    if ((e.kind === 'done' || e.kind === 'failed') && e.tool === call.tool) {
      if (e.exit !== undefined && e.exit !== null) return e.exit === 0 ? 'passed' : 'failed';
      return e.kind === 'done' ? 'passed' : 'failed';
    }
    if (e.kind === 'tool' || e.kind === 'said') break;
  }
  return 'unknown';
}

export function recapOf(entries: ActivityEntry[], o: { since?: number; now: string; testPatterns: readonly string[] }): Recap {
  const isTest = testMatcher(o.testPatterns);
  let turns = 0;
  let commands = 0;
  const files: string[] = [];
  const seen = new Set<string>();
  let test: RecapTest | null = null;
  let lastSaid: string | null = null;
  entries.forEach((e, i) => {
    if (e.kind === 'said') {
      turns++;
      if (e.text) lastSaid = e.text;
    } else if (e.kind === 'done' && e.file) {
      for (const f of e.files ?? [e.file]) {
        if (seen.has(f)) continue;
        seen.add(f);
        files.push(f);
      }
    } else if ((e.kind === 'tool' && e.tool && SHELL_TOOLS.has(e.tool)) || e.kind === 'command') {
      commands++;
      const line = e.arg ?? e.text;
      const pattern = isTest(line);
      if (pattern) {
        const result: TestResult = e.kind === 'command' ? (e.exit === 0 ? 'passed' : e.exit == null ? 'unknown' : 'failed') : resultOf(entries, i);
        test = { command: line, pattern, result, at: e.at };
      }
    }
  });
  return { since: o.since ?? entries[0]?.at ?? Date.now(), turns, files, commands, test, last_said: lastSaid, now: o.now, entries: entries.length };
}

/** 42s, 42m, 3h 5m: how long ago, for a person. */
export function ago(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h}h ${m % 60}m` : `${h}h`;
}

function clock(at: number): string {
  const d = new Date(at);
  return `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
}

function plural(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

export function filesText(files: string[], shown = RECAP_FILES_SHOWN): string {
  if (files.length === 0) return 'No files written';
  const names = files.slice(0, shown).join(', ');
  return `${plural(files.length, 'file')}: ${names}${files.length > shown ? ` and ${files.length - shown} more` : ''}`;
}

function testText(t: RecapTest | null, nowMs: number): string {
  if (!t) return 'No test run';
  const when = `${ago(nowMs - t.at)} ago`;
  if (t.result === 'unknown') return `Tests: ${t.command} ran ${when}, nothing said whether it passed`;
  return `Tests: ${t.command} ${t.result} ${when}`;
}

/** The recap as `tuios agent-log --recap` and the Inbox print it, one fact a line. */
export function recapLines(r: Recap, nowMs = Date.now(), o: { head?: string; filesShown?: number } = {}): string[] {
  return [
    o.head ?? `Since ${clock(r.since)} (${ago(nowMs - r.since)} ago)`,
    `${plural(r.turns, 'turn')}. ${filesText(r.files, o.filesShown)}`,
    `${plural(r.commands, 'command')}. ${testText(r.test, nowMs)}`,
    ...(r.last_said ? [`Last said: ${r.last_said}`] : []),
    `Now: ${r.now}`,
  ];
}

/** Where the agent is, as the dock's line says it. */
export function whereNow(state: string): string {
  switch (state) {
    case 'idle':
    case 'done':
      return 'at prompt';
    case 'needs_input':
      return 'waiting on you';
    case 'none':
      return 'gone';
    default:
      return state;
  }
}

/** The dock's one line: `api while you were away (42m): 3 turns, 6 files, 11 commands, go test passed, at prompt`. */
export function awayLine(name: string, awayMs: number, r: Recap): string {
  const parts = [plural(r.turns, 'turn'), plural(r.files.length, 'file'), plural(r.commands, 'command')];
  if (r.test) parts.push(r.test.result === 'unknown' ? `${r.test.pattern} ran` : `${r.test.pattern} ${r.test.result}`);
  parts.push(whereNow(r.now));
  return `${name} while you were away (${ago(awayMs)}): ${parts.join(', ')}`;
}
