// A window whose process runs on a linked host (new-window NAME --host HOST): two daemons on
// loopback, each with its own XDG folders, home and SSH port. The shell runs on the peer (its home,
// a file it writes there, its environment), its screen is here (capture-pane, send-text, resize,
// a flood that arrives whole), and `tuios set-agent-state` inside it reaches the peer's daemon,
// which forwards it to the window here; a process on the peer outside the pane is refused. A
// wait-for agent-message inside it waits on the hub as the window (past the link's generic cap)
// and a hook's request-approval holds the approval in the hub's Inbox, answered there; cutting
// the link ends such a wait in the pane at once with host_down. The
// link runs through a TCP relay the test can cut: the window shows it is disconnected, the process
// there goes on, and the window re-attaches to it with what it printed meanwhile. Last, the peer
// dies: the window stays listed, disconnected, and the hub goes on.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { waitFor } from '../helpers/wait.js';
import { BIN } from '../helpers/daemon.js';
import { screenStandin } from '../helpers/screen-standin.js';
import { agentRow, stateOf, waitState } from '../helpers/agent-state.js';
import { freePort, link, linkLogLines, restart, startHost, waitHost, type Host } from '../helpers/link.js';

/** A TCP relay to the peer's SSH port that can be cut (every connection dropped, new ones refused) and mended. */
class Relay {
  private readonly socks = new Set<Socket>();
  private refusing = false;
  private server!: Server;
  port = 0;

  async start(to: number): Promise<void> {
    this.port = await freePort();
    this.server = createServer((a) => {
      if (this.refusing) return void a.destroy();
      const b = connect(to, '127.0.0.1');
      for (const [x, y] of [[a, b], [b, a]] as const) {
        this.socks.add(x);
        x.on('error', () => y.destroy());
        x.on('close', () => {
          this.socks.delete(x);
          y.destroy();
        });
        x.pipe(y);
      }
    });
    await new Promise<void>((r) => this.server.listen(this.port, '127.0.0.1', () => r()));
  }

  cut(): void {
    this.refusing = true;
    for (const s of this.socks) s.destroy();
  }

  mend(): void {
    this.refusing = false;
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((r) => this.server.close(() => r()));
  }
}

const relay = new Relay();

let hub: Host;
let build: Host;
let win = '';

interface WindowRow {
  id: string;
  name: string;
  host: string | null;
  host_pid?: number | null;
  pid: number | null;
  running: boolean;
  disconnected?: boolean;
  cols: number;
  rows: number;
  exit: { code: number | null; signal: number | null; reason?: string } | null;
}

const windowOf = async (h: Host, id: string) => (await h.d.call<{ windows: WindowRow[] }>('list-windows')).windows.find((w) => w.id === id);
const tuios = `'${process.execPath}' '${BIN}'`;

/** The generic cap on a call from build to the hub (90 s in use): a wait from the pane outlives it. */
const CAP_S = 4;
/** Approvals held for the Inbox on the hub, for the hook inside the hosted pane. */
const HUB_CONFIG = '[agents.approvals]\nenabled = ["claude"]\nhold_seconds = 120\n';

test.before(async () => {
  build = await startHost('build', { env: { TUIOS_LINK_CALL_TIMEOUT_SECONDS: String(CAP_S) } });
  hub = await startHost('hub', { config: HUB_CONFIG });
  await relay.start(build.port);
  await link(hub, build, { port: relay.port });
  await hub.d.ok(['new-session', 'work', 'sleep', '3600']);
});

test.after(async () => {
  for (const h of [hub, build]) await h?.d.stop();
  await relay.close();
});

test('new-window --host runs the shell on the peer; the window lives here and says where its process runs', async () => {
  const out = await hub.d.ok(['new-window', '-s', 'work', '--host', 'build', 'remote', 'sh']);
  win = out.trim();
  assert.match(win, /^[0-9a-f]{32}$/);
  const w = await windowOf(hub, win);
  assert.ok(w, 'listed on the hub');
  assert.is(w!.host, 'build');
  assert.is(w!.pid, null, 'no pid on this machine');
  assert.ok(typeof w!.host_pid === 'number' && w!.host_pid > 0, 'its pid on build');
  assert.is(w!.running, true);
  const json = JSON.parse(await hub.d.ok(['list-windows', '--json'])) as { windows: WindowRow[] };
  assert.is(json.windows.find((x) => x.id === win)?.host, 'build');
  assert.not.ok((await build.d.call<{ windows: WindowRow[] }>('list-windows')).windows.some((x) => x.id === win), 'no window on build');
  const text = await hub.d.ok(['list-windows']);
  assert.match(text, new RegExp(`build:${w!.host_pid}`));
});

