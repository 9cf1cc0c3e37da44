// Turn checkpoints from a real agent (issue: checkpoints appear at each turn end and only then; a
// restore brings back turn 2 exactly): the pinned Claude Code, in a git repository, driven by the
// fake model API through three turns that each run a shell command changing files, approved as a
// person would. The approval's needs_input finds nothing changed and takes none. While a turn's command has run and the model's answer is held, the agent is
// working and no checkpoint is taken; the turn's end takes one. A fourth turn that changes nothing
// takes none. Restoring checkpoint 2 puts every file back as turn 2 left it (blob hashes, the
// untracked file, the file turn 3 made removed), and leaves the index and HEAD as they were.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RealAgent } from '../helpers/real-agent.js';
import { waitFor } from '../helpers/wait.js';
import { waitForQuiet } from '../helpers/agents.js';
import { makeRepo, sh } from '../helpers/worktree-repos.js';
import type { Checkpoint } from '../../core/git/checkpoints.js';

const t = suite('checkpoints: a real Claude Code over three turns');
const a = new RealAgent('claude-code', {
  name: 'claude',
  project: (d) => makeRepo(join(d.home, 'project')),
  daemon: { config: '[daemon]\nrespond_from_shell = true\n' },
});
const it = a.gate(t);
t.before(() => a.start());
t.after(() => a.stop());

async function checkpoints(): Promise<Checkpoint[]> {
  return (await a.d.json<{ checkpoints: Checkpoint[] }>(['checkpoint', 'list', '-w', a.window])).checkpoints;
}

/** The files of a checkpoint (path -> blob hash), from its commit's tree. */
function treeOf(n: number): Map<string, string> {
  const out = sh(a.project, ['ls-tree', '-r', `refs/tuios/checkpoints/${a.window}/${n}`]);
  return new Map(
    out
      .trim()
      .split('\n')
      .map((l) => {
        const [meta, path] = l.split('\t');
        return [path!, meta!.split(' ')[2]!] as const;
      }),
  );
}

/** The work tree as git would save it: tracked and untracked files git does not ignore, hashed. */
function onDisk(): Map<string, string> {
  const files = sh(a.project, ['ls-files', '--cached', '--others', '--exclude-standard']).trim().split('\n').filter((f) => f && existsSync(join(a.project, f)));
  return new Map(files.map((f) => [f, sh(a.project, ['hash-object', '--', f]).trim()] as const));
}

/**
 * One turn: the prompt typed, the model asks to run `command`, the approval answered; the model's
 * answer to the command's result is held while the checkpoint list is read (the agent is working,
 * the files are changed: no checkpoint yet), then let go; the turn's end takes checkpoint `n`.
 */
async function turn(n: number, prompt: string, command: string, changed: string): Promise<void> {
  a.fake.setCommand(command);
  a.fake.setFinalText(`Turn ${n} is done.`);
  await a.waitRow(['idle', 'done'], { what: `claude at rest before turn ${n}` });
  await waitForQuiet(a.d, a.window, 1500, 60_000);
  await a.d.call('send-text', { window: a.window, text: prompt, submit: true });
  await a.waitState('needs_input', { timeout: 120_000, what: `the approval of turn ${n}'s command` });
  // needs_input ends a stretch of work too: the look it starts finds nothing changed since the
  // last checkpoint (the list waits behind it), so none is taken before the command runs.
  const atApproval = await checkpoints();
  assert.is(atApproval.length, n - 1, `no checkpoint at turn ${n}'s approval, nothing changed yet: ${JSON.stringify(atApproval)}`);
  a.fake.hold();
  await a.d.ok(['respond', '-w', a.window, 'approve']);
  await a.fake.waitHeld(1, 120_000);
  await waitFor(() => existsSync(join(a.project, changed)), { timeout: 60_000, what: `turn ${n}'s command to have written ${changed}` });
  assert.is((await a.state()).state, 'working', `turn ${n} is still working while the model's answer is held`);
  const during = await checkpoints();
  assert.is(during.length, n - 1, `no checkpoint while turn ${n} works: ${JSON.stringify(during)} ${sh(a.project, ['status', '--porcelain'])}`);
  a.fake.release();
  await a.waitRow(['idle', 'done'], { what: `the end of turn ${n}` });
  await waitFor(async () => ((await checkpoints()).length === n ? true : null), { timeout: 60_000, what: `checkpoint ${n} at the end of turn ${n}` });
}

