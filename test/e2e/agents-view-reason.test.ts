// `R` in the agents view (spec: Reject with a reason): on an approval a Claude Code hook holds for
// the Inbox, R opens a `Reason:` line in its card, enter denies with what was typed, and the
// hook prints the deny with that reason as its message; esc drops the line and sends nothing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TestDaemon, BIN } from '../helpers/daemon.js';
import { holdingHook, type HoldingHook } from '../helpers/holding-hook.js';
import { Terminal } from '../helpers/terminal.js';
import { waitFor } from '../helpers/wait.js';

let d: TestDaemon;
let w = '';

/** A Claude Code PermissionRequest hook for the pane, which holds until the person answers. */
const hold = (command: string): HoldingHook => holdingHook(d.env, w, 'conv-r', command);

interface InboxItem {
  window_id: string | null;
  held?: boolean;
  ref: { request_id?: string };
}

/** The hook's end, or a failure with the screen after 20 s. */
async function ended(h: HoldingHook, term: Terminal): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([h.done, new Promise<never>((_, rej) => (timer = setTimeout(() => rej(new Error(`the hook did not end\n${term.screen()}`)), 20_000)))]);
  } finally {
    clearTimeout(timer);
  }
}

const heldNow = () => waitFor(async () => (await d.call<{ items: InboxItem[] }>('list-attention')).items.find((i) => i.window_id === w && i.held && i.ref.request_id), { timeout: 20_000, what: 'the held approval' });

test.before(async () => {
  d = await TestDaemon.start({ config: '[agents.approvals]\nenabled = ["claude"]\nhold_seconds = 120\n' });
  await d.ok(['new-session', 'work']);
  w = (await d.json<{ windows: Array<{ id: string }> }>(['list-windows'])).windows[0]!.id;
  await d.ok(['new-session', 'person']);
});
test.after(() => d.stop());

test('R, a reason, enter: the hook denies with the reason; esc first drops it', async () => {
  const hook = hold('rm -rf build');
  await heldNow();
  const term = new Terminal(d.env, `${process.execPath} ${BIN} attach -s person`);
  try {
    await term.wait(/\S/, 'the client to draw');
    term.keys('C-b', 'i');
    await term.wait(/approve Bash: rm -rf build/, 'the held line in the agents view');
    await term.wait(/R deny with a reason/, 'R offered for Claude Code');
    term.keys('R');
    await term.wait(/Reason:/, 'the Reason: line');
    term.type('not now');
    term.keys('Escape');
    await term.wait(/The reason was dropped/, 'esc drops it');
    term.keys('R');
    await term.wait(/Reason:/, 'the Reason: line again');
    term.type('use make clean instead');
    await term.wait(/Reason: use make clean instead/, 'the typed reason');
    term.keys('Enter');
    const r = await ended(hook, term);
    assert.is(r.code, 0);
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: { decision: { behavior: string; message: string } } };
    assert.is(out.hookSpecificOutput.decision.behavior, 'deny');
    assert.is(out.hookSpecificOutput.decision.message, 'use make clean instead');
  } finally {
    term.kill();
  }
});

test('R with an empty line sends the default reason', async () => {
  const hook = hold('rm -rf dist');
  await heldNow();
  const term = new Terminal(d.env, `${process.execPath} ${BIN} attach -s person`);
  try {
    await term.wait(/\S/, 'the client to draw');
    term.keys('C-b', 'i');
    await term.wait(/R deny with a reason/, 'R offered');
    term.keys('R');
    await term.wait(/Reason:/, 'the Reason: line');
    term.keys('Enter');
    const r = await ended(hook, term);
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: { decision: { behavior: string; message: string } } };
    assert.is(out.hookSpecificOutput.decision.behavior, 'deny');
    assert.is(out.hookSpecificOutput.decision.message, 'The user denied this from the tuios Inbox.');
  } finally {
    term.kill();
  }
});

test.run();