test('its output is on the hub\'s screen, send-text reaches it, and it runs on the peer with the pane\'s environment', async () => {
  await hub.d.call('send-text', { window: win, text: 'echo "home=$HOME"; echo "id=$TUIOS_PANE_ID"; echo "hosted=$TUIOS_PANE_HOSTED sock=${TUIOS_SOCKET-none} sess=${TUIOS_SESSION-none}"; echo proof > "$HOME/hosted-proof"; echo ma""rk-$((6*7))\n' });
  const screen = await hub.d.waitScreen(win, /mark-42/);
  assert.ok(screen.includes(`home=${build.d.home}\n`), `the shell's home is build's: ${screen}`);
  assert.ok(screen.includes(`id=${win}\n`), 'TUIOS_PANE_ID is the window id here');
  assert.match(screen, /^hosted=1 sock=none sess=none$/m);
  await waitFor(() => existsSync(join(build.d.home, 'hosted-proof')), { what: 'the file the pane wrote on build' });
  assert.is(readFileSync(join(build.d.home, 'hosted-proof'), 'utf8'), 'proof\n');
  assert.not.ok(existsSync(join(hub.d.home, 'hosted-proof')));
});

test('a resize here reaches the process there', async () => {
  await hub.d.ok(['resize-window', '-w', win, '--cols', '101', '--rows', '31']);
  await hub.d.call('send-text', { window: win, text: 'echo "size=$(stty size)"\n' });
  await hub.d.waitScreen(win, /size=31 101/);
});

test('a flood on the peer arrives whole: the PTY there waits while the emulator here is behind', async () => {
  // About 5 MB, ten times the emulator's high watermark.
  await hub.d.call('send-text', { window: win, text: "clear; seq -f '%08g ........................................................................' 1 60000; echo flood-en''d\n" });
  await hub.d.waitScreen(win, /^flood-end$/m, 120_000);
  const r = await hub.d.call<{ lines: string[] }>('capture-pane', { window: win, lines: 3000 });
  const nums = r.lines.map((l) => /^(\d{8}) \.+$/.exec(l)?.[1]).filter((x): x is string => !!x).map(Number);
  assert.ok(nums.length > 2500, `${nums.length} lines of the flood in the last 3000`);
  assert.is(nums[nums.length - 1], 60000);
  for (let i = 1; i < nums.length; i++) if (nums[i] !== nums[i - 1]! + 1) assert.unreachable(`line ${nums[i - 1]} is followed by ${nums[i]}`);
  assert.ok((await windowOf(hub, win))?.running, 'still running');
});

test('set-agent-state inside the pane reaches the peer\'s daemon, which forwards it: the hub\'s window takes the state and its Inbox row', async () => {
  await hub.d.call('send-text', { window: win, text: `clear; ${tuios} set-agent-state needs_input --kind question -m 'Which branch?' -s nosuch && echo repo""rted\n` });
  await hub.d.waitScreen(win, /reported/, 30_000);
  const st = await stateOf(hub.d, win);
  assert.is(st.state, 'needs_input');
  const att = await hub.d.call<{ items: Array<{ kind: string; window_id: string | null; summary: string; host?: string }> }>('list-attention');
  const item = att.items.find((i) => i.window_id === win);
  assert.ok(item, 'an Inbox row on the hub for the window');
  assert.is(item!.kind, 'question');
  assert.match(item!.summary, /Which branch\?/);
  assert.is(item!.host, undefined, 'a row of this machine, not a mirrored one');
  // Nothing of it on build: no window there takes the state.
  assert.is(await agentRow(build.d, win), undefined, 'no agent row for the window on build');
  // agent-hook's way: -w "$TUIOS_PANE_ID" from the environment; the state goes back to working.
  await hub.d.call('send-text', { window: win, text: `clear; ${tuios} set-agent-state -w "$TUIOS_PANE_ID" working -m 'on it' && echo seco""nd\n` });
  await hub.d.waitScreen(win, /second/, 30_000);
  await waitState(hub.d, win, 'working', { timeout: 20_000, what: 'working on the hub' });
});

