// explain-agent-screen: the tail as the classifier reads it, every rule, which fired and why each
// other refused, and the title half. It also classifies a captured screen with no pane
// (--screen-file), which is how a manifest author checks a rule against a screen someone sent.
import { z } from 'zod';
import { readFileSync, statSync } from 'node:fs';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { classifyCapture, type Classification } from '../detection/rules/classify.js';
import { evaluateTitle, type Evaluation, type Verdict } from '../detection/rules/evaluate.js';
import { findHarness } from '../detection/manifest.js';
import { parseFixture, SCREEN_MARK } from '../detection/fixture.js';
import { progressText } from '../screen/osc-reports.js';
import { MAX_TAIL_LINES } from '../limits.js';
import { STATES, KINDS } from '../agent-state/state.js';

const RULE_STATES = ['needs_input', 'working', 'idle', 'done'] as const;
const kindSchema = z.enum([...KINDS, '']);

/** A verdict: the state a rule decided (null: none, or a freeze), its kind, message and rule id. */
const verdictSchema = z.object({
  state: z.enum(RULE_STATES).nullable(),
  kind: kindSchema,
  message: z.string(),
  rule: z.string().nullable(),
  freeze: z.boolean(),
});

/** One rule's trace: whether it fired and, when not, why. */
const traceSchema = z.object({
  id: z.string(),
  priority: z.number(),
  state: z.enum([...RULE_STATES, 'skip']).nullable(),
  region: z.string(),
  fired: z.boolean(),
  why: z.string().nullable(),
  region_text: z.array(z.string()).nullable().optional(),
});

function verdictJson(v: Verdict | null): z.input<typeof verdictSchema> {
  if (!v) return { state: null, kind: '', message: '', rule: null, freeze: false };
  return { state: v.freeze ? null : v.state, kind: v.kind, message: v.message, rule: v.rule?.id ?? null, freeze: v.freeze };
}

function tracesJson(e: Evaluation | null) {
  return (e?.traces ?? []).map((t) => ({ id: t.id, priority: t.priority, state: t.state, region: t.region, fired: t.fired, why: t.why, ...(t.regionText !== undefined ? { region_text: t.regionText } : {}) }));
}

/** The text a rule reading a narrower region saw there, indented under the rule. */
function regionLines(text: string[] | null | undefined): string[] {
  if (text === undefined) return [];
  if (text === null) return ['        | (region not on the screen)'];
  return text.map((l) => `        | ${l}`);
}

/** What the daemon would publish from this screen, title and progress report alone. */
function publishedJson(c: Classification) {
  return { state: c.state, kind: c.kind, message: c.message, rule: c.rule, tier: c.tier, freeze: c.freeze, order_assumed: c.orderAssumed, claims: c.claims };
}

function publishedLine(c: Classification): string {
  if (!c.tier) return c.freeze ? 'freeze: the screen keeps what it held; no other tier claims' : 'none: no tier claims';
  const what = `${c.state}${c.kind ? ` (${c.kind})` : ''}${c.message ? `: ${c.message}` : ''}`;
  return `${what} by the ${c.tier} (${c.rule ?? 'no rule'})${c.orderAssumed ? ', taking the title as later than the progress report' : ''}`;
}

