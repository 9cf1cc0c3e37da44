// The rail's rows of linked hosts (spec: The rail's agents section, Other machines): while the
// link is up a host's agent sits in the group its state puts it in, named `host:name`; while it
// is down the row is muted, after every group, and says when the host was last heard.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Canvas } from '../../tui/canvas.js';
import { openStreamTerminal } from '../../tui/terminal.js';
import { drawRail } from '../../tui/rail.js';
import { hostRailRow } from '../../tui/rows.js';
import { Emulator } from '../../core/screen/emulator.js';
import type { RemoteAgentRow } from '../../core/hosts/remote.js';

const NOW = 1_800_000_000_000;

function row(o: Partial<RemoteAgentRow>): RemoteAgentRow {
  return { host: 'build', window_id: 'w1', short_id: 'w1', name: 'claude', session: 'api', session_id: 's1', harness: 'claude-code', state: 'idle', kind: '', message: '', needs_you: false, state_since: NOW - 1000, finished_unread: false, group: null, cwd: null, down: false, seen_at: NOW, ...o };
}

async function railText(hosts: RemoteAgentRow[]): Promise<string[]> {
  let out = '';
  const cols = 30;
  const rows = 20;
  const t = openStreamTerminal(cols, rows, (s) => (out += s));
  try {
    const cv = new Canvas(t.term, cols, rows);
    drawRail(cv, { x: 0, y: 0, w: cols, h: rows }, { sessions: [{ id: 's', name: 'main', windows: 1, current: true, mark: null }], agents: [], hosts: hosts.map(hostRailRow), agentsSeen: true, focusedWindow: null, ascii: false, now: NOW, blocked: 0 });
    cv.draw();
  } finally {
    t.dispose();
  }
  const e = new Emulator({ cols, rows, scrollback: 0 });
  await new Promise<void>((r) => e.write(out, r));
  return e.screenLines();
}

test('an up host\'s row needing you comes first; a down host\'s comes last with when it was heard', async () => {
  const lines = await railText([
    row({ window_id: 'a', name: 'rest', state: 'idle' }),
    row({ host: 'gpu', window_id: 'b', name: 'gone', state: 'working', down: true, seen_at: NOW - 3 * 60_000 }),
    row({ window_id: 'c', name: 'asks', state: 'needs_input', kind: 'approval', message: 'approve Bash: make', needs_you: true }),
  ]);
  const text = lines.join('\n');
  const at = (s: string) => lines.findIndex((l) => l.includes(s));
  assert.ok(at('build:asks') >= 0 && at('build:rest') >= 0 && at('gpu:gone') >= 0, text);
  assert.ok(at('build:asks') < at('build:rest'), 'Needs you before At rest');
  assert.ok(at('build:rest') < at('gpu:gone'), 'a down host after every group');
  assert.match(lines[at('gpu:gone') + 1]!, /seen 3m ago/);
  assert.match(lines[at('build:asks') + 1]!, /approval/);
});

test('peer text is cleaned before it is drawn', () => {
  const r = hostRailRow(row({ name: 'x\x1b[31mred\x07', state: 'working', message: 'a\x1b]0;title\x07b', kind: '\x9bk' }));
  for (const t of [r.name, r.message, r.kind]) assert.not.match(t, /[\x00-\x1f\x7f-\x9f]/);
  assert.match(r.name, /^build:x/);
});

test.run();