test('a process on the peer outside the pane naming its id is refused forbidden; the hub\'s state does not move', async () => {
  const r = await build.d.cli(['set-agent-state', '-w', win, 'done']);
  assert.is(r.code, 1);
  assert.match(r.stderr, /forbidden/);
  const env = await build.d.cli(['set-agent-state', 'done'], { env: { TUIOS_PANE_ID: win } });
  assert.is(env.code, 1, 'naming it in TUIOS_PANE_ID is no proof either');
  assert.match(env.stderr, /forbidden/);
  assert.is((await stateOf(hub.d, win)).state, 'working');
  // And only report verbs travel: another verb from inside the pane is refused there.
  await hub.d.call('send-text', { window: win, text: `clear; ${tuios} capture-pane -w "$TUIOS_PANE_ID" 2>&1 | head -c 120; echo; echo thi""rd\n` });
  const s = await hub.d.waitScreen(win, /third/, 30_000);
  assert.match(s, /capture-pane does not reach a window on another machine/);
});

test('agent-hook inside the pane reports through the peer\'s daemon too, as that window', async () => {
  await hub.d.call('set-agent-state', { window: win, state: 'idle' });
  const payload = JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'conv-hosted', prompt: 'hosted work' });
  await hub.d.call('send-text', { window: win, text: `clear; printf '%s' '${payload}' | ${tuios} agent-hook claude-code --explain 2>&1 | grep -o 'set-agent-state [a-z_]*: [a-z]*'; echo ho""oked\n` });
  const s = await hub.d.waitScreen(win, /hooked/, 30_000);
  assert.ok(/set-agent-state working: applied/.test(s), s);
  const st = await stateOf(hub.d, win);
  assert.is(st.state, 'working');
  assert.is(st.harness_id, 'claude-code');
});

test('mail as the pane: it reads its window\'s mailbox on the hub, and sends as that window', async () => {
  await hub.d.ok(['send-agent-message', '-w', win, 'for the hosted pane']);
  await hub.d.call('send-text', { window: win, text: `clear; ${tuios} read-agent-messages --json | grep -o '"body": *"for the hosted pane"' | tr -d ' '; ${tuios} send-agent-message -w sleep 'hello from build' && echo ma""iled\n` });
  const s = await hub.d.waitScreen(win, /mailed/, 30_000);
  assert.ok(s.includes('"body":"forthehostedpane"'), s);
  const sleep = (await hub.d.call<{ windows: WindowRow[] }>('list-windows')).windows.find((x) => x.name === 'sleep')!.id;
  const box = await hub.d.call<{ messages: Array<{ body: string; from_pane: string | null }> }>('read-agent-messages', { window: sleep });
  const m = box.messages.find((x) => x.body === 'hello from build');
  assert.ok(m, 'delivered on the hub');
  assert.is(m!.from_pane, win, 'from the hosted window');
  // The hosted window's own read marked it read there.
  const own = await hub.d.call<{ messages: Array<{ body: string; read_at?: number | null; read?: boolean }> }>('read-agent-messages', { window: win, unread: true });
  assert.not.ok(own.messages.some((x) => x.body === 'for the hosted pane'), 'read by the pane');
});

const waitsBegun = () => linkLogLines(hub, /hosted pane wait began/).length;

