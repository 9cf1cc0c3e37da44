// `[notifications.agent]` and `[notifications.mail]` (spec: Alerts, The Inbox). The spec names
// enabled, notify, dock, sound, sound_mode, between_agents and says there are a settle window,
// quiet hours, a sound cooldown and cue files; the configuration reference with their names is not
// part of the spec, so the names below are ours, chosen to read as a tmux or WezTerm user expects:
//
//   [notifications.agent]
//   enabled = true            # false: no alert of any kind for agent states
//   notify = true             # the in-band notification escape to your terminal
//   dock = true               # the dock message
//   sound = true              # a bell or a cue for what needs you
//   states = ["needs_input", "errored", "done"]   # which transitions alert
//   settle_ms = 0             # a state that flips back within this many ms raises nothing
//   quiet_hours = "22:00-07:00"   # local time; notification and sound held back, dock kept
//   sound_mode = "bell"       # bell: BEL to your terminal; system: a cue file played here
//   cooldown_ms = 2000        # at most one sound in this many ms
//   escape = "osc9"           # osc9 (iTerm2, WezTerm, Ghostty...), osc777 (urxvt, foot, Konsole), osc99 (kitty)
//   cue_needs_input = "/path/to/needs.wav"  # with sound_mode = "system"; also cue_errored, cue_done, cue_mail
//   hosts = false             # the after-agent-state hook also runs for linked hosts' agents
//
//   [notifications.mail]     # a key left out follows the same key of [notifications.agent]
//   enabled / notify / dock / sound
//   between_agents = false    # alert on mail from one agent to another too
//
// sound_mode, cooldown_ms, the cue files, quiet_hours and escape exist only in the agent table.
import { z } from 'zod';
import { ALERT_CUE_PATH_MAX, ALERT_SETTLE_MS_DEFAULT, ALERT_SETTLE_MS_MAX, ALERT_SOUND_COOLDOWN_MS_DEFAULT, ALERT_SOUND_COOLDOWN_MS_MAX } from '../limits.js';

/** The states whose transitions may alert; governs Inbox items by kind too (approval, question: needs_input). */
export const ALERT_STATES = ['needs_input', 'errored', 'done'] as const;
export const SOUND_MODES = ['bell', 'system'] as const;
export const ESCAPES = ['osc9', 'osc777', 'osc99'] as const;
/** `HH:MM-HH:MM`, local time; the end may be before the start (the hours cross midnight). */
export const QUIET_HOURS_RE = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$/;

const cue = z.string().min(1).max(ALERT_CUE_PATH_MAX).optional();

export const agentAlertsSchema = z
  .object({
    enabled: z.boolean().default(true),
    notify: z.boolean().default(true),
    dock: z.boolean().default(true),
    sound: z.boolean().default(true),
    states: z.array(z.enum(ALERT_STATES)).max(ALERT_STATES.length).default([...ALERT_STATES]),
    settle_ms: z.number().int().min(0).max(ALERT_SETTLE_MS_MAX).default(ALERT_SETTLE_MS_DEFAULT),
    quiet_hours: z.string().regex(QUIET_HOURS_RE, 'quiet hours are HH:MM-HH:MM, e.g. 22:00-07:00').optional(),
    sound_mode: z.enum(SOUND_MODES).default('bell'),
    cooldown_ms: z.number().int().min(0).max(ALERT_SOUND_COOLDOWN_MS_MAX).default(ALERT_SOUND_COOLDOWN_MS_DEFAULT),
    escape: z.enum(ESCAPES).default('osc9'),
    cue_needs_input: cue,
    cue_errored: cue,
    cue_done: cue,
    cue_mail: cue,
    /** The after-agent-state hook runs for linked hosts' agents too (on a hub: one push per item for the fleet). */
    hosts: z.boolean().default(false),
  })
  .prefault({});

/** Unset keys stay undefined: they follow the agent table (resolveMail). */
export const mailAlertsSchema = z
  .object({
    enabled: z.boolean().optional(),
    notify: z.boolean().optional(),
    dock: z.boolean().optional(),
    sound: z.boolean().optional(),
    between_agents: z.boolean().default(false),
  })
  .prefault({});

export const notificationsSchema = z.object({ agent: agentAlertsSchema, mail: mailAlertsSchema }).prefault({});

export type AgentAlerts = z.infer<typeof agentAlertsSchema>;
export type MailAlerts = z.infer<typeof mailAlertsSchema>;
export type Notifications = z.infer<typeof notificationsSchema>;
/** The mail keys that follow the agent table when unset. */
export const MAIL_FOLLOWS = ['enabled', 'notify', 'dock', 'sound'] as const;
