// Real agent CLIs, installed from npm and run offline against the fake model APIs, in real panes:
// tuios recognises each, reads its states from its screen, types a prompt with ask-agent, reads its
// permission prompt with peek-prompt, answers it with respond, and the command runs. A risky
// command needs risk_ack, and an unacknowledged allow presses nothing. Claude Code with its
// notifications on (preferredNotifChannel "iterm2") sends OSC 9 at its permission prompt, and the
// manifest's notify rule makes that the pane's needs_input, from source osc.
//
// TUIOS_E2E_AGENTS names the harnesses (default `all`: the six whose manifests declare answers). A
// harness whose npm install fails here is counted as skipped with the reason, never passed; under
// CI, which installs them ahead of the suite, that is a failure (test/helpers/prereq.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { waitFor } from '../helpers/wait.js';
import { waitForQuiet } from '../helpers/agents.js';
import { RealAgent } from '../helpers/real-agent.js';
import type { AgentRow } from '../helpers/agent-state.js';

/** The harnesses whose manifests declare answers, and the tool name each one's approval line carries. */
const TOOL: Record<string, string> = { 'claude-code': 'Bash', codex: 'Bash', 'gemini-cli': 'Shell', qwen: 'Shell', copilot: 'Shell', cline: 'Shell' };
const wanted = process.env.TUIOS_E2E_AGENTS ?? 'all';
const HARNESSES = wanted === 'all' ? Object.keys(TOOL) : wanted.split(',').map((s) => s.trim()).filter(Boolean);

/** A first-start screen that is not about the work, and the key a person closes it with (fixtures/screens/<id>/NOTES.md). */
const START_DIALOG: Record<string, { shows: RegExp; key: string }> = {
  cline: { shows: /Press Enter to open, any other key to close/, key: 'Escape' },
};

