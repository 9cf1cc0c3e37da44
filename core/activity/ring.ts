// A pane's activity ring (spec: What the agent has been doing): the newest ACTIVITY_RING_MAX
// entries of what its agent did, in memory only. Every text that enters is the agent's, so it is
// cleaned on the way in: one line, control and invisible characters gone, likely secrets masked,
// cut to ACTIVITY_TEXT_MAX. Pure: the daemon's feed (core/activity/log.ts) decides what to push.
import { ACTIVITY_RING_MAX, ACTIVITY_TEXT_MAX } from '../limits.js';
import { cut, maskSecrets, oneLine } from '../integrations/hooks/text.js';

export const ENTRY_KINDS = ['prompt', 'tool', 'done', 'failed', 'said', 'state', 'subagent', 'session', 'command'] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

export interface ActivityEntry {
  /** Counts up per ring from 1: a reader that saw seq N asks for what came after. */
  seq: number;
  /** When it happened, ms since the epoch. */
  at: number;
  kind: EntryKind;
  /** The line, cleaned: `Bash: go test ./api/`, the prompt, what the agent said, the state. */
  text: string;
  /** tool, done, failed: the tool's name. */
  tool?: string;
  /** tool, done, failed, command: the call's argument (a command line, a path). */
  arg?: string;
  /** done: the file a write tool wrote, relative to the pane's folder where it is under it. */
  file?: string;
  /** done of a patch that wrote several (Codex's apply_patch): every one, the first being `file`. */
  files?: string[];
  /** command: the shell's exit status (OSC 133 D); done and failed of a shell tool: 0 or 1. */
  exit?: number | null;
}

export type NewEntry = Omit<ActivityEntry, 'seq' | 'at'> & { at?: number };

/** An agent's text as the ring keeps it: one line, masked, cut. */
export function cleanEntryText(text: string, max = ACTIVITY_TEXT_MAX): string {
  return cut(maskSecrets(oneLine(text)), max);
}

export class ActivityRing {
  private readonly entries: ActivityEntry[] = [];
  private seq = 0;

  constructor(private readonly max = ACTIVITY_RING_MAX) {}

  push(e: NewEntry): ActivityEntry {
    const entry: ActivityEntry = { ...e, seq: ++this.seq, at: e.at ?? Date.now(), text: cleanEntryText(e.text) };
    if (e.tool !== undefined) entry.tool = cleanEntryText(e.tool, 64);
    if (e.arg !== undefined) entry.arg = cleanEntryText(e.arg);
    if (e.file !== undefined) entry.file = cleanEntryText(e.file);
    if (e.files !== undefined) entry.files = e.files.slice(0, 16).map((f) => cleanEntryText(f));
    this.entries.push(entry);
    // The bound: the oldest entry goes once the ring is full.
    if (this.entries.length > this.max) this.entries.splice(0, this.entries.length - this.max);
    return entry;
  }

  get size(): number {
    return this.entries.length;
  }

  /** The entries at or after `since` (ms), oldest first; all of them without it. */
  list(since?: number): ActivityEntry[] {
    return since === undefined ? [...this.entries] : this.entries.filter((e) => e.at >= since);
  }

  /** The newest entry, or undefined. */
  last(): ActivityEntry | undefined {
    return this.entries[this.entries.length - 1];
  }

  /** The newest entry of a kind (with a tool, for a done or failed that closes a call). */
  lastOf(kind: EntryKind): ActivityEntry | undefined {
    for (let i = this.entries.length - 1; i >= 0; i--) if (this.entries[i]!.kind === kind) return this.entries[i];
    return undefined;
  }
}
