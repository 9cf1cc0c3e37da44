// Answering a prompt without attaching (spec: Answering a prompt without attaching). A screen rule
// with an [answers] block knows what the prompt looks like and which keys answer it; peek shows
// it (as the pane's text: untrusted) and respond presses the keys after four checks, under a lock
// per window, so a prompt that changed or was already answered is never pressed.
import { createHash } from 'node:crypto';
import type { Window } from '../model/window.js';
import type { AgentStore } from '../agent-state/store.js';
import type { ManifestSet } from '../detection/manifest.js';

/** What reading a pane's prompt takes: its state and harness, and the harness's rules. */
export interface PromptDeps {
  readonly agents: AgentStore;
  readonly manifests: ManifestSet;
}
import type { Answers, AnswerSpec, Rule } from '../detection/rules/compile.js';
import { decideLook } from '../detection/rules/look.js';
import { extractRegion, tailOf, type RegionSpec } from '../detection/rules/regions.js';
import { encodeKey } from '../pty/keys.js';
import { TuiosError } from '../errors.js';

export interface PromptOption {
  n: number;
  label: string;
  selected: boolean;
}

export interface Prompt {
  window_id: string;
  prompt_id: string;
  rule: string;
  kind: string;
  message: string;
  lines: string[];
  options: PromptOption[];
  /** The actions this prompt offers now: approve, approve_always, deny, choose, text. */
  offered: string[];
  since: number;
  answers: Answers;
  ruleRef: Rule;
}

/** Spinner frames: the braille block and the quarter circles. */
const SPINNER_RE = /[\u2800-\u28ff◐◑◒◓]/g;
const OPTION_RE = /^\s*([❯>›▶•*●]\s*)?(\d)[.)]\s+(.+?)\s*$/;
/** A box's sides and a scrollbar's thumb, around the text of a line drawn inside a dialog. */
const SIDES_RE = /^\s*(?:[│┃║]\s?)+|(?:\s?[│┃║█▐▌])+\s*$/g;

/**
 * The numbered options on a prompt: the last run numbered from 1 (a screen may show an earlier
 * numbered list, such as a tips panel, above the dialog).
 */
export function parseOptions(lines: string[]): PromptOption[] {
  let run: PromptOption[] = [];
  let last: PromptOption[] = [];
  for (const l of lines) {
    const m = OPTION_RE.exec(l.replace(SIDES_RE, ''));
    if (!m) continue;
    const o = { n: Number(m[2]), label: m[3]!, selected: !!m[1] };
    if (o.n === 1) run = [o];
    else if (run.length && o.n === run[run.length - 1]!.n + 1) run.push(o);
    else continue;
    last = run;
  }
  return last;
}

/** The option an answer names: the one whose label starts with `option`, without case. */
function optionFor(spec: AnswerSpec, options: PromptOption[]): PromptOption | undefined {
  if (!spec.option) return undefined;
  const want = spec.option.toLowerCase();
  return options.find((o) => o.label.toLowerCase().startsWith(want));
}

function offered(a: Answers, options: PromptOption[]): string[] {
  const out: string[] = [];
  for (const k of ['approve', 'approve_always', 'deny'] as const) {
    const spec = a[k];
    if (!spec) continue;
    if (spec.option && !optionFor(spec, options)) continue; // offered only while such an option is on screen
    out.push(k);
  }
  if (a.choose && options.length) out.push('choose');
  if (a.text) out.push('text');
  return out;
}

/** Reads the prompt on a pane now, or null when no rule with answers reads one. */
export function readPrompt(svc: PromptDeps, w: Window): Prompt | null {
  const h = svc.agents.harnessOf(w);
  const m = h ? svc.manifests.byId.get(h) : undefined;
  if (!m || svc.agents.stateOf(w) !== 'needs_input') return null;
  const screen = w.screen.screenLines();
  const d = decideLook(m.rules, screen, w.title);
  const v = d.screen?.verdict;
  const rule = v?.rule;
  if (!v || !rule || v.state !== 'needs_input' || !rule.answers) return null;
  if (rule.dialog && !v.box) return null; // answers only when exactly one box holds the dialog
  const lines = v.box ? v.box.lines : (extractRegion(tailOf(screen, m.rules.screen!.lines), rule.region as RegionSpec).lines ?? []);
  const options = parseOptions(lines);
  const since = svc.agents.recordOf(w)?.enteredAt ?? 0;
  // A spinner frame is not a change of prompt (Cline and Qwen Code animate one beside theirs).
  const still = lines.map((l) => l.replace(SPINNER_RE, '*'));
  const prompt_id = createHash('sha256').update(JSON.stringify([rule.id, still, options, since])).digest('hex').slice(0, 16);
  return { window_id: w.id, prompt_id, rule: rule.id, kind: v.kind, message: v.message, lines, options, offered: offered(rule.answers, options), since, answers: rule.answers, ruleRef: rule };
}

/** The bytes an answer presses: its keys when it names keys, else its option's digit. */
export function answerBytes(p: Prompt, action: string, choice: number | undefined, w: Window): string {
  const modes = { applicationCursorKeys: w.screen.modes.applicationCursorKeys };
  if (action === 'choose') {
    if (!choice || !p.options.some((o) => o.n === choice)) {
      throw new TuiosError('invalid_params', `There is no option ${choice} on the prompt.`, `Options: ${p.options.map((o) => `${o.n}. ${o.label}`).join('; ')}`, { field: 'choice', offered: p.offered });
    }
    return String(choice);
  }
  const spec = p.answers[action as 'approve' | 'approve_always' | 'deny'];
  if (!spec) throw new TuiosError('invalid_params', `${action} is not an answer this prompt offers.`, `Offered: ${p.offered.join(', ')}`, { field: 'action', offered: p.offered });
  if (spec.keys.length) {
    const names: Record<string, string> = { enter: 'Enter', esc: 'Escape', tab: 'Tab', space: 'Space', up: 'Up', down: 'Down', left: 'Left', right: 'Right', backspace: 'BSpace' };
    return spec.keys.map((k) => (names[k] ? (encodeKey(names[k]!, modes) ?? '') : k)).join('');
  }
  const opt = optionFor(spec, p.options);
  if (!opt) throw new TuiosError('invalid_params', `${action} is not offered: its option is not on the screen.`, `Offered: ${p.offered.join(', ')}`, { field: 'action', offered: p.offered });
  return String(opt.n);
}