for (const id of HARNESSES) {
  const t = suite(id);
  const a = new RealAgent(id, { daemon: { config: '[daemon]\nrespond_from_shell = true\n' } });
  const it = a.gate(t);
  const waitState = (state: string, timeout = 120_000, also: (r: AgentRow) => boolean = () => true) => a.waitRow((r) => r.state === state && also(r), { timeout, what: `${id} to be ${state}` });

  t.before(async () => {
    await a.start();
    const dialog = START_DIALOG[id];
    if (!a.needs.met || !dialog) return;
    await waitFor(async () => dialog.shows.test(await a.screen()), { timeout: 90_000, what: `${id}'s first-start screen` });
    await a.d.ok(['send-keys', '-w', a.window, dialog.key]);
  });
  t.after(() => a.stop());

  it('is recognised and comes to rest at its prompt', async () => {
    const a = await waitState('idle');
    assert.is(a.harness_id, id);
  });

  it('ask-agent types the prompt once; the turn works, stops on the permission prompt, is answered, and the command runs', async () => {
    // Gemini CLI 0.61.0 says Ready before its input takes Enter: on a loaded machine an Enter in
    // the first seconds after Ready was dropped (3 of 8 asks made at once), none once its screen
    // had been still for 3 s (6 of 6). ask-agent then says prompt_stalled, as it must; the test
    // asks the way a person would, at a settled screen.
    await waitState('idle');
    await waitForQuiet(a.d, a.window, 3000, 60_000);
    const from = a.states.length;
    // The model's first answer is held, so the turn is seen working before it asks.
    a.fake.hold();
    const asking = a.d.call<{ state: string; typed: boolean }>('ask-agent', { window: a.window, text: 'Please create hello.txt', timeout: 120_000 });
    asking.catch(() => undefined); // awaited below; a refusal must not end the run unhandled
    await Promise.race([waitState('working', 60_000), asking]).finally(() => a.fake.release());
    const asked = await asking;
    if (asked.state !== 'needs_input') {
      throw new Error(`the turn ended ${JSON.stringify(asked)}; published ${a.states.slice(from).map((e) => e.state).join(' → ')}\nscreen:\n${await a.screen()}`);
    }
    // The title may say needs_input a moment before the screen names the command.
    const blocked = await waitState('needs_input', 30_000, (r) => r.message === `approve ${TOOL[id]}: touch hello.txt`);
    assert.is(blocked.kind, 'approval');
    const p = await a.d.call<{ prompt_id: string; offered: string[]; options: Array<{ n: number }>; risk: { risky: boolean }; untrusted: boolean }>('peek-prompt', { window: a.window });
    assert.ok(p.offered.includes('approve'), `approve is offered: ${p.offered}`);
    if (p.offered.includes('choose')) assert.ok(p.options.length >= 2, 'its numbered options are read');
    assert.is(p.risk.risky, false, 'touch hello.txt in the project is not risky');
    assert.is(p.untrusted, true);
    assert.not.ok(existsSync(join(a.project, 'hello.txt')));
    // The model's answer after the command is held too, so the turn is seen working again.
    a.fake.hold();
    const r = await a.d.call<{ pressed: string; ended: string }>('respond', { window: a.window, action: 'approve', prompt_id: p.prompt_id, timeout: 30_000 });
    assert.is(r.pressed, 'approve');
    // The harness sends the command's result to the model: that request is held.
    await a.fake.waitHeld(1, 60_000);
    await waitState('working', 30_000).finally(() => a.fake.release());
    await waitFor(() => existsSync(join(a.project, 'hello.txt')), { timeout: 60_000, what: 'hello.txt to be made by the approved command' }).catch(async (e) => {
      throw new Error(`${(e as Error).message}; respond said ${JSON.stringify(r)}\nscreen:\n${await a.screen()}`);
    });
    await waitState('idle');
    // What the pane published, collapsed: working, the approval, working after the answer, at rest.
    const states = a.states.slice(from).map((e) => e.state).filter((x, i, all) => i === 0 || all[i - 1] !== x);
    const order = ['working', 'needs_input', 'working', 'idle'];
    let k = 0;
    for (const st of states) if (st === order[k]) k++;
    assert.is(k, order.length, `published ${states.join(' → ')}`);
    assert.ok(a.states.slice(from).some((e) => e.state === 'needs_input' && e.kind === 'approval' && e.message === `approve ${TOOL[id]}: touch hello.txt`), 'the approval event names the command');
    // The same prompt id cannot be answered twice.
    const again = await a.d.cli(['respond', '-w', a.window, '--prompt-id', p.prompt_id, 'approve']);
    assert.is.not(again.code, 0);
  });

  it('a risky command needs risk_ack; an allow without it presses nothing, a deny goes through', async () => {
    a.fake.setCommand('rm -rf build');
    mkdirSync(join(a.project, 'build'), { recursive: true });
    await a.d.call('ask-agent', { window: a.window, text: 'Please clean the build folder', timeout: 120_000 });
    await waitState('needs_input', 120_000, (r) => r.message === `approve ${TOOL[id]}: rm -rf build`);
    const p = await a.d.call<{ prompt_id: string; offered: string[]; risk: { risky: boolean; ack: string[] } }>('peek-prompt', { window: a.window });
    assert.is(p.risk.risky, true);
    assert.equal(p.risk.ack, ['recursive delete']);
    const refused = await a.d.cli(['respond', '-w', a.window, '--prompt-id', p.prompt_id, 'approve', '--json']);
    assert.is(refused.code, 1);
    assert.match(refused.stderr + refused.stdout, /confirm_required/);
    assert.match(refused.stderr + refused.stdout, /recursive delete/);
    const wrong = await a.d.cli(['respond', '-w', a.window, '--prompt-id', p.prompt_id, 'approve', '--risk-ack', 'sudo']);
    assert.is(wrong.code, 1, 'an ack naming other rules is refused too');
    if (p.offered.includes('choose')) {
      const chose = await a.d.cli(['respond', '-w', a.window, '--prompt-id', p.prompt_id, 'choose', '1']);
      assert.is(chose.code, 1, 'choosing an allow option is held to the same rule');
    }
    assert.is((await a.row())?.state, 'needs_input', 'nothing was pressed');
    // The same prompt still stands (the id covers its lines and options): nothing reached the pane.
    const still = await a.d.call<{ prompt_id: string }>('peek-prompt', { window: a.window });
    assert.is(still.prompt_id, p.prompt_id, 'the prompt is unanswered');
    assert.ok(existsSync(join(a.project, 'build')), 'the command did not run');
    await a.d.call('respond', { window: a.window, action: 'deny', prompt_id: p.prompt_id, timeout: 30_000 });
    await waitFor(async () => (await a.row())?.state !== 'needs_input', { timeout: 60_000, what: 'the deny to take' });
    assert.ok(existsSync(join(a.project, 'build')), 'the denied command did not run');
  });

  t.run();
}

