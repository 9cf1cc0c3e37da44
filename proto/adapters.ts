// The adapter of each protocol `start-agent --protocol` names.
import type { ProtoAgent } from './agent.js';
import type { AdapterOptions } from './spawn.js';
import { acpAgent } from './acp.js';
import { codexAgent } from './codex.js';

export const PROTOCOLS = ['acp', 'codex'] as const;
export type Protocol = (typeof PROTOCOLS)[number];

export const ADAPTERS: Record<Protocol, (o: AdapterOptions) => ProtoAgent> = {
  acp: acpAgent,
  codex: codexAgent,
};
