// Typing a prompt (spec: Typing a prompt; ADR-0076 points 1-3): the text as one paste, bracketed
// when the pane has DECSET 2004 on and the harness takes it, a short wait, then the harness's
// submit key, all as one job on the pane's typing lane. The check that may refuse runs again
// right before the submit key, so a prompt that appeared meanwhile is never answered by Enter.
import type { Window } from '../model/window.js';
import { encodePaste } from '../pty/paste.js';
import { TuiosError } from '../errors.js';
import { pastesOf, type ImagesMode, type PromptPiece } from './image-parts.js';
import { SUBMIT_DELAY_MS, SUBMIT_ECHO_MAX_MS, SUBMIT_PLACEHOLDER_QUIET_MS, SUBMIT_SLOW_MAX_MS, PROMPT_MAX_BYTES } from '../limits.js';

export interface InputSpec {
  submit: 'cr' | 'lf';
  bracketed_paste: boolean;
  focus_before_submit: boolean;
  /** How the harness takes an image's path (image-parts.ts); path_text when the manifest says nothing. */
  images?: ImagesMode;
}

/** Re-exported for core/verbs/fan.ts until the verb records land; the limit is core/limits.ts's. */

export const DEFAULT_INPUT: InputSpec = { submit: 'cr', bracketed_paste: true, focus_before_submit: false };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface TypeResult {
  bytes: number;
  bracketed: boolean;
  submittedAt: number;
}

/**
 * Types `text` and submits it. `recheck` runs before the paste and again before the submit key;
 * it throws to stop (the paste then stays unsubmitted in the input box: the recoverable failure).
 */
export function typePrompt(w: Window, prompt: string | readonly PromptPiece[], input: InputSpec, recheck: () => void, maxBytes = PROMPT_MAX_BYTES): Promise<TypeResult> {
  const text = typeof prompt === 'string' ? prompt : prompt.map((p) => p.text).join('');
  if (Buffer.byteLength(text) > maxBytes) {
    throw new TuiosError('invalid_params', `A prompt is at most ${maxBytes} bytes.`, 'Send it as mail, or attach a file.', { field: 'text' });
  }
  return w.typeJob(async () => {
    if (!w.running) throw new TuiosError('window_exited', `The program in ${w.name} has exited.`);
    recheck();
    const bracketed = input.bracketed_paste && w.screen.modes.bracketedPaste;
    // A raw newline outside a bracketed paste would submit line by line (ADR-0076 point 3).
    if (!bracketed && /[\r\n]/.test(text)) {
      throw new TuiosError('invalid_params', 'The text holds a line break, and this pane takes no bracketed paste, so it would be submitted line by line.', 'Send one line, or mail the rest.', { field: 'text' });
    }
    // An image's path in a paste of its own (spec: `[input] images`), the text around it in its own
    // pastes; each shown before the next goes, so the harness places them in order.
    const pastes = typeof prompt === 'string' ? [text] : pastesOf(prompt, bracketed && input.images === 'path_paste');
    let sent = 0;
    for (const p of pastes) {
      const bytes = encodePaste(p, bracketed);
      const before = w.outputBytes;
      w.write(bytes);
      sent += Buffer.byteLength(bytes);
      await echoed(w, before, p);
    }
    recheck();
    if (input.focus_before_submit && w.screen.modes.sendFocus) w.write('\x1b[I');
    w.write(input.submit === 'lf' ? '\n' : '\r');
    return { bytes: sent + 1, bracketed, submittedAt: Date.now() };
  });
}

/**
 * Waits for the pane to show the paste, then a quiet spell, before the submit key. A TUI busy
 * when the paste arrives reads the paste and a submit key sent right behind it in one read, and
 * may take the key as part of the paste: Gemini CLI 0.61.0 turns an Enter that comes within 40 ms
 * of a paste into a newline (its guard for terminals whose pastes it cannot trust), and on a
 * loaded machine its clearing of that guard lags its drawing of the paste by far more than 40 ms.
 * So any output is not enough: the start of the text must be on the screen, and the spell after
 * it grows with how long the program took to draw it (twice that, SUBMIT_DELAY_MS at least,
 * SUBMIT_SLOW_MAX_MS at most). A harness that shows a long paste as a placeholder never shows the
 * text, and gets the submit key after a longer quiet instead; one that shows nothing at all gets
 * it after SUBMIT_ECHO_MAX_MS.
 */
async function echoed(w: Window, before: number, text: string): Promise<void> {
  const t0 = Date.now();
  const probe = echoProbe(text);
  let seenAt = 0;
  let need = SUBMIT_DELAY_MS;
  await sleep(10);
  while (w.running) {
    const now = Date.now();
    const quietFor = now - w.lastOutputAt;
    const out = w.outputBytes > before;
    if (!seenAt && out && (probe === '' || squeeze(w.screen.screenLines().join('')).includes(probe))) {
      seenAt = now;
      need = Math.max(SUBMIT_DELAY_MS, Math.min(2 * (now - t0), SUBMIT_SLOW_MAX_MS));
    }
    if (seenAt) {
      if (now - seenAt >= need && (quietFor >= SUBMIT_DELAY_MS || now - seenAt >= need + SUBMIT_SLOW_MAX_MS)) return;
    } else if ((out && quietFor >= SUBMIT_PLACEHOLDER_QUIET_MS) || now - t0 >= SUBMIT_ECHO_MAX_MS) {
      return;
    }
    await sleep(seenAt ? Math.max(10, Math.min(need - (now - seenAt), SUBMIT_DELAY_MS - quietFor)) : 10);
  }
}

/** All white space out: a wrapped input box breaks the text at spaces of its own choosing. */
function squeeze(s: string): string {
  return s.replace(/\s+/g, '');
}

/** What of the text the screen must show: its first few visible characters, white space aside. */
export function echoProbe(text: string): string {
  const first = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  // Control characters are not drawn as themselves; a text of them has nothing to look for.
  return [...squeeze(first.replace(/[\x00-\x1f\x7f]/g, ''))].slice(0, ECHO_PROBE_CHARS).join('');
}

/** Characters of the text looked for on the screen: few enough to sit on one row of an input box. */
const ECHO_PROBE_CHARS = 10;

/**
 * Whether the pane still holds the program a submission began with (ADR-0076: identity
 * re-verified before Enter). A program the detector names only meanwhile is the same program,
 * now recognised: a pane marked ready by its agent's own report can be typed into before the
 * detector's first look, and that must not fail the submit.
 */
export function sameOccupant(before: string | null, now: string | null): boolean {
  return before === now || before === null;
}

/** Operation ids: a same-id retry replays the cached result and never types again (ADR-0076). */
export class OpCache {
  private readonly ops = new Map<string, { at: number; result: Promise<unknown> }>();
  constructor(
    private readonly ttlMs = 10 * 60_000,
    private readonly max = 1024,
  ) {}

  run<T>(id: string | undefined, fn: () => Promise<T>): Promise<T> {
    if (!id) return fn();
    const now = Date.now();
    for (const [k, v] of this.ops) if (now - v.at > this.ttlMs) this.ops.delete(k);
    const held = this.ops.get(id);
    if (held) return held.result as Promise<T>;
    const result = fn();
    // A refusal before anything was typed may be retried under the same id; every other outcome is cached.
    result.catch((e: { extra?: { typed?: boolean } }) => {
      if (e && e.extra && e.extra.typed === false) this.ops.delete(id);
    });
    this.ops.set(id, { at: now, result });
    if (this.ops.size > this.max) this.ops.delete(this.ops.keys().next().value!);
    return result;
  }
}
