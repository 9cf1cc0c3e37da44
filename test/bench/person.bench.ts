// Issue 6's benchmarks: the time to place a caller from its peer credentials (goal: under 1 ms
// median), and list-attention over 1000 items.
import { mkdtempSync, mkdirSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { startDaemon } from '../../core/daemon/main.js';
import { resolvePaths } from '../../core/config/paths.js';
import { placeCaller } from '../../core/security/placement.js';
import { waitFor } from '../helpers/wait.js';
import { RpcClient } from '../../core/rpc/client.js';
import { readPeer } from '../../core/rpc/caller.js';
import { createServer, connect, type Socket } from 'node:net';
import { median, fmt } from './helpers.js';
import type { Caller } from '../../core/rpc/caller.js';

const dir = mkdtempSync(join(tmpdir(), 'tuios-bench-person-'));
mkdirSync(join(dir, 'run'));
chmodSync(join(dir, 'run'), 0o700);
Object.assign(process.env, { XDG_RUNTIME_DIR: join(dir, 'run'), XDG_STATE_HOME: join(dir, 's'), XDG_CONFIG_HOME: join(dir, 'c'), HOME: dir, TUIOS_AGENT_STALL_SECONDS: '0' });
const d = await startDaemon(resolvePaths(process.env));
const { model, agents, inbox } = d.svc;
const s = model.createSession({ name: 'b' });
const panes: import("../../core/model/window.js").Window[] = [];
for (let i = 0; i < 50; i++) panes.push(model.createWindow(s, { name: `p${i}`, argv: ['sh', '-c', 'sleep 3600 & wait'] }));
await waitFor(() => panes.every((w) => w.pid), { what: 'panes started' });
// A process inside a pane: the sleep behind the pane's sh.
const { readChildren } = await import('../../core/pty/procfs.js');
const inner = await waitFor(() => readChildren(panes[25]!.pid!)[0], { what: 'the child in a pane' });
const deps = { model, socket: d.svc.paths.socket, daemonPid: -1 };
const caller = (pid: number): Caller => ({ connId: 1, channel: 'socket', pid, uid: 0, readOnly: false, paneHint: null });
const time = (pid: number) => {
  const xs: number[] = [];
  for (let i = 0; i < 500; i++) {
    const t = performance.now();
    placeCaller(caller(pid), deps);
    xs.push(performance.now() - t);
  }
  return median(xs) * 1000;
};
const outside = time(process.pid);
const inPane = time(inner);
console.log(`placing a caller from its pid (50 panes): outside every pane ${fmt(outside, 0)} us, inside a pane ${fmt(inPane, 0)} us median (goal < 1000 us)`);

// The whole step from the kernel's record: SO_PEERCRED on an accepted connection, then placing
// that pid. One connection from this process (outside every pane), one from a node in pane 30.
const benchSock = join(dir, 'run', 'bench.sock');
const accepted: Socket[] = [];
const srv = createServer((c) => accepted.push(c));
await new Promise<void>((r) => srv.listen(benchSock, () => r()));
const mine = connect(benchSock);
const paneNode = model.createWindow(s, { name: 'peer', argv: ['sh', '-c', `${process.execPath} -e "require('net').connect(process.argv[1]);setInterval(()=>{},1e6)" ${benchSock} & wait`] });
await waitFor(() => accepted.length >= 2, { what: 'both connections', timeout: 30_000 });
const fromCreds = (sock: Socket) => {
  const xs: number[] = [];
  let pid: number | null = null;
  for (let i = 0; i < 500; i++) {
    const t = performance.now();
    pid = readPeer(sock).pid;
    placeCaller(caller(pid!), deps);
    xs.push(performance.now() - t);
  }
  return { us: median(xs) * 1000, place: placeCaller(caller(pid!), deps).kind };
};
const byKind = accepted.map(fromCreds);
const out = byKind.find((x) => x.place === 'outside');
const pane = byKind.find((x) => x.place === 'pane');
console.log(`placing a caller from its peer credentials (SO_PEERCRED, then placement): outside every pane ${out ? fmt(out.us, 0) : '?'} us, inside a pane ${pane ? fmt(pane.us, 0) : '?'} us median (goal < 1000 us)`);
mine.destroy();
for (const c of accepted) c.destroy();
srv.close();
void paneNode;

for (let i = 0; i < 1000; i++) inbox.open('question', { windowId: panes[i % 50]!.id, summary: `question ${i} from an agent about something` });
const c = await RpcClient.connect(d.svc.paths.socket);
const xs: number[] = [];
let n = 0;
for (let i = 0; i < 50; i++) {
  const t = performance.now();
  const r = await c.call<{ items: unknown[] }>('list-attention');
  xs.push(performance.now() - t);
  n = r.items.length;
}
const ys: number[] = [];
for (let i = 0; i < 50; i++) {
  const t = performance.now();
  await c.call('list-attention', { select: 'session:b needs:you' });
  ys.push(performance.now() - t);
}
console.log(`list-attention over ${n} items: ${fmt(median(xs), 2)} ms median round trip; with a selector ${fmt(median(ys), 2)} ms`);
c.close();
void agents;
d.svc.shutdown('bench');
await d.stopped;
process.exit(0);
