// Alerts (spec: Alerts): a dock line for state changes and Inbox arrivals, an in-band notification
// to the client's own terminal (written into the stream the TUI is drawn through, so it reaches
// the person's terminal even over ssh) and a sound, all under the policy of [notifications.agent]
// and [notifications.mail] (core/alerts/policy.ts): which states fire, the settle window (a state
// that flips back within it raises nothing), quiet hours, the sound cooldown, the escape form
// (OSC 9, 777 or 99) and the sound mode (BEL to the person's terminal, or a cue played here).
// Arrivals close together (each within ALERT_BURST_QUIET_MS of the last) are one message, one notification and one sound: "5 agents need you in
// fan-1, fan-2, fan-3 and 2 more"; a single arrival names its session.
import { ALERT_BURST_MS, DOCK_MESSAGE_MS } from './limits.js';
import { stateMark, type Glyphs, type Mark } from './marks.js';
import { clean } from './text.js';
import { cueFile, decide, notificationEscape, SoundCooldown, type Decision } from '../core/alerts/policy.js';
import { Settler } from '../core/alerts/settle.js';
import { ALERT_BURST_QUIET_MS } from '../core/limits.js';
import { alertLine } from '../core/alerts/text.js';
import type { Notifications } from '../core/alerts/config-schema.js';

export interface Alert {
  windowId: string | null;
  /** What a flip back cancels by (the pane, else the Inbox item); default the window id. */
  key?: string;
  session: string;
  who: string;
  /** needs_input, errored, done, or an Inbox kind (approval, question, ask, mail). */
  state: string;
  what: string;
  needsYou: boolean;
  /** Mail from one agent to another: alerts only with [notifications.mail] between_agents, and names who it went to. */
  to?: string;
}

export interface DockMessage {
  text: string;
  mark: Mark | null;
  until: number;
  /** An alert's message: a click on it opens the item (its pane here, else the agents view). */
  opens?: { windowId: string | null };
}

export interface DockSink {
  /** Redraw. */
  changed(): void;
  /** Bytes for the client's own terminal: the notification escape, the bell. */
  notify(seq: string): void;
  /** Play a cue file (sound_mode = "system"). */
  cue(file: string): void;
}


interface Decided {
  alert: Alert;
  d: Decision;
}

export class Dock {
  message: DockMessage | null = null;
  private pending: Decided[] = [];
  private timer: NodeJS.Timeout | null = null;
  private burstStart = 0;
  private readonly settling = new Settler();
  private readonly cooldown: SoundCooldown;

  constructor(
    /** The client's glyph set (true/false: the built-in ascii/unicode set). */
    private readonly glyphs: () => Glyphs | boolean,
    private readonly sink: DockSink,
    /** The policy in effect now (config.toml is read again when it changes). */
    private readonly policy: () => Notifications,
  ) {
    this.cooldown = new SoundCooldown(() => this.policy().agent.cooldown_ms);
  }

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

  /** An alert, if the policy raises one: it waits out the settle window, then joins the burst. */
  alert(a: Alert): void {
    const d = decide(this.policy(), { kind: a.state, betweenAgents: a.to !== undefined }, new Date());
    if (!d) return;
    this.settling.hold(keyOf(a), d.settleMs, () => this.queue({ alert: a, d }));
  }

  /** What the alert was about stopped being true (the pane left the state, the item closed): it raises nothing if it has not gone out. */
  cancel(key: string): void {
    this.settling.cancel(key);
    this.pending = this.pending.filter((p) => keyOf(p.alert) !== key);
  }

  /** The burst closes ALERT_BURST_QUIET_MS after its last arrival, ALERT_BURST_MS after its first at the latest. */
  private queue(x: Decided): void {
    const now = Date.now();
    if (this.pending.length === 0) this.burstStart = now;
    this.pending.push(x);
    if (this.timer) clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(ALERT_BURST_QUIET_MS, this.burstStart + ALERT_BURST_MS - now));
    this.timer = setTimeout(() => this.flush(), wait);
    this.timer.unref();
  }

  private flush(): void {
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const agent = this.policy().agent;
    const docked = batch.filter((x) => x.d.dock).map((x) => x.alert);
    if (docked.length > 0) {
      const needs = docked.some((a) => a.needsYou);
      const lead = docked.find((a) => a.needsYou) ?? docked[0]!;
      this.say(summarize(docked), stateMark(lead.state === 'done' ? 'done' : needs ? (lead.state === 'errored' ? 'errored' : 'needs_input') : lead.state, true, this.glyphs()));
      // One item opens its pane; a burst, a linked host's item or mail between agents, the agents view.
      this.message!.opens = { windowId: docked.length === 1 && !lead.to ? lead.windowId : null };
    }
    let seq = '';
    const notified = batch.filter((x) => x.d.notify).map((x) => x.alert);
    if (notified.length > 0) seq += notificationEscape(agent.escape, summarize(notified));
    const sounding = batch.filter((x) => x.d.sound);
    if (sounding.length > 0 && this.cooldown.take(Date.now())) {
      if (agent.sound_mode === 'bell') seq += '\x07';
      else {
        const lead = sounding.find((x) => x.alert.needsYou) ?? sounding[0]!;
        const file = cueFile(agent, lead.d.governs);
        if (file) this.sink.cue(file);
      }
    }
    if (seq) this.sink.notify(seq);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.settling.dispose();
  }
}

function keyOf(a: Alert): string {
  return a.key ?? a.windowId ?? `${a.session}:${a.who}:${a.state}`;
}

/** One message for a batch: a single arrival names its session; a burst counts and names sessions. */
export function summarize(batch: Alert[]): string {
  if (batch.length === 1) {
    const a = batch[0]!;
    if (a.to !== undefined) return `${a.session}: ${a.who} wrote to ${a.to}${a.what ? ` · ${a.what}` : ''}`;
    return alertLine(a.session, a.who, a.state, a.what);
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
