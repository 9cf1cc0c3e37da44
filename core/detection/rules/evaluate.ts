// The rule engine's one pass: a screen, a title or a notification in, a verdict out, with a
// trace of every rule when asked. explain-agent-screen runs this same pass, so the two cannot
// disagree. Pure: no PTY, no socket, no clock.
import { evalGroup, containsToken, type Subject } from './predicate.js';
import { extractRegion, regionName, tailOf, type RegionSpec } from './regions.js';
import type { Rule, RuleBlock, RuleState } from './compile.js';
import type { BlockKind } from '../../agent-state/state.js';
import { findBoxes, boxesHolding, dialogMessage, type Box } from './dialog.js';
import { RULE_MESSAGE_MAX } from '../../limits.js';

export interface Verdict {
  /** null: no rule decided (no opinion), or a skip-state rule froze the last state. */
  state: RuleState | null;
  kind: BlockKind;
  message: string;
  rule: Rule | null;
  freeze: boolean;
  /** The dialog box a show = "dialog" rule read (exactly one, or answers are not offered). */
  box: Box | null;
  /** How many boxes held the dialog's words (answers need exactly one). */
  boxes: number;
}

export interface RuleTrace {
  id: string;
  priority: number;
  state: RuleState | 'skip' | null;
  region: string;
  fired: boolean;
  why: string | null;
  /** The text a rule reading a narrower region than the tail saw there (null: no_region). */
  regionText?: string[] | null;
}

export interface Evaluation {
  verdict: Verdict;
  traces: RuleTrace[];
  tail: string[];
}

const NONE: Verdict = { state: null, kind: '', message: '', rule: null, freeze: false, box: null, boxes: 0 };

function subject(lines: string[], fold: boolean, joinLines: boolean, token = false): Subject {
  const raw = lines.join('\n');
  const searchable = joinLines ? lines.map((l) => l.trim()).join(' ') : raw;
  const hay = fold ? searchable.toLowerCase() : searchable;
  return { raw, contains: token ? (n) => containsToken(hay, n) : (n) => hay.includes(n) };
}

function cleanMessage(m: string): string {
  const one = m.replace(/\s+/g, ' ').trim();
  return one.length > RULE_MESSAGE_MAX ? one.slice(0, RULE_MESSAGE_MAX - 1) + '…' : one;
}

/** The rule's message: its text, with {1}..{9} filled from message_from's match on the region. */
/**
 * The last message each rule made, with the region text it was made from. A prompt stands on the
 * screen for as long as the person takes, and a look follows every repaint (a spinner turning
 * above it): the same text gives the same message, without running message_from again (RE2 takes
 * the text over to UTF-8 on every call). One entry per rule, so it holds at most one region text
 * per rule of the loaded manifests.
 */
const lastMessage = new WeakMap<Rule, { text: string; message: string }>();

export function ruleMessage(rule: Rule, regionText: string): string {
  const last = lastMessage.get(rule);
  if (last && last.text === regionText) return last.message;
  const message = makeMessage(rule, regionText);
  lastMessage.set(rule, { text: regionText, message });
  return message;
}

function makeMessage(rule: Rule, regionText: string): string {
  let msg = rule.message;
  if (rule.messageFrom) {
    const m = rule.messageFrom.exec(regionText);
    if (m) {
      if (msg === '') msg = m[1] ?? m[0] ?? '';
      else msg = msg.replace(/\{(\d)\}/g, (_, d: string) => m[Number(d)] ?? '');
    } else msg = msg.replace(/\{(\d)\}/g, '');
  }
  return cleanMessage(msg);
}

function decide(rule: Rule, regionText: string, box: Box | null, boxes: number): Verdict {
  if (rule.state === null) return { ...NONE, rule, freeze: true };
  // A rule's own message (and message_from) wins over the one a dialog's fields make.
  const own = rule.message !== '' || rule.messageFrom !== null;
  const message = box && rule.dialog && !own ? dialogMessage(box, rule) : ruleMessage(rule, regionText);
  return { state: rule.state, kind: rule.kind, message, rule, freeze: false, box, boxes };
}

