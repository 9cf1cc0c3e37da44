// The help overlay (ctrl+b ?): the keys, in sections, drawn from the key tables that dispatch
// them (app-keys.ts, agents-keys.ts, mailbox-keys.ts, the editor's), so it cannot list a key that does
// something else. The Agents section is left out until an agent has been seen (spec: Before the
// first agent); the keys work the same either way.
import type { Canvas } from './canvas.js';
import { attr, roleAttr, A_BOLD, PLAIN } from './canvas.js';
import type { Rect } from './pane-draw.js';
import type { Token } from './keys.js';
import { drawBox, type Overlay, type TuiHost } from './overlay.js';
import { fit, textWidth } from './text.js';
import { dispatchKey, helpEntries, OTHER_KEY, type KeyTable } from './key-table.js';
import { GLOBAL_KEYS, PREFIX_KEYS } from './app-keys.js';
import { AGENTS_LIST_KEYS, AGENTS_PEEK_KEYS } from './agents-keys.js';
import { MAILBOX_LIST_KEYS, MAILBOX_THREAD_KEYS } from './mailbox-keys.js';
import { EDITOR_KEYS } from './editor.js';
import { COMPARE_LIST_KEYS } from './compare-keys.js';
import { REVIEW_BROWSE_KEYS } from './review-keys.js';
import { RAIL_KEYS } from './rail-control.js';

/** A heading, or a key column and what it does. */
export type HelpLine = string | [string, string];

/** Any key closes the help. */
const HELP_KEYS: KeyTable<null, HelpOverlay> = [{ keys: [OTHER_KEY], label: 'Any key', help: 'closes this', run: (v) => v.close() }];

const KEY_COLUMN = 20;
/** The box's widest: a wide screen takes the views' keys in fewer lines. */
const MAX_WIDTH = 120;

/** What a view's table says, as `label help` items wrapped into the text column under one label. */
function summary(label: string, tables: Array<KeyTable<never, never, unknown>>, width: number): HelpLine[] {
  const items = [...new Map(tables.flatMap((t) => helpEntries(t)).map((e) => [`${e.label} ${e.help}`, e])).keys()];
  const out: HelpLine[] = [];
  let line = '';
  for (const it of items) {
    const next = line ? `${line}, ${it}` : it;
    if (line && textWidth(next) + 1 > width) {
      out.push([out.length ? '' : label, `${line},`]);
      line = it;
    } else line = next;
  }
  if (line) out.push([out.length ? '' : label, line]);
  return out;
}

function rows(entries: Array<{ label: string; help: string }>): HelpLine[] {
  return entries.map((e) => [e.label, e.help] as [string, string]);
}

/** The overlay's lines for a text column `width` wide; `agents`: with the Agents section. */
export function helpLines(agents: boolean, width: number): HelpLine[] {
  const lines: HelpLine[] = ['Panes (after ctrl+b)', ...rows(helpEntries(PREFIX_KEYS, 'panes')), '', 'Without ctrl+b', ...rows(helpEntries(GLOBAL_KEYS))];
  if (agents) {
    lines.push('', 'Agents (after ctrl+b)', ...rows(helpEntries(PREFIX_KEYS, 'agents')));
    lines.push(...summary('in the view', [AGENTS_LIST_KEYS], width));
    lines.push(...summary('on the rail (click it)', [RAIL_KEYS.filter((r) => !r.keys.includes(OTHER_KEY))], width));
    lines.push(...summary('peeking (space)', [AGENTS_PEEK_KEYS], width));
    lines.push(...summary('mailbox (m)', [MAILBOX_LIST_KEYS, MAILBOX_THREAD_KEYS], width));
    lines.push(...summary('compare (ctrl+b F)', [COMPARE_LIST_KEYS], width));
    lines.push(...summary('review (ctrl+b v)', [REVIEW_BROWSE_KEYS], width));
  }
  lines.push(...summary('typing a reply', [EDITOR_KEYS.filter((r) => r.footer === false && !r.keys.includes(OTHER_KEY))], width));
  const close = HELP_KEYS[0]!;
  lines.push('', `${close.label} ${close.help}.`);
  return lines;
}

export class HelpOverlay implements Overlay {
  readonly fullScreen = false;

  constructor(
    private readonly host: TuiHost,
    private readonly focusAgents = false,
  ) {}

  key(tok: Token): void {
    dispatchKey(HELP_KEYS, null, this, tok);
  }

  close(): void {
    this.host.closeOverlay();
  }

  draw(cv: Canvas, area: Rect): null {
    const agents = this.host.agentsSeen || this.focusAgents;
    const w = Math.min(area.w, MAX_WIDTH);
    const lines = helpLines(agents, w - 4 - KEY_COLUMN - 1);
    const inner = drawBox(cv, area, w, lines.length + 2, 'tuios help', this.host.ascii, roleAttr('accent', A_BOLD), PLAIN);
    let y = inner.y;
    for (const l of lines) {
      if (y >= inner.y + inner.h) break;
      if (typeof l === 'string') cv.text(inner.x, y, fit(l, inner.w), attr(-1, -1, A_BOLD), inner.x + inner.w);
      else {
        cv.text(inner.x, y, fit(l[0], KEY_COLUMN), roleAttr('accent'), inner.x + inner.w);
        cv.text(inner.x + KEY_COLUMN + 1, y, fit(l[1], inner.w - KEY_COLUMN - 1), PLAIN, inner.x + inner.w);
      }
      y++;
    }
    return null;
  }
}
