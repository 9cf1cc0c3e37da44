// explain-agent-detect: what the detector sees in a pane, in plain words, and why.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { explainText, type ProcInfo } from '../detection/identify.js';
import { confidenceOf } from '../agent-state/state.js';
import type { Services } from '../daemon/services.js';

/** How the running release is read and what "covered" means (list-agents says it too). */
export const VERSION_HELP =
  'harness_version is the running release, read without running it: from the package.json of the npm package the agent runs from (its executable, or the script an interpreter runs), else from a release folder in its executable\'s path; read once per process. version_covered is true when that release lies from the oldest to the newest release its manifest\'s rules were captured from (captured_versions, both included), false when it is newer than the newest or older than the oldest (its screens may have changed, so a screen rule may miss), and null when the release cannot be read or the manifest lists no captured release.';

function procJson(p: ProcInfo) {
  return { pid: p.pid, comm: p.comm, argv: p.argv, exe: p.exe };
}

function proc(p: ProcInfo | null) {
  return p ? procJson(p) : null;
}

const procSchema = z.object({ pid: z.number().int(), comm: z.string().nullable(), argv: z.array(z.string()).nullable(), exe: z.string().nullable() });

/** The detector's screen looks at the pane: how many, and which screen generation each read. */
const looksSchema = z.object({ made: z.number().int(), read_generation: z.number().int(), screen_generation: z.number().int() }).nullable();

/** The pane's agent state, as get-agent-state answers it. */
const agentStateSchema = z.record(z.string(), z.unknown());

type VersionView = NonNullable<ReturnType<Services['detector']['explainVersion']>>;

function versionJson(c: VersionView | null) {
  return c ? { harness_version: c.version, version_covered: c.covered, read_from: c.from, captured_versions: c.captured, note: c.note } : null;
}

function versionLine(c: VersionView): string {
  return c.version ? `${c.note} (read from ${c.from})` : c.note;
}

export const explainAgentDetect = defineVerb({
  name: 'explain-agent-detect',
  summary: 'Why a pane is (or is not) taken for an agent: the process read, the manifests tried, the words not counted',
  help: VERSION_HELP,
  target: 'window',
  mutates: false,
  params: z.object({}),
  // No verdict (the foreground cannot be read, or the program exited): only what is known.
  result: z.discriminatedUnion('verdict', [
    z.object({ window_id: z.string(), verdict: z.literal('none'), text: z.string(), agent_state: agentStateSchema, looks: looksSchema }),
    z.object({
      window_id: z.string(),
      verdict: z.enum(['agent', 'shell', 'other', 'unreadable']),
      harness: z.string().nullable(),
      identity: z.enum(['report', 'manifest', 'list', 'hint', '']),
      confidence: z.enum(['certain', 'strong', 'none']),
      predicate: z.string().nullable(),
      evidence: z.array(z.string()),
      leader: procSchema.nullable(),
      process: procSchema.nullable(),
      behind: z.array(procSchema),
      interpreter: z.boolean(),
      eligible_token: z.string().nullable(),
      hint: z.string().nullable(),
      manifests: z.array(z.object({ id: z.string(), matched: z.string().nullable(), refused: z.array(z.string()) })),
      not_counted: z.array(z.string()),
      manifest_failures: z.array(z.object({ file: z.string(), reason: z.string() })),
      agent_state: agentStateSchema,
      looks: looksSchema,
      version: z
        .object({ harness_version: z.string().nullable(), version_covered: z.boolean().nullable(), read_from: z.string().nullable(), captured_versions: z.array(z.string()).nullable(), note: z.string() })
        .nullable(),
      text: z.string(),
    }),
  ]),
  print: (r) => r.text,
  run({ window, svc }) {
    const w = window!;
    const v = svc.detector.explain(w);
    const info = svc.agents.info(w);
    // The screen looks made so far; the last one read the screen as it is now when the generations match.
    const made = svc.detector.looksOf(w);
    const looks = made ? { ...made, screen_generation: w.screen.generation } : null;
    const version = v ? svc.detector.explainVersion(w, v) : null;
    if (!v) {
      return { window_id: w.id, verdict: 'none' as const, text: w.running ? 'The pane\'s foreground cannot be read here, so tuios has no opinion.' : 'The pane\'s program has exited.', agent_state: info, looks };
    }
    return {
      window_id: w.id,
      verdict: v.kind,
      harness: v.harness,
      identity: v.identity,
      confidence: confidenceOf(v.identity),
      predicate: v.predicate,
      evidence: v.evidence,
      leader: proc(v.leader),
      process: proc(v.process),
      behind: v.behind.map(procJson),
      interpreter: v.interpreter,
      eligible_token: v.token,
      hint: v.hint,
      manifests: v.checks.map((c) => ({ id: c.id, matched: c.matched, refused: c.matched ? [] : c.reasons })),
      not_counted: v.notCounted,
      manifest_failures: svc.manifests.failures,
      agent_state: info,
      looks,
      version: versionJson(version),
      text: [explainText(v), ...(version ? ['', `version: ${versionLine(version)}`] : [])].join('\n'),
    };
  },
});