export const explainAgentScreen = defineVerb({
  name: 'explain-agent-screen',
  summary: 'What the screen and title rules read on a pane (or a captured screen file), rule by rule',
  help: 'With --screen-file PATH (a fixture or plain text) and --harness H it classifies a capture with no pane; --title and --progress give what the capture\'s title and OSC 9;4 report were.',
  target: 'window-optional',
  mutates: false,
  params: z.object({
    harness: z.string().max(64).optional().describe('Run this harness\'s rules (default: the pane\'s)'),
    lines: z.number().int().min(1).max(MAX_TAIL_LINES).optional().describe('Read this many non-empty lines of tail'),
    screen_file: z.string().max(4096).optional().describe('Classify this captured screen instead of a pane'),
    title: z.string().max(4096).optional().describe('With --screen-file: the title the capture had'),
    progress: z.string().max(32).optional().describe('With --screen-file: the last OSC 9;4 report, e.g. 4;3'),
  }),
  result: z.object({
    harness: z.string(),
    manifest_source: z.string(),
    replaces_bundled: z.boolean(),
    ...verdictSchema.shape,
    tail: z.array(z.string()),
    rules: z.array(traceSchema),
    title: z.object({ title: z.string(), progress: z.string().nullable(), ...verdictSchema.shape, rules: z.array(traceSchema) }),
    progress_rules: z.object({ ...verdictSchema.shape, rules: z.array(traceSchema) }).nullable(),
    published: z.object({
      state: z.enum(STATES),
      kind: kindSchema,
      message: z.string(),
      rule: z.string().nullable(),
      tier: z.enum(['screen', 'title', 'progress']).nullable(),
      freeze: z.boolean(),
      order_assumed: z.boolean(),
      claims: z.array(z.object({ tier: z.enum(['screen', 'title', 'progress']), state: z.enum(STATES), kind: kindSchema, message: z.string(), rule: z.string().nullable() })),
    }),
    text: z.string(),
  }),
  print: (r) => r.text,
  run({ params, window, svc }) {
    let screen: string[];
    let title: string;
    let progress: string | undefined;
    let harness = params.harness ?? null;
    if (params.screen_file) {
      let text: string;
      try {
        if (statSync(params.screen_file).size > 1024 * 1024) throw new Error('larger than 1 MiB');
        text = readFileSync(params.screen_file, 'utf8');
      } catch (e) {
        throw new TuiosError('invalid_params', `The screen file cannot be read: ${(e as Error).message}.`, undefined, { field: 'screen_file' });
      }
      if (text.includes(`\n${SCREEN_MARK}\n`)) {
        const f = parseFixture(text, params.screen_file);
        screen = f.lines;
        title = params.title ?? f.title;
        progress = params.progress ?? f.progress;
        harness ??= f.harness;
      } else {
        screen = text.replace(/\n$/, '').split('\n');
        title = params.title ?? '';
        progress = params.progress;
      }
    } else {
      if (!window) throw new TuiosError('window_not_found', 'explain-agent-screen needs a pane (-w) or --screen-file.');
      screen = window.screen.screenLines();
      title = window.title;
      progress = progressText(window.screen.lastProgress);
      harness ??= svc.agents.harnessOf(window);
    }
    if (!harness) {
      throw new TuiosError('not_found', 'Nothing has named a harness for this pane.', 'Name one with --harness (e.g. --harness claude-code) to try its rules.');
    }
    const m = findHarness(svc.manifests, harness);
    if (!m) throw new TuiosError('not_found', `There is no manifest for ${harness}.`, `Known: ${svc.manifests.list.map((x) => x.id).join(', ')}`, { field: 'harness' });
    const rules = params.lines && m.rules.screen ? { ...m.rules, screen: { ...m.rules.screen, lines: params.lines } } : m.rules;
    // The look (screen and title rules) is what the top-level fields report, as they always have;
    // `published` adds the progress report and the precedence between the tiers' claims.
    const c = classifyCapture(rules, { lines: screen, title, progress }, true);
    const d = c.look;
    const prog = progress && rules.title ? evaluateTitle(rules.title, progress, 'osc_progress', true) : null;
    const text = [
      `harness ${m.id} (${m.origin === 'bundled' ? 'bundled' : m.origin}${m.replacesBundled ? ', replaces the bundled one' : ''})`,
      `decision: ${d.decided ? `${d.decided.state}${d.decided.kind ? ` (${d.decided.kind})` : ''}${d.decided.message ? `: ${d.decided.message}` : ''} by ${d.decided.rule?.id}` : d.freeze ? 'freeze (a skip-state rule matched)' : 'no rule decides'}`,
      '',
      '--- tail as the classifier reads it ---',
      ...(d.screen?.tail ?? []),
      '--- screen rules ---',
      ...tracesJson(d.screen).flatMap((t) => [`${t.fired ? 'FIRED' : '     '} ${t.id} [${t.state}, p${t.priority}, ${t.region}]${t.why ? `: ${t.why}` : ''}`, ...regionLines(t.region_text)]),
      '--- title ---',
      `title: ${JSON.stringify(title)}  progress: ${progress ?? 'none'}`,
      ...tracesJson(d.title).map((t) => `${t.fired ? 'FIRED' : '     '} ${t.id} [${t.state}, p${t.priority}]${t.why ? `: ${t.why}` : ''}`),
      '--- published (the look, the progress report and precedence) ---',
      publishedLine(c),
    ].join('\n');
    return {
      harness: m.id,
      manifest_source: m.origin,
      replaces_bundled: m.replacesBundled,
      ...verdictJson(d.decided ?? (d.freeze ? d.screen!.verdict : null)),
      tail: d.screen?.tail ?? [],
      rules: tracesJson(d.screen),
      title: { title, progress: progress ?? null, ...verdictJson(d.title?.verdict ?? null), rules: tracesJson(d.title) },
      progress_rules: prog ? { ...verdictJson(prog.verdict), rules: tracesJson(prog) } : null,
      published: publishedJson(c),
      text,
    };
  },
});
