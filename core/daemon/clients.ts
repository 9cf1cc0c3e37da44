// The attached clients: every drawing client (a TUI over `tuios attach` or an SSH session)
// registers here while it is attached, with the session it shows, the pane area it tiles into and
// the few acts the daemon asks of a client. Verbs reach "the attached client" of the spec through
// this (core never imports tui/): the one that shows the caller's session, else the one that shows
// the active workspace, which is the client the person used last.
import type { Rect } from '../model/layout.js';

/** What a client does for the daemon. Each returns false when it cannot (it closed, or may not show that session). */
export interface ClientActs {
  /** Shows a session, on `workspace` when given (else the session's active one). */
  showSession(sessionId: string, workspace?: number): boolean;
  /** Shows a window: its session and workspace, the focus on it. */
  focusWindow(windowId: string): boolean;
  /** Sets the title of the client's terminal; null clears it (the terminal's own title comes back). */
  setTitle(title: string | null): boolean;
  /** Session state it draws changed outside it (a layout verb): a new frame. */
  redraw(): void;
}

export interface RegisteredClient {
  /** The id attach gave it (svc.person's client id). */
  readonly id: number;
  /** The session it shows now. */
  sessionId(): string;
  /** The area its panes tile into: right of its rail, above its status line. */
  area(): Rect;
  readonly acts: ClientActs;
}

export interface AttachedClientInfo {
  id: number;
  session_id: string;
  area: Rect;
  last_used_at: number;
}

export class AttachedClients {
  private readonly byId = new Map<number, { client: RegisteredClient; usedAt: number; order: number }>();
  private order = 0;
  /** Told when a client attaches or leaves (the pull request poller runs only while one is attached). */
  private readonly watchers = new Set<() => void>();

  /** A client is attached until it calls the returned dispose. */
  register(client: RegisteredClient): { dispose(): void } {
    this.byId.set(client.id, { client, usedAt: Date.now(), order: ++this.order });
    this.tell();
    return {
      dispose: () => {
        this.byId.delete(client.id);
        this.tell();
      },
    };
  }

  /** Calls `fn` each time a client attaches or leaves. */
  watch(fn: () => void): { dispose(): void } {
    this.watchers.add(fn);
    return { dispose: () => void this.watchers.delete(fn) };
  }

  private tell(): void {
    for (const fn of this.watchers) fn();
  }

  /** The person used the client (typed, resized): it is the foreground one from now on. */
  used(id: number): void {
    const e = this.byId.get(id);
    if (e) {
      e.usedAt = Date.now();
      e.order = ++this.order;
    }
  }

  /** The clients, the one used last first. */
  list(): RegisteredClient[] {
    return [...this.byId.values()].sort((a, b) => b.order - a.order).map((e) => e.client);
  }

  info(): AttachedClientInfo[] {
    return [...this.byId.values()].sort((a, b) => b.order - a.order).map((e) => ({ id: e.client.id, session_id: e.client.sessionId(), area: e.client.area(), last_used_at: e.usedAt }));
  }

  /** The client the person used last: the one that shows the active workspace. */
  foreground(): RegisteredClient | null {
    return this.list()[0] ?? null;
  }

  /** The clients that show a session, the one used last first. */
  showing(sessionId: string): RegisteredClient[] {
    return this.list().filter((c) => c.sessionId() === sessionId);
  }

  /**
   * "The attached client" of the spec for a call about `sessionId` (the caller's session, or the
   * session of the pane it names): the one that shows it, else the foreground one; null for none.
   */
  attachedFor(sessionId: string | null): RegisteredClient | null {
    return (sessionId ? this.showing(sessionId)[0] : undefined) ?? this.foreground();
  }

  /** A session's layout changed outside its clients: each that shows it draws again. */
  changed(sessionId: string): void {
    for (const c of this.showing(sessionId)) c.acts.redraw();
  }

  get count(): number {
    return this.byId.size;
  }
}