test('wait-for agent-message inside the pane waits on the hub as that window, past the link\'s generic cap, and returns with the mail sent to it there', async () => {
  const before = waitsBegun();
  const t0 = Date.now();
  await hub.d.call('send-text', { window: win, text: `clear; ${tuios} wait-for agent-message --timeout 600000 --json | grep -o '"body": *"wake the hosted pane"' | tr -d ' '; echo wai""ted\n` });
  await waitFor(() => waitsBegun() > before, { timeout: 30_000, what: 'the wait to run on the hub' });
  // The wait must outlive build's generic cap on a call to the hub: it has its own deadline.
  await waitFor(() => Date.now() - t0 > (CAP_S + 2) * 1000, { timeout: 60_000, what: 'the generic cap to pass' });
  assert.not.match(await hub.d.screen(win), /waited/, 'still waiting past the cap');
  await hub.d.ok(['send-agent-message', '-w', win, 'wake the hosted pane']);
  const s = await hub.d.waitScreen(win, /^waited$/m, 30_000);
  assert.ok(s.includes('"body":"wakethehostedpane"'), s);
  const own = await hub.d.call<{ messages: Array<{ body: string }> }>('read-agent-messages', { window: win, unread: true });
  assert.not.ok(own.messages.some((x) => x.body === 'wake the hosted pane'), 'the wait, the window\'s own, marked it read');
  await waitFor(() => linkLogLines(hub, /hosted pane wait ended.*answered/).length > 0, { what: 'the hub to log the answered wait' });
});

test('request-approval from the hook inside the pane holds the approval in the hub\'s Inbox for that window; the person\'s answer there reaches the hook', async () => {
  const person = await hub.d.client();
  try {
    const att = await person.stream<{ nonce: string | null }>('attach', { mode: 'control' }, () => {});
    const nonce = att.nonce ?? '';
    assert.ok(nonce, 'the control client got a nonce');
    const payload = JSON.stringify({ hook_event_name: 'PermissionRequest', session_id: 'conv-hosted', tool_name: 'Bash', tool_input: { command: 'make deploy' } });
    await hub.d.call('send-text', { window: win, text: `clear; printf '%s' '${payload}' | ${tuios} agent-hook claude-code 2>/dev/null | grep -o '"behavior": *"[a-z]*"' | tr -d ' '; echo ho""ld-end\n` });
    interface Item { kind: string; window_id: string | null; held?: boolean; summary: string; host?: string; ref: { request_id?: string; line?: string } }
    const item = await waitFor(async () => (await hub.d.call<{ items: Item[] }>('list-attention')).items.find((i) => i.window_id === win && i.held && i.ref.request_id), { timeout: 30_000, what: 'the held approval on the hub' });
    assert.is(item.kind, 'approval');
    assert.is(item.summary, 'approve Bash: make deploy');
    assert.is(item.host, undefined, 'a row of the hub\'s own window');
    assert.is((await stateOf(hub.d, win)).state, 'needs_input');
    assert.not.match(await hub.d.screen(win), /hold-end/, 'the hook waits for the answer');
    // A key answers only after the item has been on screen a moment: wait on the daemon saying so.
    await waitFor(async () => {
      try {
        return await person.call('reply-approval', { request_id: item.ref.request_id, answer: '1', line: item.ref.line, nonce });
      } catch (e) {
        if (/just arrived/.test((e as Error).message)) return null;
        throw e;
      }
    }, { timeout: 10_000, what: 'the answer to be taken' });
    const s = await hub.d.waitScreen(win, /^hold-end$/m, 30_000);
    assert.match(s, /^"behavior":"allow"$/m);
    await waitState(hub.d, win, 'working', { timeout: 20_000, what: 'working again on the hub' });
  } finally {
    person.close();
  }
});

