// The alert policy (spec: Alerts, The Inbox): pure answers to "does this alert, and how". What
// fires is chosen by `[notifications.agent]` (states) and, for mail, `[notifications.mail]`, whose
// unset keys follow the agent table; quiet hours hold back the notification and the sound (the
// dock line stays, and the Inbox keeps the item); sound mode, cooldown, cue files, quiet hours and
// the escape come from the agent table alone. The settle window is a delay the caller keeps
// (Settler); this module only says how long it is.
import { ALERT_NOTIFY_TEXT_MAX } from '../limits.js';
import { MAIL_FOLLOWS, QUIET_HOURS_RE, type AgentAlerts, type Notifications } from './config-schema.js';

export interface Outputs {
  dock: boolean;
  notify: boolean;
  sound: boolean;
}

/** What an alert does, and how long it waits to see whether its state holds. */
export interface Decision extends Outputs {
  /** The table that governs it: needs_input, errored, done, or mail. */
  governs: AlertClass;
  settleMs: number;
  /** Inside quiet hours: notify and sound were held back. */
  quiet: boolean;
}

export type AlertClass = 'needs_input' | 'errored' | 'done' | 'mail';

/** The state an Inbox kind or a state answers to: approval and question items are needs_input (spec). */
export function alertClass(kind: string): AlertClass | null {
  switch (kind) {
    case 'needs_input':
    case 'approval':
    case 'question':
    case 'plan':
    case 'ask':
      return 'needs_input';
    case 'errored':
      return 'errored';
    case 'done':
      return 'done';
    case 'mail':
    case 'held':
      return 'mail';
    default:
      return null;
  }
}

/** A state change that can alert: into needs_input or errored, or a turn that finished (done from working). */
export function transitionAlerts(state: string, oldState: string): boolean {
  if (state === oldState) return false;
  return state === 'needs_input' || state === 'errored' || (state === 'done' && oldState === 'working');
}

/** `[notifications.mail]` with every unset key read from `[notifications.agent]`. */
export function resolveMail(n: Notifications): Outputs & { enabled: boolean; between_agents: boolean } {
  const out = { between_agents: n.mail.between_agents } as Outputs & { enabled: boolean; between_agents: boolean };
  for (const k of MAIL_FOLLOWS) out[k] = n.mail[k] ?? n.agent[k];
  return out;
}

/** Minutes since midnight of `HH:MM-HH:MM`, or null for unset or malformed text. */
export function parseQuietHours(spec: string | undefined): { start: number; end: number } | null {
  const m = spec ? QUIET_HOURS_RE.exec(spec) : null;
  if (!m) return null;
  return { start: Number(m[1]) * 60 + Number(m[2]), end: Number(m[3]) * 60 + Number(m[4]) };
}

/** Inside quiet hours at `now` (local time). Start equal to end is no quiet hours; an end before the start crosses midnight. */
export function inQuietHours(spec: string | undefined, now: Date): boolean {
  const q = parseQuietHours(spec);
  if (!q || q.start === q.end) return false;
  const t = now.getHours() * 60 + now.getMinutes();
  return q.start < q.end ? t >= q.start && t < q.end : t >= q.start || t < q.end;
}

export interface AlertFacts {
  /** An agent state, or an Inbox kind (approval, question, ask, mail, errored, done...). */
  kind: string;
  /** Mail from one agent to another (not to the person): alerts only with between_agents. */
  betweenAgents?: boolean;
}

/** Whether and how an alert goes out now; null when the policy raises nothing for it. */
export function decide(n: Notifications, facts: AlertFacts, now: Date): Decision | null {
  const governs = alertClass(facts.kind);
  if (!governs) return null;
  let out: Outputs;
  if (governs === 'mail') {
    const m = resolveMail(n);
    if (!m.enabled || (facts.betweenAgents && !m.between_agents)) return null;
    out = { dock: m.dock, notify: m.notify, sound: m.sound };
  } else {
    const a = n.agent;
    if (!a.enabled || !(a.states as string[]).includes(governs)) return null;
    // A finished turn needs nothing of you: no bell for it, only its own cue when one is set.
    const sound = a.sound && (governs !== 'done' || (a.sound_mode === 'system' && !!a.cue_done));
    out = { dock: a.dock, notify: a.notify, sound };
  }
  const quiet = inQuietHours(n.agent.quiet_hours, now);
  if (quiet) out = { ...out, notify: false, sound: false };
  if (!out.dock && !out.notify && !out.sound) return null;
  return { ...out, governs, settleMs: n.agent.settle_ms, quiet };
}

/** The cue file for a class under sound_mode system, if the person set one. */
export function cueFile(a: AgentAlerts, governs: AlertClass): string | undefined {
  return { needs_input: a.cue_needs_input, errored: a.cue_errored, done: a.cue_done, mail: a.cue_mail }[governs];
}

/** Text that is safe inside an escape: no control characters (C0, DEL, C1), one line, cut. */
export function escapeText(text: string, max = ALERT_NOTIFY_TEXT_MAX): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\x00-\x1f\x7f-\x9f]+/g, ' ').replace(/\s+/g, ' ').trim();
  const cps = [...flat];
  return cps.length <= max ? flat : `${cps.slice(0, max - 1).join('')}…`;
}

/**
 * The in-band notification in the form the person's terminal takes: OSC 9 (iTerm2, WezTerm,
 * Ghostty, Windows Terminal), OSC 777 notify (urxvt, foot, Konsole, VTE) or OSC 99 (kitty).
 */
export function notificationEscape(escape: AgentAlerts['escape'], text: string): string {
  const body = escapeText(text);
  switch (escape) {
    case 'osc777':
      return `\x1b]777;notify;tuios;${body}\x07`;
    case 'osc99':
      // kitty: a title chunk, then the body, one notification id; ST terminates.
      return `\x1b]99;i=tuios:d=0;tuios\x1b\\\x1b]99;i=tuios:d=1:p=body;${body}\x1b\\`;
    default:
      return `\x1b]9;tuios: ${body}\x07`;
  }
}

/** At most one sound per cooldown, however many bursts arrive. */
export class SoundCooldown {
  private last = -Infinity;
  constructor(private readonly ms: () => number) {}
  /** True (and the cooldown starts) when a sound may play at `now`. */
  take(now: number): boolean {
    if (now - this.last < this.ms()) return false;
    this.last = now;
    return true;
  }
}

/** The validator's warnings about the notifications tables (spec: The Inbox). */
export function policyWarnings(n: Notifications): string[] {
  const w: string[] = [];
  const m = resolveMail(n);
  if (n.mail.between_agents && !m.enabled) w.push('config.toml: notifications.mail.between_agents is on but mail alerts are off (notifications.mail.enabled), so it raises nothing');
  if (n.agent.sound_mode === 'system' && !n.agent.cue_needs_input && !n.agent.cue_errored && !n.agent.cue_done && !n.agent.cue_mail) w.push('config.toml: notifications.agent.sound_mode is "system" but no cue file is set (cue_needs_input, cue_errored, cue_done, cue_mail), so nothing plays');
  const q = parseQuietHours(n.agent.quiet_hours);
  if (q && q.start === q.end) w.push('config.toml: notifications.agent.quiet_hours starts and ends at the same time, so there are no quiet hours');
  return w;
}
