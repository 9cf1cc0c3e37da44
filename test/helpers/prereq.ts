// Tests that need something a machine may lack (sshd, `ip netns`, an agent CLI from npm). uvu has
// no skip decided at run time, and a test that returns early is counted as passed: so a test gated
// on a prerequisite reports itself skipped on a line of its own, which scripts/run-tests.mjs counts
// and lists with the reason (and takes off the passed count), and the closing line says
// `N passed, N failed, N skipped`.
//
// CI provides every prerequisite (.ci/run installs them ahead of the suite). With CI=true a test
// whose prerequisite is missing fails with the reason instead, so a CI that lost one says why
// rather than passing on tests that did not run.
//
//   const sshd = prerequisite('OpenSSH sshd');
//   const it = sshd.gate(test);
//   test.before(async () => { if (!existsSync(SSHD)) return sshd.missing(`${SSHD} is not installed`); ... });
//   it('a link over sshd', async () => { ... });     // runs, or reports itself skipped
import type { Test } from 'uvu';

/** The marker scripts/run-tests.mjs counts: `SKIP_MARK title — reason`, ending its line. */
export const SKIP_MARK = '[tuios-test-skip]';

type Body = Parameters<Test>[1];

export class Prerequisite {
  private why = '';

  /** `what` names the prerequisite in the skip line; `reason`, when set, marks it missing already. */
  constructor(
    readonly what: string,
    reason = '',
  ) {
    if (reason) this.missing(reason);
  }

  /** Marks it missing, with why (the first time wins: it is the cause). */
  missing(reason: string): void {
    if (this.why) return;
    this.why = reason.replace(/\s+/g, ' ').trim() || 'missing';
    console.log(`# ${this.what} is missing here: ${this.why}`);
  }

  /** Why it is missing; empty while it is met. */
  get reason(): string {
    return this.why;
  }

  get met(): boolean {
    return !this.why;
  }

  /**
   * `t` (uvu's test or a suite) that runs each body only when the prerequisite is met, checked
   * when the test runs (a before hook may find it missing). Otherwise the test reports itself
   * skipped, or, with CI=true, fails with the reason.
   */
  gate(t: Test): (name: string, body: Body) => void {
    return (name, body) =>
      t(name, async (ctx) => {
        if (this.met) return body(ctx);
        if (process.env.CI === 'true') {
          throw new Error(`not run: ${this.what} is missing (${this.why}); CI is meant to provide it (.ci/run installs it)`);
        }
        // A line of its own: uvu draws its progress dots without a newline.
        console.log(`\n${SKIP_MARK} ${name} — ${this.what}: ${this.why}`);
      });
  }
}

/** A prerequisite named `what`; `reason` marks it missing at once. */
export function prerequisite(what: string, reason = ''): Prerequisite {
  return new Prerequisite(what, reason);
}
