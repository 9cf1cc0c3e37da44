// The title of the person's terminal as an attached client sets it (OSC 2 in the client's own
// stream). By default it is the client's own: the focused pane's state mark, then the session
// and the window's name (spec: Indicator, "the window title"; the mark shows for a window with no
// name too). A title a tool asks for (set-client-title, client.window_title.set) wins until it
// is cleared, and the client's own comes back. The terminal's own title is saved on xterm's title
// stack before the first one and given back when the client leaves.
import type { Services } from '../core/daemon/services.js';
import type { Session } from '../core/model/model.js';
import type { Window } from '../core/model/window.js';
import { stateMark, type Glyphs, type Mark } from './marks.js';
import { CLIENT_TITLE_MAX } from '../core/limits.js';

/** xterm's title stack: save the terminal's own title, and give it back. */
export const TITLE_PUSH = '\x1b[22;2t';
export const TITLE_POP = '\x1b[23;2t';

/** The client's own title: "▲ api: claude", "▲ api" for a window with no name, "api" for no pane. */
export function clientTitle(mark: Mark | null, sessionName: string, windowName: string | null): string {
  const where = windowName ? `${sessionName}: ${windowName}` : sessionName;
  return mark ? `${mark.glyph} ${where}` : where;
}

/** Control characters out (the title is written inside an OSC), cut to CLIENT_TITLE_MAX characters. */
function safe(title: string): string {
  // eslint-disable-next-line no-control-regex
  return Array.from(title.replace(/[\x00-\x1f\x7f-\x9f]/g, ' ')).slice(0, CLIENT_TITLE_MAX).join('');
}

export class TerminalTitle {
  private pushed = false;
  /** The title the terminal shows now, as this client last set it. */
  private shown: string | null = null;
  private own = '';
  /** A tool's title, which wins over the client's own until it is cleared. */
  private tool: string | null = null;

  /** A tool sets the title (null: clears it, and the client's own comes back). Bytes for the client. */
  setByTool(title: string | null): string {
    this.tool = title === null ? null : safe(title);
    return this.show();
  }

  /** The client's own title for this frame. Bytes for the client when the terminal's title changes. */
  frame(own: string): string {
    this.own = safe(own);
    return this.show();
  }

  /** Gives the terminal its own title back (the client leaves). */
  leave(): string {
    if (!this.pushed) return '';
    this.pushed = false;
    this.shown = null;
    return TITLE_POP;
  }

  private show(): string {
    const want = this.tool ?? this.own;
    if (want === this.shown || (!want && this.shown === null)) return '';
    const push = this.pushed ? '' : TITLE_PUSH;
    this.pushed = true;
    this.shown = want;
    return `${push}\x1b]2;${want}\x07`;
  }
}

/** The client's own title for what it shows: the session, and its focused pane with its mark. */
export function titleFor(svc: Services, s: Session, focused: Window | undefined, glyphs: Glyphs): string {
  if (!focused) return clientTitle(null, s.name, null);
  const info = svc.agents.info(focused);
  return clientTitle(stateMark(String(info.state), !!info.finished_unread, glyphs, Number(info.subagents ?? 0)), s.name, focused.name || null);
}
