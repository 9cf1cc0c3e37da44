// The config.toml schema. Every section is here with its defaults; a key the schema does not
// know is a warning that names it, a value of the wrong type keeps the last good config.
import { agentRowSchema } from './agent-row.js';
import { z } from 'zod';
import { glyphSets } from './glyphs.js';
import { AFTER_STATE_HOOK_TIMEOUT_MS, CHECKPOINT_KEEP_DEFAULT, CHECKPOINT_KEEP_MAX, CHECKPOINT_KEEP_MIN, MAX_UNTRACKED_FILE_BYTES, DEFAULT_SCROLLBACK_LINES, HOLD_SECONDS_DEFAULT, HOLD_SECONDS_MAX, HOLD_SECONDS_MIN, MAX_SCROLLBACK_LINES } from '../limits.js';
import { compilePattern } from '../re.js';
import { DURATION_RE } from '../activity/duration.js';
import { DEFAULT_TEST_PATTERNS } from '../activity/recap.js';
import { RECAP_TEST_PATTERN_MAX, RECAP_TEST_PATTERNS_MAX } from '../limits.js';
import { notificationsSchema } from '../alerts/config-schema.js';

const daemon = z
  .object({
    /** Lines of scrollback per pane. */
    scrollback: z.number().int().min(0).max(MAX_SCROLLBACK_LINES).default(DEFAULT_SCROLLBACK_LINES),
    /** The program a window runs when none is given; default $SHELL, then /bin/sh. */
    shell: z.string().min(1).optional(),
    /** Off: only a harness's own reports mark a pane (env TUIOS_AGENT_AUTODETECT when unset). */
    agent_autodetect: z.boolean().optional(),
    /** Seconds between detector polls; 0 is the default (2), negative is off. */
    agent_detect_seconds: z.number().optional(),
    /** More program names to treat as agents (plus TUIOS_AGENT_BINARIES). */
    agent_binaries: z.array(z.string().min(1).max(64)).max(64).default([]),
    /** Let a process outside every pane answer prompts with respond (off: only the attached client). */
    respond_from_shell: z.boolean().default(false),
    /** After a restart, a pane whose agent was running: ask (a Resume row), auto (type the resume command), off. */
    resume_agents: z.enum(['ask', 'auto', 'off']).default('ask'),
  })
  .prefault({});

const hooks = z
  .object({
    /** Run on every published agent-state transition: a shell command line, or an argv. */
    after_agent_state: z.union([z.string().min(1), z.array(z.string()).min(1)]).optional(),
    /** How long a hook may run before it is killed. */
    timeout_ms: z.number().int().min(100).max(120_000).default(AFTER_STATE_HOOK_TIMEOUT_MS),
    /** all: every published transition (the hook's contract); alerts: only those [notifications.agent] alerts on, after its settle window and outside quiet hours. */
    after_agent_state_on: z.enum(['all', 'alerts']).default('all'),
  })
  .prefault({});

const grantName = z.string().min(1).max(32);

/** `[[agents.approvals.risk.rule]]`: a name, the tools it covers (empty: every tool), an RE2 pattern. */
const riskRule = z
  .object({
    name: z.string().min(1).max(64),
    tools: z.array(z.string().min(1).max(64)).max(32).default([]),
    pattern: z.string().min(1).max(4096),
  })
  .superRefine((r, ctx) => {
    try {
      compilePattern(r.pattern, 'pattern');
    } catch (e) {
      ctx.addIssue({ code: 'custom', path: ['pattern'], message: e instanceof Error ? e.message : String(e) });
    }
  });

/** `herdr_protocol` in [agents]: which panes get herdr's variables (core/pty/env.ts). */
export const HERDR_PROTOCOL_MODES = ['all', 'agents', 'off'] as const;

