// When the daemon takes a checkpoint: the turn ends the state machine publishes (working to done,
// idle or needs_input; to unknown only when completion_seq rose), never a state that is not a
// turn's end, never with [agents.checkpoints] off or for a pane on another machine. A real bus
// and real git; the model, the agent store and the config are the few fields the service reads.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { Bus } from '../../core/bus.js';
import { CheckpointService, gitAbove } from '../../core/git/checkpoint-service.js';
import type { CheckpointDeps } from '../../core/git/checkpoint-service.js';
import type { AgentStateEvent } from '../../core/agent-state/store.js';
import { nullLogger } from '../../core/log.js';
import { makeRepo, removeDir, sh, tempDir, write } from '../helpers/worktree-repos.js';
import { waitFor } from '../helpers/wait.js';

const W = 'c0ffeec0ffeec0ffeec0ffeec0ffee00';
const H = 'c0ffeec0ffeec0ffeec0ffeec0ffee11';

let root: string;
let repo: string;
let bus: Bus;
let svc: CheckpointService;
let enabled: boolean;

function refs(id = W): string[] {
  return sh(repo, ['for-each-ref', '--format=%(refname)', `refs/tuios/checkpoints/${id}/`]).split('\n').filter(Boolean);
}

function state(state: AgentStateEvent['state'], old: AgentStateEvent['state'], seq: number, id = W): void {
  bus.publish('agent-state', { window_id: id, session_id: 's', name: 'agent', harness: 'x', state, old_state: old, kind: '', message: `${old} to ${state}`, source: 'report', completion_seq: seq, needs_you: false });
}

/** Every look queued before this one has run (they run one at a time). */
async function settled(): Promise<void> {
  await new Promise((r) => setImmediate(r));
  await svc.store.list(repo, W);
}

test.before.each(() => {
  root = tempDir('tuios-cps-');
  repo = makeRepo(join(root, 'repo'));
  bus = new Bus();
  enabled = true;
  const win = (id: string, host: string | null) => ({ id, sessionId: 's', name: 'agent', host, currentCwd: () => repo, screen: { tailLines: () => ['last line'] } });
  const windows = new Map([
    [W, win(W, null)],
    [H, win(H, 'elsewhere')],
  ]);
  const deps = {
    bus,
    model: { windows },
    agents: {},
    config: { current: { agents: { enabled: true, checkpoints: { get enabled() { return enabled; }, keep: 50, max_untracked_mb: 50 } } } },
    log: nullLogger,
    cacheDir: join(root, 'cache'),
  } as unknown as CheckpointDeps;
  svc = new CheckpointService(deps);
});

test.after.each(() => {
  svc.dispose();
  removeDir(root);
});

test('a checkpoint at the end of a turn: working to done, idle or needs_input', async () => {
  let n = 0;
  for (const end of ['done', 'idle', 'needs_input'] as const) {
    state('working', 'idle', n);
    write(join(repo, 'mod.txt'), `turn ends ${end}\n`);
    state(end, 'working', ++n);
    await waitFor(() => refs().length === n, { what: `checkpoint after ${end}` });
  }
  assert.match(sh(repo, ['log', '-1', '--format=%B', refs()[2]!]), /state: needs_input/);
});

test('no checkpoint for what is not a turn end, nor with checkpoints off, nor for a pane on another machine', async () => {
  write(join(repo, 'mod.txt'), 'changed\n');
  state('working', 'idle', 0);
  state('errored', 'working', 0); // errored is not a finished turn
  state('idle', 'done', 0); // not from working
  state('unknown', 'working', 0); // unknown with no counted turn
  await settled();
  assert.equal(refs(), []);
  enabled = false;
  state('working', 'idle', 0);
  state('done', 'working', 1);
  await settled();
  assert.equal(refs(), []);
  enabled = true;
  state('working', 'idle', 1, H);
  state('done', 'working', 2, H);
  await settled();
  assert.equal(refs(H), []);
  // unknown at the end of a counted turn (completion_seq rose) is a turn end.
  state('working', 'done', 1);
  state('unknown', 'working', 2);
  await waitFor(() => refs().length === 1, { what: 'checkpoint after a counted turn' });
  assert.match(sh(repo, ['log', '-1', '--format=%B', refs()[0]!]), /turn: 2\nstate: unknown/);
});

test('gitAbove: a folder in a work tree (at any depth, or a worktree whose .git is a file) is; a folder outside any is not', () => {
  write(join(repo, 'deep/er/still/x.txt'), 'x\n');
  assert.ok(gitAbove(join(repo, 'deep/er/still')));
  assert.ok(gitAbove(repo));
  const outside = join(root, 'plain/sub');
  write(join(outside, 'y.txt'), 'y\n');
  assert.not.ok(gitAbove(outside), `${outside} is in no work tree`);
  const wt = join(root, 'wt');
  sh(repo, ['worktree', 'add', '-q', wt]);
  assert.ok(gitAbove(join(wt, 'sub')));
});

test.run();
