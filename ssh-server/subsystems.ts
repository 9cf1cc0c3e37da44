// The seam between the SSH server and whatever answers an SSH subsystem (the link answers
// `tuios-link`). The composition root makes one registry and hands it to the SSH extension and to
// the parts that serve a subsystem; a part registers its handler when it starts and removes it
// when it stops. The SSH server looks a name up per request, so the order the parts start in does
// not matter, and a name nobody registered is refused like any other unknown subsystem.
import type { Duplex } from 'node:stream';

/** What the server knows about the client that asked for a subsystem. */
export interface SubsystemPeer {
  /** The client's address, as the TCP connection gave it. */
  address: string;
  port: number;
  /** SHA256:... of the key it authenticated with (as ssh-keygen -lf prints it). */
  keyFingerprint: string;
  /** The comment of that key's authorized_keys line (often user@host), for logs only. */
  keyComment: string;
}

/**
 * One subsystem channel. It is a byte stream both ways; `end()` closes it from our side, and its
 * 'close' event fires however it ends. A handler that throws has its channel closed (logged);
 * nothing a handler does reaches the other sessions.
 */
export type SubsystemChannel = Duplex & { close(): void };

export type SubsystemHandler = (channel: SubsystemChannel, peer: SubsystemPeer) => void;

/** Names OpenSSH would send: short, no spaces or controls (they are logged). */
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

export class SubsystemRegistry {
  private readonly handlers = new Map<string, SubsystemHandler>();

  /** Serves `name` with `handler` until the returned function is called. */
  register(name: string, handler: SubsystemHandler): () => void {
    if (!NAME_RE.test(name)) throw new Error(`an SSH subsystem name is letters, digits and ._@-, not ${JSON.stringify(name)}`);
    if (this.handlers.has(name)) throw new Error(`the SSH subsystem ${name} already has a handler`);
    this.handlers.set(name, handler);
    return () => {
      if (this.handlers.get(name) === handler) this.handlers.delete(name);
    };
  }

  get(name: string): SubsystemHandler | undefined {
    return this.handlers.get(name);
  }

  names(): string[] {
    return [...this.handlers.keys()];
  }
}
