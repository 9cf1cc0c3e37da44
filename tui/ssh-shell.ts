// The TUI over an SSH session channel (`ssh -p 2222 box`): the same createTui as the socket
// relay, with the channel as its byte stream. A client on another machine authenticated with a
// key the person listed, so it attaches as the person, outside every pane, and gets the nonce; one
// on this machine is placed by its process, as `tuios attach` is, so ssh from a pane gets none.
// The channel's close (or its EOF: no more keys can come) detaches; a TUI that throws closes this
// channel and nothing else.
import type { Services } from '../core/daemon/services.js';
import type { Caller } from '../core/rpc/caller.js';
import { TuiosError } from '../core/errors.js';
import { enforce } from '../core/security/access.js';
import type { TuiFactory, TuiInstance } from '../core/verbs/tui.js';
import type { ShellRequest } from '../ssh-server/server.js';
import { createTui } from './index.js';

export function sshShell(svc: Services, req: ShellRequest, make: TuiFactory = createTui): void {
  const ch = req.channel;
  const end = (text: string, code: number) => {
    try {
      if (ch.destroyed) return;
      ch.write(text);
      ch.exit(code);
      ch.end();
    } catch (e) {
      svc.log.debug('ssh channel did not close cleanly', { peer: req.peer, error: String(e) });
    }
  };
  const refuse = (e: unknown) => {
    const msg = e instanceof TuiosError ? `${e.message}${e.hint ? ` ${e.hint}` : ''}` : 'The TUI could not start; the daemon log says why.';
    svc.log.info('ssh attach refused', { peer: req.peer, key: req.keyFingerprint, code: e instanceof TuiosError ? e.code : 'internal' });
    end(`tuios: ${msg}\r\n`, 1);
  };
  const placement = svc.placement(req.caller);
  let s = svc.model.mostRecentSession();
  try {
    if (placement.kind === 'pane' && s && placement.window.sessionId === s.id) {
      throw new TuiosError('forbidden', `This ssh runs in a pane of session ${s.name}; attaching it to itself would draw the session inside itself.`, 'Run ssh from a terminal outside tuios.');
    }
    // A drawing client types into every pane of its session: from inside a pane that takes write.
    if (placement.kind !== 'outside') enforce(svc, req.caller, { verb: 'attach', access: 'write', target: null, sessionId: s?.id ?? null });
    // Making the first session (or its first window) changes something: an observer only watches.
    const by = req.caller.readOnlyBy;
    if (req.caller.readOnly && (!s || svc.model.windowsOf(s).length === 0)) {
      throw new TuiosError('forbidden', `There is nothing to watch yet, and this client may not start a session: ${by?.why ?? 'it is read-only'}.`, `${by?.allow ?? 'A client that is not read-only'} allows it; or start one from a client that may.`);
    }
  } catch (e) {
    return refuse(e);
  }
  if (!s) s = svc.model.createSession({ term: req.term });
  if (svc.model.windowsOf(s).length === 0) svc.model.createWindow(s, {});
  const session = s;
  const client = svc.person.attach(req.caller, placement, session.id);
  // Outside every pane the TUI acts on the tui channel; inside one it keeps the peer's own
  // caller, so grants and placement judge it as they judge `tuios attach` from that pane.
  // An observe key's client stays read-only on the tui channel too (readOnlyBy names why).
  const caller: Caller = client.inside ? req.caller : { connId: req.caller.connId, channel: 'tui', pid: req.caller.pid, uid: req.caller.uid, readOnly: req.caller.readOnly, ...(req.caller.readOnlyBy ? { readOnlyBy: req.caller.readOnlyBy } : {}), paneHint: null };
  let open = true;
  let tui: TuiInstance | null = null;
  const finish = () => {
    if (!open) return;
    open = false;
    svc.person.detach(client.id);
    try {
      tui?.dispose();
    } catch (e) {
      svc.log.error('tui did not dispose cleanly', { client: client.id, error: e instanceof Error ? e.stack : String(e) });
    }
    svc.log.info('client detached', { client: client.id, mode: 'ssh', peer: req.peer });
  };
  /** A TUI that throws out of its own guards closes this session only. */
  const guarded = (where: string, fn: () => void) => {
    if (!open) return;
    try {
      fn();
    } catch (e) {
      svc.log.error('tui failed; closing its ssh session', { where, client: client.id, peer: req.peer, error: e instanceof Error ? e.stack : String(e) });
      finish();
      end('\x1b[?1049l\r\n[exited: the client hit an internal error (see the daemon log)]\r\n', 1);
    }
  };
  try {
    tui = make({
      svc,
      client,
      caller,
      sessionId: session.id,
      cols: req.cols,
      rows: req.rows,
      term: req.term,
      ascii: false,
      overSsh: true,
      write: (data) => {
        if (open && !ch.destroyed) ch.write(data);
      },
      pendingBytes: () => (ch as unknown as { writableLength?: number }).writableLength ?? 0,
      onClose: (reason) => {
        if (!open) return;
        finish();
        end(reason === 'detached' ? `[detached (from session ${session.name})]\r\n` : `[exited: ${reason}]\r\n`, 0);
      },
    });
  } catch (e) {
    open = false;
    svc.person.detach(client.id);
    return refuse(e);
  }
  svc.log.info('client attached', { client: client.id, mode: 'ssh', peer: req.peer, key: req.keyFingerprint, inside: client.inside, observe: req.caller.readOnly, session: session.id });
  ch.on('data', (b: Buffer) => guarded('input', () => tui!.input(b)));
  req.onResize((cols, rows) => guarded('resize', () => tui!.resize(cols, rows)));
  ch.on('end', () => {
    finish();
    end('', 0);
  });
  ch.on('close', finish);
}
