// Pooled packet padding (ssh-server/padding.ts): the ciphers clients negotiate get it, and the
// connection carries every byte as before; a cipher class it does not know keeps its own.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import ssh2 from 'ssh2';
import type { Connection } from 'ssh2';
import { poolPadding } from '../../ssh-server/padding.js';
import { generateHostKey } from '../../ssh-server/keys.js';

const { Server, Client } = ssh2;

/** A server and a client over 127.0.0.1 with `cipher`; the server echoes a session's bytes. */
async function roundTrip(cipher: string, payloads: Buffer[]): Promise<{ pooled: boolean; got: Buffer }> {
  let pooled = false;
  const srv = new Server({ hostKeys: [generateHostKey('padding test').private] }, (client: Connection) => {
    client.on('authentication', (ctx) => ctx.accept());
    client.on('ready', () => {
      pooled = poolPadding((client as unknown as { _protocol: { _cipher: unknown } })._protocol._cipher);
      client.on('session', (accept) => {
        accept().on('exec', (ok) => {
          const ch = ok();
          ch.on('data', (b: Buffer) => ch.write(b));
          ch.on('end', () => (ch.exit(0), ch.end()));
        });
      });
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  const c = new Client();
  try {
    await new Promise<void>((resolve, reject) => {
      c.once('ready', resolve).once('error', reject);
      c.connect({ host: '127.0.0.1', port, username: 'u', password: 'p', hostVerifier: () => true, algorithms: { cipher: [cipher as never] } });
    });
    const got = await new Promise<Buffer>((resolve, reject) => {
      c.exec('echo', (e, ch) => {
        if (e) return reject(e);
        const parts: Buffer[] = [];
        const want = payloads.reduce((n, p) => n + p.length, 0);
        ch.on('data', (b: Buffer) => {
          parts.push(b);
          if (Buffer.concat(parts).length >= want) {
            ch.end();
            resolve(Buffer.concat(parts));
          }
        });
        for (const p of payloads) ch.write(p);
      });
    });
    return { pooled, got };
  } finally {
    c.end();
    await new Promise<void>((r) => srv.close(() => r()));
  }
}

// Sizes that land the padding on each of its lengths, and past the pool's refill.
const payloads = Array.from({ length: 300 }, (_, i) => Buffer.alloc(1 + (i % 40) + (i % 7) * 331, i & 255));

for (const cipher of ['aes128-gcm@openssh.com', 'aes256-gcm@openssh.com', 'chacha20-poly1305@openssh.com']) {
  test(`${cipher}: pooled padding, and every byte comes back`, async () => {
    const { pooled, got } = await roundTrip(cipher, payloads);
    assert.ok(pooled, 'the class is one it knows');
    assert.ok(got.equals(Buffer.concat(payloads)), 'the echo is the bytes sent');
  });
}

test('a cipher class it does not know keeps its own padding', async () => {
  const { pooled, got } = await roundTrip('aes128-ctr', payloads.slice(0, 20));
  assert.not.ok(pooled);
  assert.ok(got.equals(Buffer.concat(payloads.slice(0, 20))));
  assert.not.ok(poolPadding(null));
  assert.not.ok(poolPadding({ allocPacket: () => Buffer.alloc(0) }));
});

test.run();
