// The floor the ssh bench compares against: an ssh2 server whose shell channel is a node-pty sh
// and nothing else (no emulator, no TUI, no daemon), the bytes passed as they come both ways.
// What a server built on ssh2 and node-pty cannot go under on this machine. Bench use only: it
// listens on 127.0.0.1, takes any key, prints its port and runs until it is killed.
import ssh2 from 'ssh2';
import * as pty from 'node-pty';
import { generateHostKey } from '../../ssh-server/keys.js';

const { Server } = ssh2;
const srv = new Server({ hostKeys: [generateHostKey('ssh floor').private] }, (client) => {
  (client as unknown as { setNoDelay(on: boolean): void }).setNoDelay(true);
  client.on('authentication', (ctx) => ctx.accept());
  client.on('ready', () => {
    client.on('session', (accept) => {
      const s = accept();
      let size = { cols: 80, rows: 24 };
      s.on('pty', (ok, _no, info) => {
        size = { cols: info.cols, rows: info.rows };
        ok?.();
      });
      s.on('shell', (ok) => {
        const ch = ok();
        const p = pty.spawn('sh', [], { name: 'xterm-256color', ...size, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PS1: '$ ', ENV: '' } });
        p.onData((d) => ch.write(d));
        ch.on('data', (b: Buffer) => p.write(b.toString('latin1')));
        ch.on('close', () => p.kill());
      });
    });
  });
});
srv.listen(0, '127.0.0.1', () => console.log((srv.address() as { port: number }).port));
