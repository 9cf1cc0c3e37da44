// capture-pane: the visible screen, or the last N lines with scrollback, plain or with SGR.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { MAX_CAPTURE_LINES } from '../limits.js';

export const capturePane = defineVerb({
  name: 'capture-pane',
  summary: 'Print a window\'s screen, or its last N lines of scrollback (-e keeps colours)',
  help: 'The result has `lines` (one string per row), `cursor`, the size and the title. Trailing blank rows are kept for the visible screen so rows line up with the pane.',
  target: 'window',
  mutates: false,
  cli: { short: { e: 'escapes', S: 'lines' }, usage: 'capture-pane [-w WINDOW] [--lines N] [-e] [--json]' },
  params: z.object({
    lines: z.number().int().min(1).max(MAX_CAPTURE_LINES).optional().describe('The last N lines, reaching into scrollback'),
    escapes: z.boolean().optional().describe('Keep colours and attributes as SGR escapes'),
  }),
  run({ params, window }) {
    const w = window!;
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
      alternate_screen: e.modes.alternateScreen,
    };
  },
});

export const captureVerbs = [capturePane];
