// explain-agent-detect: what the detector sees in a pane, in plain words, and why.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { explainText, type ProcInfo } from '../agent/identify.js';
import { confidenceOf } from '../agent/state.js';

function proc(p: ProcInfo | null) {
  return p ? { pid: p.pid, comm: p.comm, argv: p.argv, exe: p.exe } : null;
}

export const explainAgentDetect = defineVerb({
  name: 'explain-agent-detect',
  summary: 'Why a pane is (or is not) taken for an agent: the process read, the manifests tried, the words not counted',
  target: 'window',
  mutates: false,
  params: z.object({}),
  run({ window, svc }) {
    const w = window!;
    const v = svc.detector.explain(w);
    const info = svc.agents.info(w);
    // The screen looks made so far; the last one read the screen as it is now when the generations match.
    const made = svc.detector.looksOf(w);
    const looks = made ? { ...made, screen_generation: w.screen.generation } : null;
    if (!v) {
      return { window_id: w.id, verdict: 'none', text: w.running ? 'The pane\'s foreground cannot be read here, so tuios has no opinion.' : 'The pane\'s program has exited.', agent_state: info, looks };
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
      behind: v.behind.map(proc),
      interpreter: v.interpreter,
      eligible_token: v.token,
      hint: v.hint,
      manifests: v.checks.map((c) => ({ id: c.id, matched: c.matched, refused: c.matched ? [] : c.reasons })),
      not_counted: v.notCounted,
      manifest_failures: svc.manifests.failures,
      agent_state: info,
      looks,
      text: explainText(v),
    };
  },
});

export const detectVerbs = [explainAgentDetect];
