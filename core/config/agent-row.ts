// `[appearance.sidebar.agent_row]` (spec: What the second line says, Agent metadata): the tokens a
// rail row's second line draws, in order, and a style per token in a table of its own
// (`[appearance.sidebar.agent_row."$context"] fg = "warning"`), applied when its number passes
// `gt` or `lt` if either is given. A token is one of the names below, or `$KEY` for a metadata key.
import { z } from 'zod';
import { AGENT_ROW_TOKENS_MAX } from '../limits.js';

/** The row tokens tuios knows (spec: What the second line says). */
export const ROW_TOKENS = ['session', 'need', 'harness', 'name', 'progress', 'elapsed', 'context', 'subagents', 'pr', 'meta', 'now', 'message', 'prompt'] as const;
export type RowTokenName = (typeof ROW_TOKENS)[number];

/** The shipped order: `now` last, so a long command loses its tail before anything else does. */
export const SHIPPED_TOKENS: readonly string[] = ['session', 'need', 'harness', 'name', 'progress', 'elapsed', 'context', 'subagents', 'pr', 'meta', 'now', 'message'];


/** `$` and a metadata key (core/agent-state/meta.ts META_KEY_RE). */
const KEY_TOKEN_RE = /^\$[A-Za-z][A-Za-z0-9_.-]{0,31}$/;

export function isRowToken(t: string): boolean {
  return (ROW_TOKENS as readonly string[]).includes(t) || KEY_TOKEN_RE.test(t);
}

const INKS = ['info', 'warning', 'success', 'muted', 'error', 'accent', 'plain'] as const;

export const tokenStyleSchema = z
  .object({
    fg: z.enum(INKS).optional(),
    /** The style applies only while the token's number is above this... */
    gt: z.number().optional(),
    /** ...or below this. */
    lt: z.number().optional(),
  })
  .strict();
export type TokenStyle = z.infer<typeof tokenStyleSchema>;

export const agentRowSchema = z
  .object({
    tokens: z
      .array(z.string().refine(isRowToken, { message: `a token is one of ${ROW_TOKENS.join(', ')}, or $KEY for a metadata key` }))
      .max(AGENT_ROW_TOKENS_MAX)
      .optional(),
  })
  .catchall(tokenStyleSchema)
  .superRefine((v, ctx) => {
    for (const k of Object.keys(v)) {
      if (k !== 'tokens' && !isRowToken(k)) ctx.addIssue({ code: 'custom', path: [k], message: `${k} is not a row token: a style table is named after one (${ROW_TOKENS.join(', ')}, or $KEY)` });
    }
  })
  .prefault({});
export type AgentRowConfig = z.infer<typeof agentRowSchema>;
