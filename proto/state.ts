// The state a protocol pane reports for itself (spec: Headless agents over a protocol, the first
// table). It comes from the protocol alone, never from the screen; each event maps to at most one
// `set-agent-state` report, source `report`, under the pane's harness. Pure: the pane side sends
// what this returns.
import { cleanMessage, firstLine } from '../core/integrations/hooks/text.js';

export type ProtoState = 'idle' | 'working' | 'done' | 'errored' | 'needs_input';

export type ProtoEvent =
  | { kind: 'opened' }
  | { kind: 'prompt' }
  | { kind: 'done'; reply: string }
  | { kind: 'cancelled' }
  | { kind: 'failed'; why: string }
  | { kind: 'permission'; line: string }
  | { kind: 'answered' }
  | { kind: 'exited'; why: string };

export interface StateReport {
  state: ProtoState;
  message?: string;
  kind?: 'approval';
}

/** The report for an event, given the state the pane last reported (null: none yet). */
export function reportFor(ev: ProtoEvent, last: ProtoState | null): StateReport | null {
  switch (ev.kind) {
    case 'opened':
      return { state: 'idle' };
    case 'prompt':
      return { state: 'working' };
    case 'done':
      return { state: 'done', message: firstLine(ev.reply) };
    case 'cancelled':
      return { state: 'idle' };
    case 'failed':
      return { state: 'errored', message: cleanMessage(ev.why) };
    case 'permission':
      return { state: 'needs_input', kind: 'approval', message: cleanMessage(ev.line) };
    case 'answered':
      // Only a pane still waiting goes back to work: a turn that ended meanwhile keeps its end.
      return last === 'needs_input' ? { state: 'working' } : null;
    case 'exited':
      return { state: 'errored', message: cleanMessage(ev.why) };
  }
}

/** The harness a protocol pane reports under: the manifest's, else the protocol's own name. */
export function harnessFor(manifestHarness: string | null | undefined, protocol: string): string {
  return manifestHarness && /^[a-z0-9][a-z0-9_-]{0,63}$/.test(manifestHarness) ? manifestHarness : protocol;
}