// Claude Code with notifications on: the real program's OSC 9 at its permission prompt, read by the
// notify rule (fixtures/screens/claude-code/2.1.332/notifications-120x40.json is the same text, captured).
if (HARNESSES.includes('claude-code')) {
  const t = suite('claude-code notifications');
  const a = new RealAgent('claude-code', {
    name: 'claude-notify',
    subscribe: ['agent-state', 'notification'],
    async prepare(x) {
      // 2.1.332's "auto" channel sends nothing in a tuios pane; "iterm2" writes OSC 9.
      const cfg = join(x.run.home, '.claude.json');
      writeFileSync(cfg, `${JSON.stringify({ ...JSON.parse(readFileSync(cfg, 'utf8')), preferredNotifChannel: 'iterm2' }, null, 2)}\n`);
    },
  });
  const it = a.gate(t);
  const notes = () => a.events.filter((e) => e.type === 'notification').map((e) => ({ title: e.title ?? '', body: e.body ?? '', osc: e.osc ?? 0 }));
  t.before(() => a.start());
  t.after(() => a.stop());

  it('its permission prompt sends OSC 9, and the notify rule makes the pane needs_input from source osc', async () => {
    await a.waitRow('idle', { what: 'claude-code at rest at its prompt' });
    await waitForQuiet(a.d, a.window, 2000, 60_000);
    await a.d.call('ask-agent', { window: a.window, text: 'Please create hello.txt', timeout: 120_000 });
    await waitFor(() => notes().some((n) => n.body.includes('needs your permission')), { timeout: 60_000, what: 'the permission notification' }).catch(async (e) => {
      throw new Error(`${(e as Error).message}; notifications ${JSON.stringify(notes())}\nscreen:\n${await a.screen()}`);
    });
    const n = notes().find((x) => x.body.includes('needs your permission'))!;
    assert.equal(n, { title: '', body: 'Claude needs your permission', osc: 9 }, 'the text the fixture holds');
    // The claim stands from osc while the prompt is unanswered (the form does not repaint).
    await waitFor(() => a.states.some((e) => e.source === 'osc' && e.state === 'needs_input'), { timeout: 10_000, what: 'an agent-state event from source osc' }).catch((e) => {
      throw new Error(`${(e as Error).message}; ${a.published()}`);
    });
    const ev = a.states.find((e) => e.source === 'osc' && e.state === 'needs_input')!;
    assert.is(ev.kind, 'approval');
    assert.is(ev.message, 'approval: Claude needs your permission', "the notification's own words, fronted by the rule's kind");
    assert.not.ok(existsSync(join(a.project, 'hello.txt')), 'nothing was approved');
    // Answered, the turn goes on: the pane writes, the notification goes stale, and it comes to rest.
    await a.d.ok(['send-keys', '-w', a.window, 'Enter']);
    await waitFor(() => existsSync(join(a.project, 'hello.txt')), { timeout: 60_000, what: 'hello.txt to be made by the approved command' });
    await a.waitRow('idle', { timeout: 60_000, what: 'claude-code at rest after the turn' });
  });

  t.run();
}
