// The verb client's reading of answers (core/rpc/client.ts): JSON lines that arrive cut anywhere,
// several at once, a character's bytes split between reads, and a long answer in many reads. A
// long answer, as list-agents --all-hosts of a large fleet gives, is read in time linear in its
// size: the client searched all it held for the line's end on every 64 KB read, which made it
// quadratic (3200 agents, 1.4 MB: 170 ms in the client alone).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RpcClient } from '../../core/rpc/client.js';

const dir = mkdtempSync(join(tmpdir(), 'tuios-rpc-lines-'));
const path = join(dir, 'sock');
/** An answer of `n` agent rows, about 140 bytes each; each text is made once, so the time measured is mostly the client's. */
function rows(n: number): { agents: Array<Record<string, string>> } {
  return { agents: Array.from({ length: n }, (_, i) => ({ host: `p${i % 64}`, window_id: String(i).padStart(32, '0'), name: `a${i}`, state: 'working', message: `step ${i} of the plan — déjà vu` })) };
}
const SMALL = 8000;
const texts = new Map([SMALL, 4 * SMALL].map((n) => [n, JSON.stringify(rows(n))]));

/** Writes `text` in pieces of `size` bytes, each in a turn of its own, so they arrive as separate reads. */
async function inPieces(s: Socket, text: string, size: number): Promise<void> {
  const b = Buffer.from(text);
  for (let i = 0; i < b.length; i += size) {
    s.write(b.subarray(i, i + size));
    await new Promise((r) => setImmediate(r));
  }
}

const answers: Record<string, (s: Socket, id: number, params: { n?: number }) => Promise<void> | void> = {
  rows: (s, id, p) => inPieces(s, `{"id":${id},"result":${texts.get(p.n!)}}\n`, 65536),
  // Two events and the start of the result in one write, the rest in another: cut inside the é.
  burst: async (s, id) => {
    const b = Buffer.from(`{"id":${id},"event":{"n":1}}\n{"id":${id},"event":{"n":2}}\n{"id":${id},"result":{"w":"café au lait"}}\n`);
    const cut = b.indexOf(Buffer.from('é')) + 1;
    s.write(b.subarray(0, cut));
    await new Promise((r) => setImmediate(r));
    s.write(b.subarray(cut));
  },
};

let server: Server;
const sockets = new Set<Socket>();

test.before(async () => {
  server = createServer((s) => {
    sockets.add(s);
    let held = '';
    s.on('data', (d) => {
      held += d.toString();
      for (let nl; (nl = held.indexOf('\n')) >= 0; ) {
        const req = JSON.parse(held.slice(0, nl)) as { id: number; verb: string; params: { n?: number } };
        held = held.slice(nl + 1);
        void answers[req.verb]!(s, req.id, req.params);
      }
    });
  });
  await new Promise<void>((r) => server.listen(path, r));
});

test.after(() => {
  for (const s of sockets) s.destroy();
  server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('events and an answer in one read, the answer cut inside a character, each arrive whole', async () => {
  const c = await RpcClient.connect(path);
  const events: unknown[] = [];
  const r = await c.stream<{ w: string }>('burst', {}, (e) => events.push(e));
  assert.equal(r, { w: 'café au lait' });
  assert.equal(events, [{ n: 1 }, { n: 2 }]);
  c.close();
});

test('a long answer in 64 KB reads arrives whole, in time linear in its size', async () => {
  const c = await RpcClient.connect(path);
  /**
   * The best of three reads of an answer of n rows: this process's CPU time, in ms (the client and
   * the server both run here). CPU time, not wall time: on a loaded machine the wait for a core
   * would swamp the ratio being measured, while the work done stays the work done.
   */
  const best = async (n: number) => {
    let ms = Infinity;
    for (let i = 0; i < 3; i++) {
      const t0 = process.cpuUsage();
      const r = await c.call<ReturnType<typeof rows>>('rows', { n });
      const used = process.cpuUsage(t0);
      ms = Math.min(ms, (used.user + used.system) / 1000);
      assert.is(r.agents.length, n);
      assert.is(r.agents[n - 1]!.name, `a${n - 1}`);
    }
    return ms;
  };
  await best(SMALL);
  const one = await best(SMALL);
  const four = await best(4 * SMALL);
  // Four times the text takes about four times the work (1.1 and 4.5 MB: 55 and 220 ms here, the
  // server's writing included); searching all it held on each read took twelve times (147, 1794).
  assert.ok(four < 8 * one, `${one.toFixed(0)} ms for ${SMALL} rows, ${four.toFixed(0)} ms for ${4 * SMALL}`);
  c.close();
});

test.run();
