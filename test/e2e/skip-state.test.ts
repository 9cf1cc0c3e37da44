// A skip-state screen rule on a real daemon and PTY (ADR-0046, point 5): while the pane shows a
// screen that says nothing about the agent (a pager, a picker), the last state holds, through
// repaints; once the screen is the agent's own again, the rules decide again. The harness is a
// user manifest in TUIOS_HARNESS_DIR; the stand-in is a shell under the harness's name that
// paints a screen per line it reads.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, writeFileSync, copyFileSync, chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestDaemon } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { stateOf, waitState } from '../helpers/agent-state.js';

const MANIFEST = `id = "pagerbot"
name = "Pager Bot"
source = "a test stand-in"
[detect]
comm = ["pagerbot"]
[screen]
lines = 24

[[screen.rule]]
id = "busy"
state = "working"
priority = 10
all = ["WORKING-MARK"]

[[screen.rule]]
id = "prompt"
state = "idle"
priority = 5
regex = ["^IDLE-MARK prompt \\\\d+$"]

[[screen.rule]]
id = "transcript-viewer"
skip_state = true
priority = 20
all = ["PAGER-MARK"]
`;

// One screen per line read: w the working screen, p the pager (with the count, so each is a
// repaint), i the idle prompt, anything else a screen no rule reads.
const PAINT = `stty -echo; n=0; while read x; do n=$((n+1)); printf '\\033[H\\033[2J'; case "$x" in w) echo "WORKING-MARK step $n";; i) echo "IDLE-MARK prompt $n";; p) echo "PAGER-MARK page $n";; *) echo "plain screen $n";; esac; done`;

test('a skip-state rule freezes the last state through repaints, and the rules decide again after it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-harnesses-'));
  writeFileSync(join(dir, 'pagerbot.toml'), MANIFEST);
  const d = await TestDaemon.start({ env: { TUIOS_HARNESS_DIR: dir, TUIOS_AGENT_DETECT_SECONDS: '0.3', TUIOS_AGENT_STALL_SECONDS: '0' } });
  try {
    const bin = join(d.dir, 'bin');
    mkdirSync(bin);
    copyFileSync('/bin/sh', join(bin, 'pagerbot'));
    chmodSync(join(bin, 'pagerbot'), 0o755);
    await d.ok(['new-session', 'skip']);
    const w = await d.call<{ id: string }>('new-window', { session: 'skip', name: 'pager', argv: [join(bin, 'pagerbot'), '-c', PAINT] });
    await waitState(d, w.id, (a) => a.harness_id === 'pagerbot', { timeout: 20_000, what: 'the stand-in attributed to pagerbot' });
    /** The detector's screen looks on the pane, and the screen generation the last one read. */
    const looks = async () => (await d.call<{ looks: { made: number; read_generation: number; screen_generation: number } }>('explain-agent-detect', { window: w.id })).looks;
    const paint = async (key: string, shows: RegExp) => {
      await d.call('send-text', { window: w.id, text: `${key}\r` });
      await waitFor(async () => shows.test((await d.screen(w.id)).split('\n')[0] ?? ''), { what: `the screen to show ${shows}` });
    };

    await paint('w', /^WORKING-MARK/);
    await waitState(d, w.id, 'working', { timeout: 20_000, what: 'working from the screen' });

    // The pager replaces the screen: the rules read a freeze, and the state holds through repaints.
    const seen = new Set<string>();
    const c = await d.client();
    await c.stream('subscribe', { types: ['agent-state'] }, (ev) => {
      const e = ev as { window_id?: string; state?: string };
      if (e.window_id === w.id && e.state) seen.add(e.state);
    });
    for (let i = 0; i < 4; i++) {
      const before = await looks();
      // This repaint's own frame (the count in it), not the one before it still on the screen.
      await paint('p', new RegExp(`^PAGER-MARK page ${i + 2}\\s*$`));
      // Each repaint is output the detector looks at: wait until a new look has read the screen as
      // it is now (nothing else prints until the next line), so the state below is what it decided.
      await waitFor(async () => {
        const l = await looks();
        return l.made > before.made && l.read_generation === l.screen_generation;
      }, { timeout: 20_000, what: `the detector's look at pager repaint ${i + 1}` });
      const ex = await d.call<{ freeze: boolean; rule: string | null }>('explain-agent-screen', { window: w.id });
      assert.equal([ex.freeze, ex.rule], [true, 'transcript-viewer'], 'the rules read the pager as a freeze');
      assert.is((await stateOf(d, w.id)).state, 'working', `still working after pager repaint ${i + 1}`);
    }
    assert.equal([...seen], [], 'no state event while the pager was up');

    // The pager closes on a screen no rule reads: with no freeze, the screen's working claim goes
    // (no evidence reads as unknown, never as at rest), so the freeze is what held it.
    await paint('q', /^plain screen/);
    await waitState(d, w.id, 'unknown', { timeout: 20_000, what: 'unknown once the pager is gone' });
    // And the rules decide again: the agent's prompt reads idle.
    await paint('i', /^IDLE-MARK/);
    await waitState(d, w.id, 'idle', { timeout: 20_000, what: 'idle at the prompt' });
    c.close();
  } finally {
    await d.stop();
  }
});

test.run();
