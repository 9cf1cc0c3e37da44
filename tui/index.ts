// The TUI's public surface: createTui for a transport (the socket relay, an SSH session
// channel), and the daemon extension that registers it at start-up.
import type { Services } from '../core/daemon/services.js';
import { provideTui, type TuiOptions, type TuiInstance } from '../core/verbs/tui.js';
import { TuiosError } from '../core/errors.js';
import { Tui } from './app.js';

export type { TuiOptions, TuiInstance } from '../core/verbs/tui.js';

/**
 * One TUI for one client. Throws a TuiosError when it cannot start (the caller refuses the
 * attach); after that nothing it does throws out: a failure closes its own client.
 */
export function createTui(o: TuiOptions): TuiInstance {
  let tui: Tui;
  try {
    tui = new Tui(o);
  } catch (e) {
    o.svc.log.error('tui did not start', { error: e instanceof Error ? e.stack : String(e) });
    throw new TuiosError('internal', 'The TUI could not start; the daemon log says why.');
  }
  return {
    input: (bytes) => tui.input(bytes),
    resize: (cols, rows) => tui.resize(cols, rows),
    dispose: () => tui.dispose(),
  };
}

/** The shape of a daemon extension (core/daemon/main.ts), kept structural here. */
export interface TuiExtension {
  name: string;
  start(svc: Services): Promise<{ dispose(): void }>;
}

export function tuiExtension(): TuiExtension {
  return {
    name: 'tui',
    async start(svc) {
      provideTui(svc, createTui);
      return { dispose: () => {} };
    },
  };
}