test('the link dropping ends a wait in the pane at once with host_down, and the wait on the hub with it', async () => {
  const before = waitsBegun();
  const ended = () => linkLogLines(hub, /hosted pane wait ended.*link dropped/).length;
  const endedBefore = ended();
  // Its output goes to a file on build: the hub's screen does not move while the link is down.
  await hub.d.call('send-text', { window: win, text: `clear; ${tuios} wait-for agent-message --timeout 600000 > "$HOME/cut-wait.out" 2>&1; echo "rc=$?" >> "$HOME/cut-wait.out"; touch "$HOME/cut-wait.done"\n` });
  await waitFor(() => waitsBegun() > before, { timeout: 30_000, what: 'the wait to run on the hub' });
  const t0 = Date.now();
  relay.cut();
  try {
    await waitFor(() => existsSync(join(build.d.home, 'cut-wait.done')), { timeout: 30_000, what: 'the wait in the pane to end' });
    const took = Date.now() - t0;
    const out = readFileSync(join(build.d.home, 'cut-wait.out'), 'utf8');
    assert.match(out, /host_down/);
    assert.match(out, /The link to hub dropped before it answered/);
    assert.not.match(out, /rc=0/);
    assert.ok(took < 15_000, `ended at once (${took} ms), not at its 600 s nor a cap`);
    await waitFor(() => ended() > endedBefore, { timeout: 30_000, what: 'the hub to end its wait with the link' });
  } finally {
    relay.mend();
  }
  await waitHost(hub, 'build', (h) => h.state === 'up', 'up again', 60_000);
  await waitFor(async () => (await windowOf(hub, win))?.disconnected === false, { timeout: 30_000, what: 'the window to re-attach' });
  await hub.d.call('send-text', { window: win, text: 'clear; echo back""-again\n' });
  await hub.d.waitScreen(win, /^back-again$/m, 30_000);
});

test('an agent in a pane on the peer is identified from the peer\'s process tree and read by the screen rules here; ask-agent types into it', async () => {
  const s = screenStandin(build.d.dir, 'hosted');
  const cwd = join(build.d.home, 'project');
  mkdirSync(cwd, { recursive: true });
  const w = await hub.d.call<{ id: string }>('new-window', { session: 'work', name: 'claude', argv: s.argv, env: s.env, cwd, cols: 120, rows: 40, host: 'build' });
  await waitState(hub.d, w.id, (a) => a.harness_id === 'claude-code' && a.state === 'idle', { timeout: 60_000, what: 'the hosted stand-in attributed to claude-code and at rest on the hub' });
  const fg = (await windowOf(hub, w.id)) as unknown as { foreground: { comm: string } | null; cwd: string };
  assert.is(fg.foreground?.comm, 'claude', 'the foreground program as read on build');
  assert.is(fg.cwd, cwd, 'its folder on build');
  const r = await hub.d.call<{ state: string }>('ask-agent', { window: w.id, text: 'run make deploy', timeout: 30_000 });
  assert.is(r.state, 'needs_input');
  await waitState(hub.d, w.id, (a) => a.message === 'approve Bash: make deploy', { timeout: 30_000, what: 'the approval read from the screen here' });
  assert.ok(s.events().some((e) => e.t === 'submit' && e.text === 'run make deploy'), 'the stand-in on build took the prompt');
  await hub.d.ok(['close-window', '-w', w.id]);
});

test('the process exiting there ends the window here with its status', async () => {
  const out = await hub.d.ok(['new-window', '-s', 'work', '--host', 'build', 'short', 'sh', '-c', 'echo bye; exit 3']);
  const id = out.trim();
  const w = await waitFor(async () => {
    const x = await windowOf(hub, id);
    return x && !x.running ? x : null;
  }, { what: 'the short window to end' });
  assert.equal(w.exit, { code: 3, signal: null });
  await hub.d.waitScreen(id, /bye/);
});

test('a host that is not linked, or whose [hosts] table refuses write, gives no window', async () => {
  const r = await hub.d.cli(['new-window', '-s', 'work', '--host', 'nowhere', 'x', 'sh']);
  assert.is(r.code, 1);
  assert.match(r.stderr, /host_not_found/);
  const cfg = join(build.d.dir, 'config', 'tuios', 'config.toml');
  const before = readFileSync(cfg, 'utf8');
  writeFileSync(cfg, `${before}\n[hosts.hub]\nwrite = false\n`);
  try {
    // The config is watched; until build reads it a window may still open (and is closed again).
    const refused = await waitFor(async () => {
      const x = await hub.d.cli(['new-window', '-s', 'work', '--host', 'build', 'nope', 'sh']);
      if (x.code === 0) await hub.d.ok(['close-window', '-w', x.stdout.trim()]);
      return x.code === 1 ? x : null;
    }, { timeout: 30_000, what: 'build to refuse the hub write' });
    assert.match(refused.stderr, /forbidden/);
    assert.match(refused.stderr, /write/);
    assert.not.ok((await hub.d.call<{ windows: WindowRow[] }>('list-windows')).windows.some((w) => w.name === 'nope'), 'no window left behind');
  } finally {
    writeFileSync(cfg, before);
  }
  await waitFor(async () => {
    const x = await hub.d.cli(['new-window', '-s', 'work', '--host', 'build', 'again', 'true']);
    return x.code === 0;
  }, { timeout: 30_000, what: 'build to take windows again' });
});

