// `tuios agent-statusline claude-code` as Claude Code runs it, against a real daemon (spec: The
// status line feed, Finding the pane): it prints nothing of its own and exits 0 whatever goes wrong
// on the tuios side, within its 300 ms budget of a daemon that never answers; with --then the
// person's command gets the same stdin byte for byte (past 1 MiB too, which the wrapper itself does
// not read), its output is printed unchanged and its status is the wrapper's; a pane found from
// the session id when the environment was scrubbed; nothing under a TUIOS_AGENT naming another
// harness; and the `Stop` hook sends the value the interval held back.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { TestDaemon, BIN, ROOT } from '../helpers/daemon.js';
import { STATUSLINE_STDIN_MAX_BYTES } from '../../core/limits.js';
import { waitFor } from '../helpers/wait.js';

interface Run {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  ms: number;
}

function wrapper(env: Record<string, string>, args: string[], input: string | Buffer): Promise<Run> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const p = spawn(process.execPath, [BIN, 'agent-statusline', 'claude-code', '--integration', '1', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let stderr = '';
    p.stdout.on('data', (b: Buffer) => out.push(b));
    p.stderr.on('data', (b) => (stderr += b));
    p.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr, ms: Date.now() - t0 }));
    p.stdin.on('error', () => {});
    p.stdin.end(input);
  });
}

const payload = (o: { model?: string; cost?: number; used?: number | null; session?: string } = {}) =>
  JSON.stringify({
    session_id: o.session ?? '7aa59577-1f01-49cb-bae0-2c24d26d4142',
    model: { id: 'claude-opus-5-5', display_name: o.model ?? 'Opus 5.5' },
    cost: { total_cost_usd: o.cost ?? 1.2 },
    context_window: { used_percentage: o.used === undefined ? 42 : o.used },
  });

const t = suite('agent-statusline: the wrapper');
let d: TestDaemon;
let w = '';
let dir = '';

async function meta(window = w): Promise<Record<string, string>> {
  return (await d.call<{ meta: Record<string, string> }>('get-agent-state', { window })).meta;
}

let mark = 0;
async function inPane(cmd: string): Promise<string> {
  const m = `END${++mark}`;
  await d.ok(['send-text', '-w', w, `clear; ${cmd} 2>&1; echo "${m.slice(0, 2)}""${m.slice(2)}" rc=$?\n`]);
  return d.waitScreen(w, new RegExp(`${m} rc=\\d+`), 60_000);
}

t.before(async () => {
  d = await TestDaemon.start();
  await d.ok(['new-session', 'sl']);
  await d.ok(['new-window', '-s', 'sl', 'agent', '--cols', '200', '--rows', '50', 'sh']);
  w = (await d.call<{ windows: Array<{ id: string; name: string }> }>('list-windows')).windows.find((x) => x.name === 'agent')!.id;
  dir = mkdtempSync(join(tmpdir(), 'tuios-sl-wrapper-'));
});

t.after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await d.stop();
});

t('it writes model, context and cost for the pane, prints nothing, exits 0', async () => {
  const r = await wrapper({ ...d.env, TUIOS_PANE_ID: w }, ['--explain'], payload());
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout.length, 0, 'nothing of its own on stdout');
  assert.match(r.stderr, /set-agent-meta model=Opus 5\.5 context=42% cost=\$1\.20/);
  assert.equal(await meta(), { model: 'Opus 5.5', context: '42%', cost: '$1.20' });
  // The same values again: no daemon call at all.
  const again = await wrapper({ ...d.env, TUIOS_PANE_ID: w }, ['--explain'], payload());
  assert.match(again.stderr, /no value changed/);
  assert.not.match(again.stderr, /set-agent-meta/);
});

