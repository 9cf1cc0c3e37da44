// The hub's host-link events as they arrive, for the fleet bench's cut: when each host was shown
// down, and up again, in this process's clock.
import { performance } from 'node:perf_hooks';
import type { RpcClient } from '../../core/rpc/client.js';
import type { Host } from '../helpers/link.js';
import { waitFor } from '../helpers/wait.js';

export class HostLinks {
  private readonly seen: Array<{ host: string; state: string; at: number }> = [];
  private constructor(private readonly c: RpcClient) {}

  static async follow(hub: Host): Promise<HostLinks> {
    const c = await hub.d.client();
    const l = new HostLinks(c);
    await c.stream('subscribe', { types: ['host-link'] }, (e) => {
      const ev = e as { host: string; state: string };
      l.seen.push({ host: ev.host, state: ev.state, at: performance.now() });
    });
    return l;
  }

  /** The ms from `since` to the first event at or after it saying `host` is `state`. */
  async when(host: string, state: string, since: number, timeout: number): Promise<number> {
    const e = await waitFor(() => this.seen.find((x) => x.host === host && x.state === state && x.at >= since), { timeout, interval: 10, what: `${host} ${state} on the hub` });
    return e.at - since;
  }

  close(): void {
    this.c.close();
  }
}
