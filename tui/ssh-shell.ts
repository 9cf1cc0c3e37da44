// The TUI over an SSH session channel (`ssh -p 2222 box`): the same createTui as the socket
// relay, with the channel as its byte stream. The peer authenticated with a key the person
// listed, so it attaches as the person, outside every pane.
import type { Services } from '../core/daemon/services.js';
import type { Caller } from '../core/rpc/caller.js';
import type { ShellRequest } from '../ssh-server/server.js';
import { createTui } from './index.js';

/** Connection ids for SSH TUI clients: far from the socket's, which count up from 1. */
let nextConn = 2_000_000;

export function sshShell(svc: Services, req: ShellRequest): void {
  const s = svc.model.mostRecentSession() ?? svc.model.createSession({ term: req.term });
  if (svc.model.windowsOf(s).length === 0) svc.model.createWindow(s, {});
  const caller: Caller = { connId: nextConn++, channel: 'tui', pid: null, uid: null, readOnly: false, paneHint: null };
  const client = svc.person.attach(caller, { kind: 'outside' }, s.id);
  const ch = req.channel;
  let open = true;
  const finish = () => {
    if (!open) return;
    open = false;
    svc.person.detach(client.id);
    tui.dispose();
  };
  const tui = (() => {
    try {
      return createTui({
        svc,
        client,
        caller,
        sessionId: s.id,
        cols: req.cols,
        rows: req.rows,
        term: req.term,
        ascii: false,
        write: (data) => {
          if (open) ch.write(data);
        },
        pendingBytes: () => (ch as unknown as { writableLength?: number }).writableLength ?? 0,
        onClose: (reason) => {
          if (!open) return;
          ch.write(reason === 'detached' ? `[detached (from session ${s.name})]\r\n` : `[exited: ${reason}]\r\n`);
          finish();
          ch.exit(0);
          ch.end();
        },
      });
    } catch (e) {
      svc.person.detach(client.id);
      throw e;
    }
  })();
  svc.log.info('client attached', { client: client.id, mode: 'ssh', peer: req.peer, session: s.id });
  ch.on('data', (b: Buffer) => {
    if (open) tui.input(b);
  });
  req.onResize((cols, rows) => {
    if (open) tui.resize(cols, rows);
  });
  ch.on('close', finish);
}
