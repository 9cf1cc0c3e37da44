// The permissions in force ([agents.permissions]): less takes effect at once when the config gives
// less; more waits for `tuios config-apply` from outside every pane (or a restart), since a process
// in a pane can write config.toml.
import type { Config } from '../config/schema.js';
import { defaultGrants, expand, parseGrants, type PermissionsConfig } from './grants.js';

export function permissionsFrom(c: Config): PermissionsConfig {
  const mode = c.agents.permissions.mode === 'open' ? 'open' : 'strict'; // an unknown mode reads as strict
  return { mode, grants: parseGrants(c.agents.permissions.grants) };
}

export class PermissionsState {
  current: PermissionsConfig;
  pending: PermissionsConfig | null = null;

  constructor(initial: PermissionsConfig) {
    this.current = initial;
  }

  /** A new config: less takes effect now, more waits to be applied by the person. */
  offer(next: PermissionsConfig): void {
    const now = expand(defaultGrants(this.current));
    const then = expand(defaultGrants(next));
    const widens = [...then].some((g) => !now.has(g));
    if (widens) this.pending = next;
    else {
      this.current = next;
      this.pending = null;
    }
  }

  apply(): boolean {
    if (!this.pending) return false;
    this.current = this.pending;
    this.pending = null;
    return true;
  }
}
