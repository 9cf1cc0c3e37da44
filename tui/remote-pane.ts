// A pane on a linked host, opened from the agents view (enter or ctrl+] on its row): drawn from a
// replica emulator fed over the link's pane stream, through the same ScreenSource as a local pane.
// Keys typed here reach the pane there with send-keys and send-text across the link, one call at
// a time so they keep their order; when that host's policy refuses `write` the view turns
// read-only and the dock says why. ctrl+b q closes the view, and with it the stream. A dropped
// link leaves the last screen, marked disconnected; when the link is back the stream opens again.
import type { Canvas } from './canvas.js';
import { attr, roleAttr, A_BOLD, A_INVERSE } from './canvas.js';
import type { Rect } from './pane-draw.js';
import { drawSource } from './pane-draw.js';
import type { Token } from './keys.js';
import type { Overlay, TuiHost } from './overlay.js';
import type { AgentRow } from './rows.js';
import type { SourceModes } from './source.js';
import { Replica } from './replica.js';
import { stateMark } from './marks.js';
import { fit } from './text.js';
import { REMOTE_KEYS_MAX_PENDING_BYTES, REMOTE_KEYS_PER_CALL_BYTES } from './limits.js';

/** A refusal that will not change while the view is open: the host does not let this one write. */
function refusesWrite(code: string, message: string): boolean {
  return code === 'forbidden' && /may not change anything|read-only/.test(message);
}

export class RemotePaneView implements Overlay {
  readonly fullScreen = true;
  private replica: Replica;
  private readonly windowId: string;
  private readonly linkSub: { dispose(): void };
  /** Why keys do not reach the pane (the host refused write), or null while they do. */
  private readOnly: string | null = null;
  private pending = '';
  private sending = false;
  private closed = false;

  constructor(
    private readonly host: TuiHost,
    private readonly row: AgentRow,
    size: { cols: number; rows: number },
  ) {
    this.windowId = row.remote?.window_id ?? row.target.slice(row.target.indexOf(':') + 1);
    this.replica = this.open(size);
    this.linkSub = host.svc.bus.on('host-link', (ev) => {
      if (ev.host !== row.host || ev.state !== 'up' || this.closed || this.replica.state.kind !== 'closed') return;
      // The link is back: a fresh stream, which starts with the pane's screen as it is now.
      const last = this.replica;
      this.replica = this.open({ cols: last.source.cols, rows: last.source.rows });
      last.dispose();
      this.host.dock.say(`${row.host} is back: ${row.name} is live again.`);
      this.host.redraw();
    });
    host.dock.say(`${row.name} runs on ${row.host}: keys go to it there. ctrl+b q closes this view.`);
  }

  private open(size: { cols: number; rows: number }): Replica {
    return new Replica(this.host.svc, this.row.host!, this.windowId, size.cols, size.rows, () => this.host.redraw());
  }

  key(tok: Token): void {
    const st = this.replica.state;
    if (st.kind === 'closed') return this.host.dock.say(`Disconnected from ${this.row.host}: ${st.reason}. ctrl+b q closes this view.`, stateMark('errored', false, this.host.glyphs));
    if (this.readOnly) return this.host.dock.say(this.readOnly);
    if (tok.t === 'mouse') return;
    if (tok.t === 'paste') {
      this.host.track(this.call('send-text', { window: this.row.target, text: tok.text }));
      return;
    }
    if (this.pending.length + tok.raw.length > REMOTE_KEYS_MAX_PENDING_BYTES) {
      return this.host.dock.say(`Typing faster than ${this.row.host} takes it: that key was dropped.`);
    }
    this.pending += tok.raw;
    if (!this.sending) this.host.track(this.flush());
  }

  /** Sends what was typed, in order, one call at a time; what is typed meanwhile goes in the next. */
  private async flush(): Promise<void> {
    this.sending = true;
    try {
      while (this.pending && !this.closed && !this.readOnly) {
        const bytes = this.pending.slice(0, REMOTE_KEYS_PER_CALL_BYTES);
        this.pending = this.pending.slice(bytes.length);
        await this.call('send-keys', { window: this.row.target, keys: [bytes], literal: true });
      }
    } finally {
      this.sending = false;
    }
  }

  private async call(verb: string, params: Record<string, unknown>): Promise<void> {
    const r = await this.host.acts.call(verb, params, true);
    if (r.ok || this.closed) return;
    if (refusesWrite(r.code, r.message)) {
      this.readOnly = `Read-only: ${r.message}`;
      this.pending = '';
      this.host.dock.say(this.readOnly, stateMark('errored', false, this.host.glyphs));
    } else this.host.dock.say(`Not typed on ${this.row.host}: ${r.message}`, stateMark('errored', false, this.host.glyphs));
    this.host.redraw();
  }

  draw(cv: Canvas, area: Rect, _now: number): { x: number; y: number } | null {
    const ascii = this.host.ascii;
    const st = this.replica.state;
    cv.fill(area.x, area.y, area.w, area.h);
    const bar = attr(-1, -1, A_INVERSE);
    cv.fill(area.x, area.y, area.w, 1, bar);
    const status = st.kind === 'connecting' ? 'connecting' : st.kind === 'live' ? (this.readOnly ? 'read-only' : 'live') : `disconnected: ${st.reason}`;
    const end = area.x + area.w;
    let x = cv.text(area.x + 1, area.y, fit(this.row.name, Math.max(8, area.w - 40), ascii), attr(-1, -1, A_INVERSE | A_BOLD), end);
    x = cv.text(x + 2, area.y, fit(`on ${this.row.host} · ${status}`, Math.max(0, end - x - 22), ascii), st.kind === 'closed' ? roleAttr('error', A_INVERSE | A_BOLD) : bar, end);
    cv.text(Math.max(x + 2, end - 18), area.y, 'ctrl+b q closes', bar, end);
    const src = this.replica.source;
    const body: Rect = { x: area.x, y: area.y + 1, w: Math.min(area.w, src.cols), h: Math.min(area.h - 1, src.rows) };
    if (st.kind !== 'connecting') drawSource(cv, src, body);
    if (st.kind !== 'live' || this.readOnly || src.modes().cursorHidden) return null;
    const c = src.cursor();
    return c.x < body.w && c.y < body.h ? { x: body.x + c.x, y: body.y + c.y } : null;
  }

  /** The host's pane asks for its keys in its own modes; mouse reports are not passed on. */
  paneModes(): SourceModes | null {
    if (this.replica.state.kind !== 'live' || this.readOnly) return null;
    return { ...this.replica.source.modes(), mouse: 'none' };
  }

  dispose(): void {
    this.closed = true;
    this.linkSub.dispose();
    this.replica.dispose();
  }
}
