// Typing into panes: send-text (a paste) and send-keys (key names). Both go through the window's
// typing lane, so two callers never interleave their bytes.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { encodePaste } from '../pty/paste.js';
import { encodeKeys } from '../pty/keys.js';
import { TuiosError } from '../errors.js';
import { MAX_SEND_KEYS, MAX_SEND_TEXT_BYTES, SUBMIT_DELAY_MS } from '../limits.js';
import type { Window } from '../model/window.js';

function requireRunning(w: Window): void {
  if (!w.running) {
    throw new TuiosError('window_exited', `The program in window ${w.name} has exited; nothing reads what is typed.`, 'Close it with close-window, or open a new one.');
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const sendText = defineVerb({
  name: 'send-text',
  mcp: { tool: 'tuios_send_text', writes: true },
  types: true,
  summary: 'Paste TEXT into a window (bracketed when the program asked for it); --submit presses Enter after',
  help: 'Control characters are removed and line breaks become carriage returns, as a terminal paste does. The paste is bracketed (ESC[200~ ... ESC[201~) only when the program set DECSET 2004.',
  target: 'window',
  mutates: true,
  cli: { positionals: ['text'], usage: 'send-text [-w WINDOW] [--submit] TEXT' },
  params: z.object({
    text: z.string().describe('The text to paste'),
    submit: z.boolean().optional().describe('Press the submit key after the paste'),
  }),
  result: z.object({ window: z.string(), bytes: z.number().int(), bracketed: z.boolean(), submitted: z.boolean() }),
  print: 'none',
  async run({ params, window }) {
    const w = window!;
    requireRunning(w);
    if (Buffer.byteLength(params.text) > MAX_SEND_TEXT_BYTES) {
      throw new TuiosError('invalid_params', `send-text takes at most ${MAX_SEND_TEXT_BYTES} bytes in one call.`, 'Send it in parts.', { field: 'text' });
    }
    return w.typeJob(async () => {
      const bracketed = w.screen.modes.bracketedPaste;
      const bytes = encodePaste(params.text, bracketed);
      w.write(bytes);
      if (params.submit) {
        await sleep(SUBMIT_DELAY_MS);
        w.write('\r');
      }
      return { window: w.id, bytes: Buffer.byteLength(bytes), bracketed, submitted: !!params.submit };
    });
  },
});

export const sendKeys = defineVerb({
  name: 'send-keys',
  mcp: { tool: 'tuios_send_keys', writes: true },
  types: true,
  summary: 'Press keys in a window: Enter, Tab, Escape, Up, C-c, M-x, F1-F12, PageUp, ... or literal text',
  help: 'Each argument is a key name when it is one (tmux names; C- ctrl, M- meta, S- shift), else typed as text. --literal types every argument as text.',
  target: 'window',
  mutates: true,
  cli: { rest: 'keys', short: { l: 'literal' }, usage: 'send-keys [-w WINDOW] [-l] KEY...' },
  params: z.object({
    keys: z.array(z.string()).min(1).max(MAX_SEND_KEYS).describe('Key names or text'),
    literal: z.boolean().optional().describe('Type every argument as text'),
  }),
  result: z.object({ window: z.string(), bytes: z.number().int() }),
  print: 'none',
  async run({ params, window }) {
    const w = window!;
    requireRunning(w);
    return w.typeJob(() => {
      const bytes = encodeKeys(params.keys, { applicationCursorKeys: w.screen.modes.applicationCursorKeys }, !!params.literal);
      w.write(bytes);
      return { window: w.id, bytes: Buffer.byteLength(bytes) };
    });
  },
});
