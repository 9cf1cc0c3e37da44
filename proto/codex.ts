// The Codex app-server adapter. This file is the stand-in until the adapter lands: it keeps the
// registry (proto/adapters.ts) building and says plainly that the protocol is not here yet.
import type { ProtoAgent, ProtoSink } from './agent.js';
import type { AdapterOptions } from './spawn.js';

export function codexAgent(_o: AdapterOptions): ProtoAgent {
  let sink: ProtoSink | null = null;
  return {
    async start(s) {
      sink = s;
      sink.exited('this build of tuios has no Codex app-server adapter');
    },
    async prompt() {
      sink?.turnEnded({ kind: 'failed', why: 'no Codex app-server adapter' });
    },
    async cancel() {},
    async close() {},
  };
}
