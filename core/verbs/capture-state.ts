// capture-state: "this state is wrong", in one step. Saves what the detector saw on a pane (the
// screen as text and with its colours, the title, the last progress report, the last few
// notifications, the harness and its version where the process says it, and tuios's verdict with
// the rules' explanation) as a capture in the fixtures' format, with the state the person says it
// should be as its expect. `npm run accuracy -- --dir DIR` scores a folder of them; one copied
// under fixtures/screens/<harness>/ becomes a golden test.
import { z } from 'zod';
import { join } from 'node:path';
import { defineVerb, type VerbContext } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { STATES, SOURCES, type AgentState } from '../agent-state/state.js';
import { formatFixture } from '../detection/fixture.js';
import { explainText } from '../detection/identify.js';
import { captureFolder, captureStamp, writeCapture } from '../detection/captures.js';
import { cleanUntrusted } from '../mail/fence.js';
import { stripControls } from '../pty/paste.js';
import { CAPTURES_MAX, CAPTURE_ANSI_MAX_BYTES, CAPTURE_NOTE_MAX_BYTES } from '../limits.js';
import type { Window } from '../model/window.js';
import { paneFixture } from './capture.js';
import { explainAgentScreen } from './screen.js';
import { str } from '../rpc/print-helpers.js';

/** What a capture expects a screen rule to decide (none: that no rule decides). */
const EXPECT_STATES = ['working', 'needs_input', 'idle', 'none'] as const;
type ExpectState = (typeof EXPECT_STATES)[number];

/**
 * What a screen or title rule can be asked to decide for the state the person names: a screen
 * shows working, needs_input or idle, or nothing that tells (`none`). A finished turn looks like
 * the prompt it returns to, so `done` expects idle (only a report or a notify rule says done);
 * errored and unknown are not on a screen, so they expect that no rule decides.
 */
export function expectFor(want: AgentState): ExpectState {
  if (want === 'working' || want === 'needs_input' || want === 'idle') return want;
  return want === 'done' ? 'idle' : 'none';
}

/** One line of text from a person or a pane: invisible and control characters gone, breaks as spaces. */
function oneLine(s: string): string {
  return cleanUntrusted(s).replace(/[\n\t]+/g, ' ').trim();
}

type Trace = { id: string; priority: number; state: string; region?: string; fired: boolean; why: string | null };

/** A rule's trace as explain-agent-screen prints it: one line. */
function traceLine(t: Trace): string {
  return `${t.fired ? 'FIRED' : '     '} ${t.id} [${t.state}, p${t.priority}${t.region ? `, ${t.region}` : ''}]${t.why ? `: ${t.why}` : ''}`;
}

/**
 * explain-agent-screen's answer less what the capture already holds (the tail and the region texts
 * are the screen's lines, the title and progress are in the header, `text` repeats the rest), with
 * its rule traces one line each.
 */
function compactExplain(v: unknown, key = ''): unknown {
  // Nothing said is left out: no nulls (TOML has none), empty strings, false flags, empty lists.
  if (v === null || v === undefined || v === '' || v === false) return undefined;
  if (Array.isArray(v)) {
    const list = key === 'rules' ? (v as Trace[]).map(traceLine) : v.map((x) => compactExplain(x)).filter((x) => x !== undefined);
    return list.length ? list : undefined;
  }
  if (typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (k === 'tail' || k === 'text' || k === 'region_text' || (key === 'title' && (k === 'title' || k === 'progress'))) continue;
    const c = compactExplain(x, k);
    if (c !== undefined) out[k] = c;
  }
  return Object.keys(out).length ? out : undefined;
}

/** The screen's rows with their colours as SGR, as many whole rows as CAPTURE_ANSI_MAX_BYTES holds. */
function screenSgr(w: Window): { text: string; rows: number } {
  const e = w.screen;
  const rows: string[] = [];
  let bytes = 0;
  for (let y = 0; y < e.rows; y++) {
    const line = e.lineSgr(e.viewportTop + y);
    bytes += Buffer.byteLength(line) + 1;
    if (bytes > CAPTURE_ANSI_MAX_BYTES) break;
    rows.push(line);
  }
  return { text: `${rows.join('\n')}\x1b[0m\n`, rows: rows.length };
}

/** No nulls for TOML: a field with no value is left out. */
function defined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));
}

