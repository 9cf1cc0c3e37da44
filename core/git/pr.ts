// A worktree's pull request as tuios records it (spec: The pull request on the rail), and the token
// the rail and worktree ls show for it. Pure: the TUI reads it without taking in git.

/** A pull request as gh tells it, and as the rail shows it. */
export interface PullRequest {
  number: number;
  url: string;
  state: 'open' | 'merged' | 'closed';
  checks: 'pending' | 'pass' | 'fail' | 'none';
  title: string;
  at: number;
}

/** The rail's and worktree ls's token: `PR #12 open pending`, `PR #12 open pass`, `PR #12 merged`. */
export function prToken(pr: Pick<PullRequest, 'number' | 'state' | 'checks'>): string {
  if (pr.state !== 'open') return `PR #${pr.number} ${pr.state}`;
  return `PR #${pr.number} open${pr.checks === 'none' ? '' : ` ${pr.checks}`}`;
}
