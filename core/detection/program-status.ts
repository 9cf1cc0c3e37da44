// The Program Status Protocol: OSC 7501 ; key=value ; ... ST. Any program in a pane reports what
// it does (docs/PROGRAM_STATUS.md); the emulator hands us the payload and this reads it. Values
// are percent-encoded so no `;` or control character can cross a field or break out of the OSC.
import { isState, KINDS, type AgentState, type BlockKind } from '../agent-state/state.js';
import { stripControls } from '../pty/paste.js';
import { PROGRAM_MESSAGE_MAX } from '../limits.js';

export const PROGRAM_STATUS_OSC = 7501;

export interface ProgramStatus {
  state: AgentState;
  message: string;
  kind: BlockKind;
  /** 0-100, or null when the report gave none. */
  progress: number | null;
}

export function parseProgramStatus(payload: string): ProgramStatus | { error: string } {
  if (payload.length > 4096) return { error: 'report longer than 4096 bytes' };
  const fields = new Map<string, string>();
  for (const part of payload.split(';')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) return { error: `field "${part.slice(0, 20)}" is not key=value` };
    let value: string;
    try {
      value = decodeURIComponent(part.slice(eq + 1));
    } catch {
      return { error: `field ${part.slice(0, eq)} is not percent-encoded` };
    }
    fields.set(part.slice(0, eq), value);
  }
  const state = fields.get('state');
  if (!state || !isState(state)) return { error: `state must be one of none, working, needs_input, idle, done, errored, unknown` };
  if (state === 'unknown') return { error: 'a program cannot report unknown' };
  const kindRaw = fields.get('kind') ?? '';
  if (kindRaw !== '' && !(KINDS as readonly string[]).includes(kindRaw)) return { error: 'kind must be approval, question or auth' };
  let progress: number | null = null;
  const p = fields.get('progress');
  if (p !== undefined && p !== '') {
    const n = Number(p);
    if (!Number.isFinite(n)) return { error: 'progress must be a number from 0 to 100' };
    progress = Math.max(0, Math.min(100, Math.round(n)));
  }
  const message = [...stripControls(fields.get('message') ?? '')].slice(0, PROGRAM_MESSAGE_MAX).join('');
  return { state, message, kind: kindRaw as BlockKind, progress };
}

/** The escape sequence `tuios status` writes. */
export function formatProgramStatus(s: { state: string; message?: string; kind?: string; progress?: number }): string {
  const parts = [`state=${encodeURIComponent(s.state)}`];
  if (s.message) parts.push(`message=${encodeURIComponent(s.message)}`);
  if (s.kind) parts.push(`kind=${encodeURIComponent(s.kind)}`);
  if (s.progress !== undefined) parts.push(`progress=${Math.round(s.progress)}`);
  return `\x1b]${PROGRAM_STATUS_OSC};${parts.join(';')}\x07`;
}