const agents = z
  .object({
    /** false turns every agent feature off and keeps only the multiplexer. */
    enabled: z.boolean().default(true),
    /**
     * herdr's variables (HERDR_ENV and the rest): "all" panes (the default), only panes that start
     * an agent that reports to herdr by itself ("agents"), or none ("off"). true and false read as
     * "all" and "off".
     */
    herdr_protocol: z
      .union([z.enum(HERDR_PROTOCOL_MODES), z.boolean()])
      .default('all')
      .transform((v) => (v === true ? 'all' : v === false ? 'off' : v)),
    permissions: z
      .object({
        /** open (every pane holds admin) or strict (panes hold `grants`); an unknown mode reads as strict. */
        mode: z.string().default('open'),
        grants: z.array(grantName).max(16).default(['read', 'write', 'fan']),
      })
      .prefault({}),
    queue: z
      .object({
        /** Messages a pane's delivery queue holds. */
        max: z.number().int().min(1).max(64).default(8),
      })
      .prefault({}),
    checkpoints: z
      .object({
        /** Save the work tree of an agent's pane at the end of each turn (spec: Turn checkpoints). */
        enabled: z.boolean().default(true),
        /** Checkpoints kept per pane; the oldest go first. */
        keep: z.number().int().min(CHECKPOINT_KEEP_MIN).max(CHECKPOINT_KEEP_MAX).default(CHECKPOINT_KEEP_DEFAULT),
        /** An untracked file larger than this many MB is never read (not saved, not diffed). */
        max_untracked_mb: z.number().min(0).max(4096).default(MAX_UNTRACKED_FILE_BYTES / 1024 / 1024),
      })
      .prefault({}),
    recap: z
      .object({
        /** Away at least this long from a pane that finished a turn, and the dock says what it did (spec: The away recap). */
        away: z.string().regex(DURATION_RE).default('10m'),
        /** Where the away recap shows: toast (the dock and the Inbox), inbox (the Inbox only), off (only agent-log --recap). */
        mode: z.enum(['toast', 'inbox', 'off']).default('toast'),
        /** The commands that count as a test run: plain text, found at a word's start in the command line. */
        test_patterns: z.array(z.string().min(1).max(RECAP_TEST_PATTERN_MAX)).max(RECAP_TEST_PATTERNS_MAX).default(DEFAULT_TEST_PATTERNS),
      })
      .prefault({}),
    mail: z
      .object({
        /** Type one line at an agent at rest when mail waits for it. */
        wake: z.boolean().default(true),
      })
      .prefault({}),
    approvals: z
      .object({
        /** Harnesses whose permission prompts the Inbox holds (ids or aliases: claude, claude-code, opencode, kilo, qwen). */
        enabled: z.array(z.string().min(1).max(64)).max(16).default([]),
        /** How long a prompt is held for the Inbox before the harness asks in the pane (kept between 10 and 300). */
        hold_seconds: z.number().default(HOLD_SECONDS_DEFAULT).transform((n) => Math.min(HOLD_SECONDS_MAX, Math.max(HOLD_SECONDS_MIN, Math.round(n)))),
        /** Claude Code's ExitPlanMode is held as a plan too. */
        hold_plans: z.boolean().default(true),
        risk: z
          .object({
            /** false turns the shipped rules off (your own rules still apply). */
            builtin: z.boolean().default(true),
            /** A pane holding the respond grant may allow a risky call. */
            panes_may_allow: z.boolean().default(false),
            rule: z.array(riskRule).max(64).default([]),
          })
          .prefault({}),
      })
      .prefault({}),
  })
  .prefault({});

const ssh = z
  .object({
    enabled: z.boolean().default(true),
    /** Where the SSH server listens; a wider address only when the person sets it. */
    listen: z.string().min(3).max(300).default('127.0.0.1:2222'),
    /** Files of keys allowed in (default ~/.ssh/authorized_keys and $XDG_CONFIG_HOME/tuios/authorized_keys). */
    authorized_keys: z.array(z.string().min(1).max(4096)).max(16).optional(),
    max_sessions: z.number().int().min(1).max(1000).default(32),
    max_auth_tries: z.number().int().min(1).max(20).default(6),
    /** Seconds without input before a session is closed; 0 never. */
    idle_timeout: z.number().int().min(0).max(7 * 86400).default(0),
    /** Let `ssh box VERB` run verbs that change state (read-only by default). */
    exec_write: z.boolean().default(false),
  })
  .prefault({});

/** A linked host's name: what `HOST:SESSION` and `host:` use. No `:`, which separates a target. */
export const HOST_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$/;

/**
 * `[hosts.NAME]`: with `address`, this daemon keeps a link to that machine; on every side, what
 * that machine may do here (spec: What another machine may do here). Answering prompts is off.
 */
