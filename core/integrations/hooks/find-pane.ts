// Which pane a hook (or the status line wrapper) reports for (spec: Finding the pane): --window,
// then TUIOS_PANE_ID, then the daemon's resolve-pane from the process's session id, then its
// parent chain. Only panes on the daemon's own machine are matched.
import type { HookProcess } from './ancestry.js';

export interface FoundPane {
  window: string;
  /** Where it came from, for --explain. */
  via: string;
}

export interface PaneLookup {
  window?: string;
  env: Record<string, string | undefined>;
  proc: HookProcess;
  /** resolve-pane on the daemon, or null when it has no such verb. */
  resolve: ((params: { sid?: number; pids: number[] }) => Promise<{ window_id: string | null; via?: string } | null>) | null;
}

export async function findPane(o: PaneLookup): Promise<FoundPane | null> {
  if (o.window) return { window: o.window, via: '--window' };
  if (o.env.TUIOS_PANE_ID) return { window: o.env.TUIOS_PANE_ID, via: 'TUIOS_PANE_ID' };
  if (!o.resolve) return null;
  const r = await o.resolve({ sid: o.proc.sid ?? undefined, pids: o.proc.ancestors.slice(0, 32) }).catch(() => null);
  return r?.window_id ? { window: r.window_id, via: r.via ?? 'resolve-pane' } : null;
}