t('what the interval held back is sent by the Stop hook, and the run after it goes at once', async () => {
  const env = { ...d.env, TUIOS_PANE_ID: w };
  const held = await wrapper(env, ['--explain'], payload({ cost: 1.5, used: 44 }));
  assert.match(held.stderr, /held: context, cost changed/);
  assert.is((await meta()).cost, '$1.20', 'held: not written');
  const stop = JSON.parse(readFileSync(join(ROOT, 'fixtures', 'hooks', 'claude-code', 'Stop.json'), 'utf8')).payload;
  const h = await new Promise<string>((resolve) => {
    const p = spawn(process.execPath, [BIN, 'agent-hook', 'claude-code', '--explain', '--timeout', '5000'], { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let e = '';
    p.stderr.on('data', (b) => (e += b));
    p.on('close', () => resolve(e));
    p.stdin.end(JSON.stringify(stop));
  });
  assert.match(h, /status line: the turn ended: context, cost held back/);
  assert.equal(await meta(), { model: 'Opus 5.5', context: '44%', cost: '$1.50' });
  const after = await wrapper(env, ['--explain'], payload({ cost: 1.6, used: 44 }));
  assert.match(after.stderr, /the first run after the turn ended/);
  assert.is((await meta()).cost, '$1.60');
  const file = join(dirname(d.socket), `statusline-${w}.json`);
  const st = JSON.parse(readFileSync(file, 'utf8')) as { stop_at: number; sent_at: number };
  assert.ok(st.stop_at > 0 && st.sent_at >= st.stop_at, JSON.stringify(st));
});

t('a model change and context crossing 80% go at once', async () => {
  const env = { ...d.env, TUIOS_PANE_ID: w };
  assert.match((await wrapper(env, ['--explain'], payload({ model: 'Sonnet 5', cost: 1.6, used: 44 }))).stderr, /the model changed/);
  assert.match((await wrapper(env, ['--explain'], payload({ model: 'Sonnet 5', cost: 1.6, used: 81 }))).stderr, /context use crossed 80%/);
  assert.equal(await meta(), { model: 'Sonnet 5', context: '81%', cost: '$1.60' });
});

t('--then: the person\'s command gets the same stdin, its output is printed unchanged, its status is the wrapper\'s', async () => {
  const got = join(dir, 'got.json');
  const cmd = `cat > '${got}'; printf 'mine \\033[1mbold\\033[0m\\n'; exit 3`;
  const input = payload({ model: 'Opus 5.5', cost: 2 });
  const r = await wrapper({ ...d.env, TUIOS_PANE_ID: w }, ['--then', cmd], input);
  assert.is(r.code, 3);
  assert.is(r.stdout.toString('latin1'), 'mine \x1b[1mbold\x1b[0m\n');
  assert.is(readFileSync(got, 'utf8'), input);
  assert.is((await meta()).model, 'Opus 5.5', 'and the tuios side ran too');
  // A status line outside tuios, no daemon: only the person's command's doing.
  const none = await wrapper({ PATH: process.env.PATH!, HOME: dir, TUIOS_SERVER: join(dir, 'none.sock') }, ['--then', 'echo ok'], input);
  assert.equal([none.code, none.stdout.toString()], [0, 'ok\n']);
  const killed = await wrapper({ ...d.env, TUIOS_PANE_ID: w }, ['--then', 'kill -TERM $$'], input);
  assert.is(killed.code, 143, 'a command killed by a signal: 128 + its number');
});

t('stdin past 1 MiB: the person\'s command gets all of it, the wrapper reads none of it', async () => {
  const got = join(dir, 'big.json');
  const big = JSON.stringify({ ...JSON.parse(payload({ model: 'Huge' })), pad: 'x'.repeat(STATUSLINE_STDIN_MAX_BYTES) });
  const r = await wrapper({ ...d.env, TUIOS_PANE_ID: w }, ['--explain', '--then', `cat > '${got}'`], big);
  assert.is(r.code, 0);
  assert.is(readFileSync(got, 'utf8').length, big.length);
  assert.match(r.stderr, /over 1048576 bytes: not read/);
  assert.is.not((await meta()).model, 'Huge');
});

t('a person\'s command that never reads its stdin: the wrapper still reads the payload and feeds the pane', async () => {
  // Past a pipe's buffer (64 KiB), so writes to the command's closed stdin would fail or wait.
  const input = JSON.stringify({ ...JSON.parse(payload({ model: 'Unread', cost: 3 })), pad: 'y'.repeat(300 * 1024) });
  const r = await wrapper({ ...d.env, TUIOS_PANE_ID: w }, ['--explain', '--then', 'echo early'], input);
  assert.is(r.code, 0, r.stderr);
  assert.is(r.stdout.toString(), 'early\n');
  assert.is((await meta()).model, 'Unread');
});

t('whatever goes wrong on the tuios side: exit 0 and nothing printed', async () => {
  const env = { ...d.env, TUIOS_PANE_ID: w };
  for (const input of ['', 'not json', '[1,2]', '{"model":"x"}', '{']) {
    const r = await wrapper(env, [], input);
    assert.equal([r.code, r.stdout.length], [0, 0], JSON.stringify(input));
  }
  const other = await wrapper(env, [], payload());
  assert.is(other.code, 0);
  // Another harness, no harness, no pane, a pane id that is no pane.
  for (const args of [['--window', 'f'.repeat(32)]]) assert.is((await wrapper(env, args, payload({ model: 'Nope' }))).code, 0);
  assert.is((await wrapper({ ...d.env }, ['--explain'], payload({ model: 'Nope' }))).code, 0);
  assert.is.not((await meta()).model, 'Nope');
});

t('a daemon that never answers: given up after its 300 ms budget, exit 0', async () => {
  const sock = join(dir, 'mute.sock');
  const held: Socket[] = [];
  const server: Server = createServer((s) => held.push(s));
  await new Promise<void>((r) => server.listen(sock, r));
  try {
    const r = await wrapper({ ...d.env, TUIOS_SERVER: sock, TUIOS_PANE_ID: 'ab'.repeat(16) }, ['--explain'], payload({ model: 'Mute' }));
    assert.is(r.code, 0);
    assert.is(r.stdout.length, 0);
    assert.match(r.stderr, /gave up on the daemon after 300 ms/);
    // The whole process, Node's start included, on a loaded machine: well under the seconds a hang would take.
    assert.ok(r.ms < 5000, `${r.ms} ms`);
  } finally {
    for (const s of held) s.destroy();
    server.close();
  }
});

t('under a TUIOS_AGENT naming another harness: nothing is reported', async () => {
  const r = await wrapper({ ...d.env, TUIOS_PANE_ID: w, TUIOS_AGENT: 'codex' }, ['--explain'], payload({ model: 'Foreign' }));
  assert.is(r.code, 0);
  assert.match(r.stderr, /TUIOS_AGENT names codex/);
  assert.is.not((await meta()).model, 'Foreign');
  const same = await wrapper({ ...d.env, TUIOS_PANE_ID: w, TUIOS_AGENT: 'claude' }, [], payload({ model: 'Own' }));
  assert.is(same.code, 0);
  assert.is((await meta()).model, 'Own');
});

t('a harness that scrubbed the environment: the pane from the session id (resolve-pane)', async () => {
  const f = join(dir, 'payload.json');
  writeFileSync(f, payload({ model: 'Scrubbed', session: 'another-session' }));
  const out = await inPane(`env -u TUIOS_PANE_ID -u TUIOS_WINDOW_ID -u TUIOS_SESSION ${process.execPath} ${BIN} agent-statusline claude-code --explain < ${f}`);
  assert.match(out, /from the session id/);
  assert.is((await meta()).model, 'Scrubbed');
});

t('the pane\'s throttle file is removed when the pane closes', async () => {
  await d.ok(['new-window', '-s', 'sl', 'brief', 'sh']);
  const b = (await d.call<{ windows: Array<{ id: string; name: string }> }>('list-windows')).windows.find((x) => x.name === 'brief')!.id;
  const r = await wrapper({ ...d.env, TUIOS_PANE_ID: b }, ['--explain'], payload({ model: 'Brief' }));
  assert.match(r.stderr, /set-agent-meta model=Brief/);
  const file = join(dirname(d.socket), `statusline-${b}.json`);
  assert.ok(existsSync(file), 'the wrapper wrote its file');
  assert.equal(readdirSync(dirname(d.socket)).filter((n) => n.endsWith('.tmp')), [], 'no temp file is left beside it');
  await d.ok(['close-window', '-w', b]);
  await waitFor(() => !existsSync(file), { what: 'the file to go with the pane' });
  assert.ok(existsSync(join(dirname(d.socket), `statusline-${w}.json`)), 'another pane\'s file stays');
});

t.run();
