// capture-pane: the visible screen, or the last N lines with scrollback, plain or with SGR.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { MAX_CAPTURE_LINES } from '../limits.js';
import { formatFixture, type Fixture } from '../detection/fixture.js';
import { readExe } from '../pty/procfs.js';
import type { Window } from '../model/window.js';
import { progressText } from '../screen/osc-reports.js';

export interface FixtureFields {
  harness?: string;
  program_version?: string;
  expect_state?: string;
  expect_kind?: string;
  expect_message?: string;
  obtained?: string;
}

/** The pane's live screen as a fixture (see core/detection/fixture.ts), with what the daemon knows filled in. */
export function paneFixture(w: Window, attributed: string | null, o: FixtureFields): Fixture {
  const fg = w.foreground();
  // A pane on another machine names its pids there: no exe is read for them here.
  const process = fg ? { comm: fg.comm, argv: fg.argv, exe: w.host ? '' : (readExe(fg.pid) ?? '') } : undefined;
  return {
    // The harness the agent store attributed the pane to (the one whose rules read it).
    harness: o.harness ?? attributed ?? '',
    program_version: o.program_version ?? '',
    provenance: 'measured',
    obtained: o.obtained ?? `measured on a live tuios pane ${w.cols}x${w.rows} (capture-pane --fixture)`,
    cols: w.cols,
    rows: w.rows,
    title: w.title,
    progress: progressText(w.screen.lastProgress),
    expect: { state: o.expect_state ?? 'none', kind: o.expect_kind, message: o.expect_message },
    lines: w.screen.screenLines(),
    extra: process ? { process } : {},
  };
}

export const capturePane = defineVerb({
  name: 'capture-pane',
  mcp: { tool: 'tuios_capture_pane', data: true },
  summary: 'Print a window\'s screen, or its last N lines of scrollback (-e keeps colours)',
  help: 'The result has `lines` (one string per row), `cursor`, the size and the title. Trailing blank rows are kept for the visible screen so rows line up with the pane.',
  target: 'window',
  mutates: false,
  cli: { short: { e: 'escapes', S: 'lines' }, usage: 'capture-pane [-w WINDOW] [--lines N] [-e] [--json]' },
  params: z.object({
    lines: z.number().int().min(1).max(MAX_CAPTURE_LINES).optional().describe('The last N lines, reaching into scrollback'),
    escapes: z.boolean().optional().describe('Keep colours and attributes as SGR escapes'),
    fixture: z.boolean().optional().describe('Answer the screen, title and progress as a fixture file (fixtures/screens)'),
    harness: z.string().max(64).optional().describe('--fixture: the harness the screen is from'),
    program_version: z.string().max(64).optional().describe('--fixture: the program\'s version'),
    expect_state: z.string().max(32).optional().describe('--fixture: the state the rules must decide (none: no rule)'),
    expect_kind: z.string().max(32).optional().describe('--fixture: the kind they must give'),
    expect_message: z.string().max(300).optional().describe('--fixture: the message they must give'),
    obtained: z.string().max(500).optional().describe('--fixture: how the screen was obtained'),
  }),
  // --fixture answers the fixture file's text; else the screen's lines and what goes with them.
  result: z.union([
    z.object({ window: z.string(), fixture: z.string() }),
    z.object({
      window: z.string(),
      lines: z.array(z.string()),
      cols: z.number().int(),
      rows: z.number().int(),
      cursor: z.object({ x: z.number().int(), y: z.number().int() }),
      title: z.string(),
      progress: z.string().nullable(),
      alternate_screen: z.boolean(),
    }),
  ]),
  print: (r) => ('fixture' in r ? r.fixture.replace(/\n$/, '') : r.lines.join('\n')),
  run({ params, window, svc }) {
    const w = window!;
    if (params.fixture) return { window: w.id, fixture: formatFixture(paneFixture(w, svc.agents.harnessOf(w), params)) };
    const e = w.screen;
    const end = e.viewportTop + e.rows;
    const start = params.lines ? Math.max(0, end - params.lines) : e.viewportTop;
    const lines: string[] = [];
    for (let i = start; i < end; i++) lines.push(params.escapes ? e.lineSgr(i) : e.lineText(i));
    const cursor = e.cursor;
    return {
      window: w.id,
      lines,
      cols: e.cols,
      rows: e.rows,
      cursor: { x: cursor.x, y: cursor.y },
      title: e.title,
      progress: progressText(e.lastProgress) ?? null,
      alternate_screen: e.modes.alternateScreen,
    };
  },
});