it('a checkpoint at each of three turn ends and only then; restore 2 brings turn 2 back exactly', async () => {
  const head = sh(a.project, ['rev-parse', 'HEAD']).trim();
  await turn(1, 'Please change mod.txt', "printf 'turn one\\n' > mod.txt", 'mod.txt');
  await turn(2, 'Please add notes.txt and drop del.txt', "printf 'notes of turn two\\n' > notes.txt && rm del.txt", 'notes.txt');
  const turn2 = onDisk();
  await turn(3, 'Please add later.txt and change mod.txt again', "printf 'turn three\\n' > mod.txt && printf 'later\\n' > later.txt", 'later.txt');

  const rows = await checkpoints();
  assert.equal(rows.map((r) => r.n), [3, 2, 1]);
  assert.ok(rows.every((r) => r.kind === 'turn'), JSON.stringify(rows));
  assert.equal(treeOf(2), turn2, 'checkpoint 2 holds the work tree as turn 2 left it');
  assert.is(sh(a.project, ['show', `refs/tuios/checkpoints/${a.window}/1:mod.txt`]), 'turn one\n');
  const diff = await a.d.json<{ files: Array<{ path: string; status: string }> }>(['checkpoint', 'diff', '-w', a.window, '3']);
  assert.equal(diff.files.map((f) => `${f.status} ${f.path}`).sort(), ['A later.txt', 'M mod.txt']);

  // A turn that changes no file: no checkpoint.
  a.fake.setCommand(null);
  a.fake.setFinalText('Nothing to change.');
  await waitForQuiet(a.d, a.window, 1500, 60_000);
  const asked = a.fake.requests.length;
  await a.d.call('send-text', { window: a.window, text: 'Is anything left?', submit: true });
  await a.fake.waitRequest((r) => r.id > asked && r.role === 'main', 120_000);
  await waitFor(async () => ((await a.screen()).includes('Nothing to change.') ? true : null), { timeout: 120_000, what: "the model's answer on screen" });
  await a.waitRow(['idle', 'done'], { what: 'the end of the quiet turn' });
  assert.is((await checkpoints()).length, 3, 'a turn that changed nothing takes no checkpoint');

  // Restore turn 2 (the agent at rest: no --force).
  const index = readFileSync(join(a.project, '.git', 'index'));
  const r = await a.d.json<{ restored: { n: number }; safety: { n: number; kind: string }; removed: string[]; written: string[] }>(['checkpoint', 'restore', '-w', a.window, '2']);
  assert.is(r.restored.n, 2);
  // The tree was checkpoint 3's, untouched since: that is the checkpoint that undoes the restore.
  assert.equal([r.safety.n, r.safety.kind], [3, 'turn']);
  assert.equal(r.removed, ['later.txt']);
  assert.equal(onDisk(), turn2, 'every file as turn 2 left it, and none more');
  assert.is(readFileSync(join(a.project, 'notes.txt'), 'utf8'), 'notes of turn two\n');
  assert.not.ok(existsSync(join(a.project, 'del.txt')));
  assert.ok(readFileSync(join(a.project, '.git', 'index')).equals(index), 'the index is not touched');
  assert.is(sh(a.project, ['rev-parse', 'HEAD']).trim(), head, 'HEAD is not touched');
  // It holds turn 3's tree: the restore can be undone.
  assert.is(sh(a.project, ['show', `refs/tuios/checkpoints/${a.window}/${r.safety.n}:later.txt`]), 'later\n');
});

t.run();