export const captureState = defineVerb({
  name: 'capture-state',
  summary: 'Save what the detector saw on a pane, with the state it should have been, as a fixture capture',
  help:
    'Writes $XDG_STATE_HOME/tuios/captures/<harness>/<time>-<want>-<cols>x<rows>.screen (0600) in the format of fixtures/screens: ' +
    'the screen, title and last OSC 9;4 report, with harness, program_version (or unknown), provenance measured, obtained (when, which window, ' +
    'what the person said) and expect.state; and, beside the fixture fields, want, note, tuios\'s verdict then (state, source, rule), ' +
    'the rules\' explanation (explain-agent-screen, less what the capture holds already), the identification (explain-agent-detect), ' +
    'the last OSC 9/777/99 notifications and the foreground process. The screen with its colours is <same name>.ansi beside it. ' +
    'expect.state is what a screen rule can decide: working, needs_input and idle as said, done as idle (a finished turn looks like its prompt), ' +
    `errored, unknown and none as none (no rule decides). The newest ${CAPTURES_MAX} captures are kept; older ones are removed. ` +
    'Score a folder of them with npm run accuracy -- --dir DIR; copy one under fixtures/screens/<harness>/ to make it a golden test.',
  target: 'window',
  mutates: true,
  cli: { short: { m: 'note' }, usage: 'capture-state [-w WINDOW] --want STATE [-m NOTE] [--json]' },
  params: z.object({
    want: z.enum(STATES).describe('The state the pane should have had'),
    note: z.string().max(CAPTURE_NOTE_MAX_BYTES).optional().describe(`Why, in a sentence (at most ${CAPTURE_NOTE_MAX_BYTES} bytes)`),
  }),
  result: z.object({
    path: z.string(),
    ansi_path: z.string(),
    harness: z.string().nullable(),
    program_version: z.string().nullable(),
    want: z.enum(STATES),
    expect_state: z.enum(EXPECT_STATES),
    verdict: z.object({ state: z.enum(STATES), source: z.enum(SOURCES).nullable(), rule: z.string().nullable() }),
    removed: z.number().int(),
  }),
  print: (r) => {
    const v = r.verdict;
    const by = [v.source, v.rule ? `rule ${v.rule}` : ''].filter(Boolean).join(', ');
    return `${str(r.path)}\ntuios said ${v.state}${by ? ` (${by})` : ''}; you said ${str(r.want)}, so the capture expects ${str(r.expect_state)}. Its colours: ${str(r.ansi_path)}`;
  },
  run(ctx) {
    const { params, svc } = ctx;
    const w = ctx.window!;
    if (params.note !== undefined && Buffer.byteLength(params.note) > CAPTURE_NOTE_MAX_BYTES) {
      throw new TuiosError('invalid_params', `The note is ${Buffer.byteLength(params.note)} bytes; a note holds at most ${CAPTURE_NOTE_MAX_BYTES}.`, 'Say it in a sentence or two.', { field: 'note' });
    }
    const note = params.note === undefined ? '' : oneLine(params.note);
    const now = new Date();
    const attributed = svc.agents.harnessOf(w);
    const info = svc.agents.info(w);
    const origin = svc.agents.recordOf(w)?.view().origin ?? null;
    // The rules' reading of this same screen, through explain-agent-screen itself (it runs at once).
    let explain: Record<string, unknown> | null = null;
    if (attributed) {
      try {
        explain = explainAgentScreen.run({ ...(ctx as unknown as VerbContext<Record<string, unknown>>), params: { harness: attributed } }) as Record<string, unknown>;
      } catch (e) {
        if (!(e instanceof TuiosError)) throw e;
        explain = { error: e.message };
      }
    }
    const fx = paneFixture(w, attributed, {});
    const proc = fx.extra.process as { comm: string | null; argv: string[] | null; exe: string } | undefined;
    const foreground = proc ? defined({ comm: proc.comm === null ? null : stripControls(proc.comm), argv: proc.argv?.map(stripControls), exe: stripControls(proc.exe) }) : undefined;
    const detected = w.host ? null : svc.detector.explain(w);
    // The release the detector read when it identified the agent (core/detection/harness-version.ts).
    const coverage = svc.detector.coverageOf(w);
    const version = coverage?.version ?? null;
    const want = params.want;
    const winName = oneLine(w.name) || w.id;
    const obtained = `captured by tuios capture-state on ${now.toISOString()} from window ${winName}; the person said it should be ${want}${note ? `: ${note}` : ''}`;
    const ex = explain as { rule?: string; title?: { rule?: string }; progress_rules?: { rule?: string } | null } | null;
    const rule = origin === 'screen' ? ex?.rule : origin === 'osc:title' ? ex?.title?.rule : origin === 'osc:progress' ? ex?.progress_rules?.rule : undefined;
    const verdict = defined({
      state: info.state,
      kind: info.kind || undefined,
      message: info.message || undefined,
      source: info.source,
      origin,
      rule,
      harness: attributed,
      identity: info.identity || undefined,
      confidence: info.confidence,
    });
    const notifications = w.screen.recentNotifications.map((n) => ({ osc: n.osc, title: oneLine(n.title), body: oneLine(n.body), at: new Date(n.at).toISOString() }));
    const detect = detected
      ? defined({ verdict: detected.kind, harness: detected.harness, identity: detected.identity || undefined, predicate: detected.predicate, text: cleanUntrusted(explainText(detected)) })
      : undefined;
    const explained = explain ? compactExplain(explain) : undefined;
    const ansi = screenSgr(w);
    const expectState = expectFor(want);
    const base = `${captureStamp(now)}-${want}-${w.cols}x${w.rows}`;
    const root = join(svc.paths.stateDir, 'captures');
    const written = writeCapture(
      root,
      captureFolder(attributed),
      base,
      (ansiName) =>
        formatFixture({
          ...fx,
          harness: attributed ?? 'unknown',
          program_version: version ?? 'unknown',
          provenance: 'measured',
          obtained,
          title: stripControls(fx.title),
          lines: fx.lines.map(stripControls),
          expect: { state: expectState },
          extra: {
            want,
            ...(note ? { note } : {}),
            ansi_file: ansiName,
            ...(ansi.rows < w.screen.rows ? { ansi_rows: ansi.rows } : {}),
            verdict,
            ...(coverage ? { version: defined({ read_from: coverage.from, covered: coverage.covered, captured_versions: coverage.captured ?? undefined, note: coverage.note }) } : {}),
            ...(explained ? { explain: explained } : {}),
            ...(detect ? { detect } : {}),
            ...(notifications.length ? { notifications } : {}),
            ...(foreground ? { process: foreground } : {}),
          },
        }),
      ansi.text,
      CAPTURES_MAX,
    );
    return {
      path: written.path,
      ansi_path: written.ansiPath,
      harness: attributed,
      program_version: version,
      want,
      expect_state: expectState,
      // info's fields are untyped: its state is the store's, its source one of SOURCES or null.
      verdict: { state: svc.agents.stateOf(w), source: SOURCES.find((x) => x === info.source) ?? null, rule: rule ?? null },
      removed: written.removed,
    };
  },
});
