// Resuming a conversation after a restart (spec: Resuming after a restart). The command is built
// from the manifest's [resume] argv and the stored id only, never from the old command line, and
// is typed only while the pane's shell holds the terminal's foreground.
import type { Window } from '../model/window.js';
import type { Manifest } from '../detection/manifest.js';
import { foregroundPgid } from '../pty/procfs.js';
import { RESUME_ID_RE, RESUME_PROMPT_WAIT_MS, RESUME_QUIET_MS } from '../limits.js';

/** The command line, or why there is none. Every token is one shell word (the manifest and the id are checked). */
export function resumeCommand(m: Manifest | undefined, sessionId: string | null): { ok: true; argv: string[]; line: string } | { ok: false; why: string } {
  if (!sessionId) return { ok: false, why: 'the pane has no recorded conversation id' };
  if (!m) return { ok: false, why: 'the conversation\'s harness has no manifest here' };
  if (!m.resume) return { ok: false, why: `${m.name} has no [resume] block in its manifest` };
  if (!RESUME_ID_RE.test(sessionId) || Buffer.byteLength(sessionId) > 256) return { ok: false, why: 'the recorded id is not letters, digits and _ . / : - (it is never typed)' };
  const argv = m.resume.argv.map((t) => t.replace('{session_id}', sessionId));
  return { ok: true, argv, line: argv.join(' ') };
}

/** True when the pane's shell, not a program it started, holds the terminal's foreground. */
export function shellHoldsForeground(w: Window): boolean {
  if (w.pid === null || w.exit || w.closed) return false;
  return foregroundPgid(w.pid) === w.pid;
}

/**
 * Waits for the new shell's prompt: an OSC 133 A or B mark, else (a shell that sends none) a
 * quiet window after its last output, within RESUME_PROMPT_WAIT_MS, and then for the shell to hold
 * the foreground. Resolves false when the budget runs out or the shell reported a command done
 * with no prompt after it.
 */
export function waitForShellPrompt(w: Window, budgetMs = RESUME_PROMPT_WAIT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    const started = Date.now();
    let marked = false;
    let doneOnly = false;
    let settled = false;
    const hooks = w.addScreenHooks({
      onPromptMark: (m) => {
        if (m.kind === 'A' || m.kind === 'B') {
          marked = true;
          doneOnly = false;
        } else if (m.kind === 'D') doneOnly = true;
      },
    });
    const finish = (ok: boolean) => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      hooks.dispose();
      resolve(ok);
    };
    const timer = setInterval(() => {
      if (w.closed || w.exit) return finish(false);
      if (Date.now() - started > budgetMs) return finish(false);
      if (doneOnly) return finish(false);
      const quiet = Date.now() - (w.lastOutputAt || started) >= RESUME_QUIET_MS && Date.now() - started >= RESUME_QUIET_MS;
      if ((marked || quiet) && shellHoldsForeground(w)) finish(true);
    }, 50);
    timer.unref();
  });
}
