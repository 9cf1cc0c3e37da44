// The risk rules judge the command and the folder, never the harness that asks (issue: the same
// `touch hello.txt` in the same folder needed `risk_ack 'outside the worktree'` for Codex): a real
// Claude Code 2.1.197 and the pinned Codex each start in a project folder under the system's
// temporary folder, outside the daemon's $HOME (one a git repository, one not), ask to run
// `touch hello.txt` there, and the approval is not risky: the start folder is the pane's root for
// both, and an allow with no risk_ack presses it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../helpers/wait.js';
import { RealAgent } from '../helpers/real-agent.js';
import { waitForQuiet } from '../helpers/agents.js';
import type { PromptInfo } from '../../core/verbs/prompt.js';

const made: string[] = [];
/** A project folder under the temporary folder, outside the daemon's home; a git repository when asked. */
function outsideHome(git: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-risk-'));
  made.push(dir);
  const p = join(dir, 'project');
  mkdirSync(p);
  if (git) execFileSync('git', ['init', '-q', p]);
  return p;
}

function risk(name: string, agent: RealAgent, git: boolean): void {
  const t = suite(`live risk: ${name}`);
  const it = agent.gate(t);
  t.before(() => agent.start());
  t.after(async () => {
    await agent.stop();
    for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  it(`touch hello.txt in a folder outside $HOME (${git ? 'a git repository' : 'no git'}) is not risky, and an allow with no risk_ack presses it`, async () => {
    assert.not.ok(agent.project.startsWith(agent.d.home + '/'), `the project ${agent.project} is outside the daemon's home ${agent.d.home}`);
    await agent.waitRow('idle', { what: `${name} at rest at its prompt` });
    await waitForQuiet(agent.d, agent.window, 2000, 60_000);
    // Typed as a person would (ask-agent's 5 s check for the turn to start is too short on a loaded machine).
    await agent.d.call('send-text', { window: agent.window, text: 'Please create hello.txt', submit: true });
    await agent.waitState('needs_input', { timeout: 120_000, what: 'the approval of touch hello.txt' });
    const peek = await waitFor(
      async () => {
        const p = await agent.d.call<PromptInfo>('peek-prompt', { window: agent.window }).catch(() => null);
        return p && /touch hello\.txt/.test(p.message) ? p : null;
      },
      { timeout: 60_000, what: 'the approval of touch hello.txt in peek-prompt' },
    );
    assert.is(peek.kind, 'approval');
    assert.equal(peek.risk.ack, [], `what an allow must acknowledge: ${JSON.stringify(peek.risk)}`);
    assert.is(peek.risk.risky, false, JSON.stringify(peek.risk));
    assert.ok(peek.risk.root !== null && agent.project.endsWith(peek.risk.root.replace(/^\/private/, '')), `the pane's root is the start folder: ${JSON.stringify(peek.risk)}`);
    await agent.d.ok(['respond', '-w', agent.window, 'approve']);
    await waitFor(() => existsSync(join(agent.project, 'hello.txt')), { timeout: 60_000, what: 'the approved command to run' });
  });
  t.run();
}

risk('claude-code 2.1.197', new RealAgent('claude-code', { version: '2.1.197', name: 'claude', project: () => outsideHome(true), daemon: { config: '[daemon]\nrespond_from_shell = true\n' } }), true);
risk('codex', new RealAgent('codex', { name: 'codex', project: () => outsideHome(false), daemon: { config: '[daemon]\nrespond_from_shell = true\n' } }), false);
