// The help overlay (ctrl+b ?): the keys, in sections. The Agents section is left out until an
// agent has been seen (spec: Before the first agent); the keys work the same either way.
import type { Canvas } from './canvas.js';
import { attr, roleAttr, A_BOLD, PLAIN } from './canvas.js';
import type { Rect } from './pane-draw.js';
import type { Token } from './keys.js';
import { drawBox, type Overlay, type TuiHost } from './overlay.js';
import { fit } from './text.js';

const PANES: Array<[string, string]> = [
  ['c', 'new window in this workspace'],
  ['%  "', 'split: side by side, one above the other'],
  ['arrows, Alt+arrows', 'move the focus'],
  ['z', 'zoom the pane'],
  ['x', 'close the pane (asks first)'],
  ['1-9  n  p', 'workspace 1-9, next, previous'],
  ['s', 'sessions'],
  ['d', 'detach'],
  ['ctrl+b', 'send ctrl+b to the pane'],
  ['?', 'this help'],
];

const AGENTS: Array<[string, string]> = [
  ['i', 'the agents view'],
  ['o', 'the oldest item that needs you (again: the next)'],
  ['O', 'the newest finished turn not seen (again: older)'],
  ['M', 'the agents view on the mail for you'],
  ['in the view', 'j k g G enter, space peek, 1-9 a A d answer'],
  ['', 'r reply, d z u S dismiss snooze undo snoozed'],
  ['', '/ select, f filter, x * mark, ctrl+] go, esc q'],
  ['', 'm mailbox: enter open, r reply, n new'],
  ['', '! wrong state: save what tuios saw'],
  ['q', 'close a view: a linked host\'s pane, opened with enter'],
];

export class HelpOverlay implements Overlay {
  readonly fullScreen = false;

  constructor(
    private readonly host: TuiHost,
    private readonly focusAgents = false,
  ) {}

  key(_tok: Token): void {
    this.host.closeOverlay();
  }

  draw(cv: Canvas, area: Rect): null {
    const agents = this.host.agentsSeen || this.focusAgents;
    const lines: Array<[string, string] | string> = ['Panes (after ctrl+b)', ...PANES];
    if (agents) lines.push('', 'Agents (after ctrl+b)', ...AGENTS);
    lines.push('', 'Any key closes this.');
    const inner = drawBox(cv, area, 64, lines.length + 2, 'tuios help', this.host.ascii, roleAttr('accent', A_BOLD), PLAIN);
    let y = inner.y;
    for (const l of lines) {
      if (y >= inner.y + inner.h) break;
      if (typeof l === 'string') cv.text(inner.x, y, fit(l, inner.w), attr(-1, -1, A_BOLD), inner.x + inner.w);
      else {
        cv.text(inner.x, y, fit(l[0], 20), roleAttr('accent'), inner.x + inner.w);
        cv.text(inner.x + 21, y, fit(l[1], inner.w - 21), PLAIN, inner.x + inner.w);
      }
      y++;
    }
    return null;
  }
}
