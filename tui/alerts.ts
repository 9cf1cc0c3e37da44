// Alerts (spec: Alerts): a dock line for state changes and Inbox arrivals, and an in-band
// notification to the client's own terminal (OSC 9, written into the stream the TUI is drawn
// through, so it reaches the person's terminal even over ssh) with a bell for what needs you.
// Arrivals close together are one message: a fan's burst says "5 agents need you in ...".
import { ALERT_BURST_MS, DOCK_MESSAGE_MS } from './limits.js';
import { stateMark, type Mark } from './marks.js';
import { clean, fit } from './text.js';

export interface Alert {
  windowId: string | null;
  session: string;
  who: string;
  /** needs_input, errored, done, or an Inbox kind (ask, mail). */
  state: string;
  what: string;
  needsYou: boolean;
}

export interface DockMessage {
  text: string;
  mark: Mark | null;
  until: number;
}

const PHRASE: Record<string, string> = {
  needs_input: 'needs you',
  approval: 'needs approval',
  question: 'has a question',
  ask: 'asks you',
  mail: 'wrote to you',
  errored: 'stopped on an error',
  done: 'finished',
};

export class Dock {
  message: DockMessage | null = null;
  private pending: Alert[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly ascii: () => boolean,
    /** Redraw, and the in-band sequence for the client's terminal. */
    private readonly sink: { changed(): void; notify(seq: string): void },
  ) {}

  /** A message of the client's own (what a key did, why the daemon refused). */
  say(text: string, mark: Mark | null = null, ms = DOCK_MESSAGE_MS): void {
    this.message = { text: clean(text), mark, until: Date.now() + ms };
    this.sink.changed();
  }

  /** The message to draw now, or null once it has run out. */
  current(now = Date.now()): DockMessage | null {
    if (this.message && this.message.until <= now) this.message = null;
    return this.message;
  }

  alert(a: Alert): void {
    this.pending.push(a);
    if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), ALERT_BURST_MS);
      this.timer.unref();
    }
  }

  private flush(): void {
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const text = summarize(batch);
    const needs = batch.some((a) => a.needsYou);
    const lead = batch.find((a) => a.needsYou) ?? batch[0]!;
    this.say(text, stateMark(lead.state === 'done' ? 'done' : needs ? (lead.state === 'errored' ? 'errored' : 'needs_input') : lead.state, true, this.ascii()));
    // OSC 9 carries no control characters: the text was cleaned, and it is cut short.
    let seq = `\x1b]9;tuios: ${fit(text, 180, true).replace(/[\x07\x1b]/g, '')}\x07`;
    if (needs) seq += '\x07';
    this.sink.notify(seq);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** One message for a batch: a single arrival names its session; a burst counts and names sessions. */
export function summarize(batch: Alert[]): string {
  if (batch.length === 1) {
    const a = batch[0]!;
    const phrase = PHRASE[a.state] ?? a.state;
    return `${a.session}: ${a.who} ${phrase}${a.what ? ` · ${a.what}` : ''}`;
  }
  const needs = batch.filter((a) => a.needsYou);
  const group = needs.length > 0 ? needs : batch;
  const sessions = [...new Set(group.map((a) => a.session))];
  const named = sessions.length <= 3 ? joinAnd(sessions) : `${sessions.slice(0, 3).join(', ')} and ${sessions.length - 3} more`;
  const verb = needs.length > 0 ? 'need you' : 'finished';
  return `${group.length} agents ${verb} in ${named}`;
}

function joinAnd(xs: string[]): string {
  if (xs.length <= 1) return xs.join('');
  return `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]}`;
}