const hostEntry = z.object({
  address: z.string().min(1).max(253).optional(),
  /** The SSH port: tuios's own server by default, 22 for a machine that runs only OpenSSH. */
  port: z.number().int().min(1).max(65535).default(2222),
  user: z.string().min(1).max(64).optional(),
  identity: z.string().min(1).max(4096).optional(),
  /** Run over exec when the SSH server there has no tuios-link subsystem (OpenSSH's sshd). */
  command: z.string().min(1).max(4096).default('tuios link-serve --stdio'),
  /** When set, that machine's links must authenticate with this key (SHA256:...). */
  key: z.string().min(8).max(128).optional(),
  list: z.boolean().default(true),
  write: z.boolean().default(true),
  respond: z.boolean().default(false),
  files: z.boolean().default(false),
  hold_mail: z.boolean().default(false),
  /** Only watch: reading verbs and streams, never a change or an answer, whatever write and respond say. */
  observe: z.boolean().default(false),
});

const hosts = z
  .record(z.string().regex(HOST_NAME_RE, 'a host name is letters, digits, ., - and _').refine((n) => n !== 'local', '"local" names this machine'), hostEntry)
  .default({});

const link = z
  .object({
    /** This machine's name as its linked hosts see it (default: the hostname). */
    name: z.string().regex(HOST_NAME_RE).optional(),
  })
  .prefault({});

// The client's look (the TUI reads it when it draws; changes apply to the next frame).
const appearance = z
  .object({
    sidebar: z
      .object({
        /** The rail: sessions, and the agents section once an agent has been seen. */
        enabled: z.boolean().default(true),
        /** The agent row's second line: which tokens, in what order, and a style per token (core/config/agent-row.ts). */
        agent_row: agentRowSchema,
        /** Subagents under their lead: a row each, or the count alone (spec: Subagents on the rail). */
        subagent_rows: z.enum(['rows', 'count']).default('rows'),
        /** Agent rows at rest longer than this fold into one `+N at rest` line (spec: Snoozing, undo and unread). */
        agent_rest_fold: z.string().regex(DURATION_RE).default('1h'),
      })
      .prefault({}),
    /** The glyph set: `ascii` draws the ASCII marks, as `--ascii-only` does; a name in glyph_sets draws that set's marks. */
    glyphs: z.string().max(32).optional(),
    /** Glyph sets of the person's own: a mark per agent state (core/config/glyphs.ts). */
    glyph_sets: glyphSets,
  })
  .prefault({});

export const configSchema = z
  .object({
    daemon,
    hooks,
    agents,
    appearance,
    ssh,
    hosts,
    link,
    /** [notifications.agent] and [notifications.mail]: the alert policy (core/alerts/config-schema.ts). */
    notifications: notificationsSchema,
  })
  .prefault({});

export type Config = z.infer<typeof configSchema>;

export function defaultConfig(): Config {
  return configSchema.parse({});
}

/** Paths of keys in `raw` that the schema does not describe (for the warning that names them). */
export function unknownKeys(schema: z.ZodType, raw: unknown, prefix = ''): string[] {
  const s = unwrap(schema);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    if (Array.isArray(raw) && s instanceof z.ZodArray) {
      return raw.flatMap((item, i) => unknownKeys(s.element as z.ZodType, item, `${prefix}[${i}]`));
    }
    return [];
  }
  if (s instanceof z.ZodObject) {
    const out: string[] = [];
    const shape = s.shape as Record<string, z.ZodType>;
    // An object that takes other keys (agent_row's per-token tables) describes them with its catchall.
    const rest = (s.def as { catchall?: z.ZodType }).catchall;
    const open = rest && !(rest instanceof z.ZodNever) ? rest : null;
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      const path = prefix ? `${prefix}.${k}` : k;
      if (k in shape) out.push(...unknownKeys(shape[k]!, v, path));
      else if (open) out.push(...unknownKeys(open, v, path));
      else out.push(path);
    }
    return out;
  }
  if (s instanceof z.ZodRecord) {
    return Object.entries(raw as Record<string, unknown>).flatMap(([k, v]) =>
      unknownKeys(s.valueType as z.ZodType, v, prefix ? `${prefix}.${k}` : k),
    );
  }
  return [];
}

function unwrap(s: z.ZodType): z.ZodType {
  let cur: z.ZodType = s;
  for (let i = 0; i < 10; i++) {
    if (cur instanceof z.ZodOptional || cur instanceof z.ZodNullable) cur = cur.unwrap() as z.ZodType;
    else if (cur instanceof z.ZodDefault || cur instanceof z.ZodPrefault) cur = cur.unwrap() as z.ZodType;
    else break;
  }
  return cur;
}