/** The screen tier: the bottom of the live screen against the manifest's screen rules. */
export function evaluateScreen(block: RuleBlock, screen: string[], trace = false): Evaluation {
  const tail = tailOf(screen, block.lines);
  const traces: RuleTrace[] = [];
  let verdict: Verdict = NONE;
  let boxes: Box[] | null = null;
  // Rules reading the same region share its lines and its searchable text within one look.
  const seen = new Map<string, { lines: string[] | null; subject?: Subject }>();
  for (const rule of block.rules) {
    if (verdict !== NONE && !trace) break;
    const spec = rule.region as RegionSpec;
    const t: RuleTrace = { id: rule.id, priority: rule.priority, state: rule.state ?? 'skip', region: regionName(spec), fired: false, why: null };
    if (trace) traces.push(t);
    if (rule.dialog) {
      boxes ??= findBoxes(screen);
      const holding = boxesHolding(boxes, rule, block.foldCase);
      if (holding.length === 0) {
        t.why = boxes.length === 0 ? 'no bordered box on the screen' : 'no box holds every string of the rule';
        continue;
      }
      const boxText = [holding[0]!.title, ...holding[0]!.lines].filter(Boolean);
      const text = boxText.join('\n');
      const r = evalGroup(rule.group, subject(boxText, block.foldCase, false));
      if (!r.ok) {
        t.why = r.why;
        continue;
      }
      t.fired = verdict === NONE;
      if (!t.fired) t.why = 'matched, but a higher rule decided first';
      else verdict = decide(rule, text, holding.length === 1 ? holding[0]! : null, holding.length);
      continue;
    }
    const key = regionName(spec);
    let reg = seen.get(key);
    if (!reg) seen.set(key, (reg = extractRegion(tail, spec)));
    if (trace && spec.kind !== 'tail') t.regionText = reg.lines;
    if (reg.lines === null) {
      t.why = 'no_region';
      continue;
    }
    reg.subject ??= subject(reg.lines, block.foldCase, spec.kind === 'after_last_horizontal_rule');
    const r = evalGroup(rule.group, reg.subject);
    if (!r.ok) {
      t.why = r.why;
      continue;
    }
    t.fired = verdict === NONE;
    if (!t.fired) t.why = 'matched, but a higher rule decided first';
    else verdict = decide(rule, reg.lines.join('\n'), null, 0);
  }
  return { verdict, traces, tail };
}

/**
 * Title rules: the window title (or the last OSC 9;4 report, region osc_progress) with whole-token
 * substrings. `region` picks which rules run: a progress report runs only the osc_progress ones.
 */
export function evaluateTitle(block: RuleBlock, text: string, region: 'title' | 'osc_progress', trace = false): Evaluation {
  const traces: RuleTrace[] = [];
  let verdict: Verdict = NONE;
  for (const rule of block.rules) {
    if (rule.region !== region) continue;
    if (verdict !== NONE && !trace) break;
    const t: RuleTrace = { id: rule.id, priority: rule.priority, state: rule.state ?? 'skip', region, fired: false, why: null };
    if (trace) traces.push(t);
    const r = evalGroup(rule.group, subject([text], block.foldCase, false, region === 'title'));
    if (!r.ok) {
      t.why = r.why;
      continue;
    }
    t.fired = verdict === NONE;
    if (!t.fired) t.why = 'matched, but a higher rule decided first';
    else verdict = decide(rule, text, null, 0);
  }
  return { verdict, traces, tail: [text] };
}

/** Notify rules: the notification's title and body as one text, title first, matched anywhere. */
export function evaluateNotify(block: RuleBlock, title: string, body: string, trace = false): Evaluation {
  const text = [title, body].filter(Boolean).join(' ');
  const traces: RuleTrace[] = [];
  let verdict: Verdict = NONE;
  for (const rule of block.rules) {
    if (verdict !== NONE && !trace) break;
    const t: RuleTrace = { id: rule.id, priority: rule.priority, state: rule.state ?? 'skip', region: 'notification', fired: false, why: null };
    if (trace) traces.push(t);
    const r = evalGroup(rule.group, subject([text], block.foldCase, false));
    if (!r.ok) {
      t.why = r.why;
      continue;
    }
    t.fired = verdict === NONE;
    if (!t.fired) t.why = 'matched, but a higher rule decided first';
    else {
      verdict = decide(rule, text, null, 0);
      // The claim's message is the notification's own words, fronted by the rule's kind.
      if (!rule.message && !rule.messageFrom) verdict.message = cleanMessage(rule.kind ? `${rule.kind}: ${text}` : text);
    }
  }
  return { verdict, traces, tail: [text] };
}
