// The words of an alert, the same on the dock, in the notification and in the hook's
// TUIOS_ALERT_TEXT: a single item names its session (`fan-3: claude needs approval · approve
// Bash: go test`).

/** What an agent does, by state or Inbox kind. */
export const ALERT_PHRASE: Record<string, string> = {
  needs_input: 'needs you',
  approval: 'needs approval',
  question: 'has a question',
  plan: 'has a plan for you',
  ask: 'asks you',
  mail: 'wrote to you',
  held: 'wrote to you',
  errored: 'stopped on an error',
  done: 'finished',
};

/** One alert's line; the parts are cleaned by the caller. */
export function alertLine(session: string, who: string, kind: string, what: string): string {
  return `${session}: ${who} ${ALERT_PHRASE[kind] ?? kind}${what ? ` · ${what}` : ''}`;
}