test('the link drops: the window shows it is disconnected, the process there goes on, and the window re-attaches with what it printed meanwhile', async () => {
  const before = (await windowOf(hub, win))!;
  await hub.d.call('send-text', { window: win, text: 'clear; touch "$HOME/waiting"; while [ ! -f "$HOME/go" ]; do sleep 0.2; done; echo printed-while-down; touch "$HOME/done"\n' });
  await waitFor(() => existsSync(join(build.d.home, 'waiting')), { what: 'the pane on build to wait for go' });
  relay.cut();
  await waitHost(hub, 'build', (h) => h.state === 'down', 'down');
  const down = await waitFor(async () => {
    const x = await windowOf(hub, win);
    return x?.disconnected ? x : null;
  }, { timeout: 30_000, what: 'the window to show it is disconnected' });
  assert.is(down.running, true, 'still listed as running there');
  assert.is(down.exit, null);
  assert.match(await hub.d.ok(['list-windows']), /disconnected/);
  // The process runs on while the link is down; its output waits there.
  writeFileSync(join(build.d.home, 'go'), '');
  await waitFor(() => existsSync(join(build.d.home, 'done')), { timeout: 30_000, what: 'the pane on build to go on while the link is down' });
  assert.not.match(await hub.d.screen(win), /printed-while-down/);
  relay.mend();
  await waitHost(hub, 'build', (h) => h.state === 'up', 'up again', 60_000);
  await hub.d.waitScreen(win, /^printed-while-down$/m, 30_000);
  const back = (await windowOf(hub, win))!;
  assert.is(back.disconnected, false);
  assert.is(back.host_pid, before.host_pid, 'the same process');
  // Typing reaches it again, and so do its reports.
  await hub.d.call('send-text', { window: win, text: `clear; ${tuios} set-agent-state idle && echo fou""rth\n` });
  await hub.d.waitScreen(win, /fourth/, 30_000);
  await waitState(hub.d, win, 'idle', { timeout: 20_000, what: 'idle on the hub' });
});

test('the hub stopping hangs up the processes it ran on the peer; a hosted window is not restored', async () => {
  const pid = (await windowOf(hub, win))!.host_pid!;
  const alive = (n: number) => {
    try {
      process.kill(n, 0);
      return true;
    } catch {
      return false;
    }
  };
  assert.ok(alive(pid));
  await restart(hub);
  await waitFor(() => !alive(pid), { timeout: 30_000, what: 'the hosted shell on build to be hung up' });
  assert.is(await windowOf(hub, win), undefined);
  await waitHost(hub, 'build', (h) => h.state === 'up', 'up after the restart', 60_000);
  const out = await hub.d.ok(['new-window', '-s', 'work', '--host', 'build', 'remote2', 'sh']);
  win = out.trim();
  await hub.d.call('send-text', { window: win, text: 'echo fou""rth\n' });
  await hub.d.waitScreen(win, /^fourth$/m);
});

test('the peer dies: the window stays listed, disconnected, and the hub goes on', async () => {
  build.d.kill9();
  await build.d.waitExit();
  await waitHost(hub, 'build', (h) => h.state === 'down', 'down');
  const w = await waitFor(async () => {
    const x = await windowOf(hub, win);
    return x?.disconnected ? x : null;
  }, { timeout: 30_000, what: 'the hosted window to show the link went' });
  assert.is(w.exit, null, 'it waits for the link, to re-attach');
  // The screen is still readable, and the daemon answers.
  assert.match(await hub.d.screen(win), /fourth/);
  assert.is((await hub.d.call<{ windows: WindowRow[] }>('list-windows')).windows.filter((x) => x.name === 'sleep').length, 1);
  // Closing it now ends it here at once.
  await hub.d.ok(['close-window', '-w', win]);
  assert.is(await windowOf(hub, win), undefined);
});

test.run();
