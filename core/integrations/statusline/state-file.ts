// A pane's status line throttle state: a small file beside the daemon's socket, in its private
// folder, mode 0600 (spec: The status line feed). Written by the status line wrapper and by the
// `Stop` hook, read by both, and removed by the daemon when the pane closes. It is a cache, not a
// record: it is replaced atomically (core/store/atomic.ts) without fsync, a file
// that does not read as one is taken as none, and at most STATUSLINE_STATE_FILES_MAX are kept
// (the least recently written go when a new pane's file is made).
import { closeSync, openSync, readdirSync, readSync, statSync, unlinkSync } from 'node:fs';
import { writeFileAtomic } from '../../store/atomic.js';
import { dirname, join } from 'node:path';
import { STATUSLINE_STATE_FILE_MAX_BYTES, STATUSLINE_STATE_FILES_MAX } from '../../limits.js';
import { STATUS_KEYS, statusText, type StatusValues } from './payload.js';
import type { ThrottleState } from './throttle.js';

const PREFIX = 'statusline-';
const FILE_RE = /^statusline-[0-9a-f]{32}\.json$/;
/** A full pane id (core/ids.ts FULL_ID_RE, not imported: that module loads node:crypto). */
const PANE_ID_RE = /^[0-9a-f]{32}$/;

/** The pane's file beside the socket, or null for a pane id that is not a full one. */
export function stateFilePath(socket: string, window: string): string | null {
  return PANE_ID_RE.test(window) ? join(dirname(socket), `${PREFIX}${window}.json`) : null;
}

function valuesOf(v: unknown): StatusValues {
  const o = v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  const out: StatusValues = {};
  for (const k of STATUS_KEYS) if (typeof o[k] === 'string' && o[k] !== '') out[k] = statusText(o[k] as string);
  return out;
}

function numberOf(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : 0;
}

/** The state a file holds; null when it is missing, too long, or not one. */
export function parseState(text: string): ThrottleState | null {
  let o: Record<string, unknown>;
  try {
    const v = JSON.parse(text) as unknown;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
    o = v as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof o.agent !== 'string' || o.agent.length > 200) return null;
  return { agent: o.agent, sent: valuesOf(o.sent), sentAt: numberOf(o.sent_at), held: o.held === null || o.held === undefined ? null : valuesOf(o.held), stopAt: numberOf(o.stop_at) };
}

export function readState(path: string): ThrottleState | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(STATUSLINE_STATE_FILE_MAX_BYTES + 1);
    const n = readSync(fd, buf, 0, buf.length, 0);
    return n > STATUSLINE_STATE_FILE_MAX_BYTES ? null : parseState(buf.subarray(0, n).toString('utf8'));
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Replaces the file (a temp file renamed over it, 0600). A new pane's file makes room first. */
export function writeState(path: string, s: ThrottleState): void {
  const text = JSON.stringify({ agent: s.agent, sent: s.sent, sent_at: s.sentAt, held: s.held, stop_at: s.stopAt });
  let exists = true;
  try {
    statSync(path);
  } catch {
    exists = false;
  }
  if (!exists) pruneStateFiles(dirname(path), STATUSLINE_STATE_FILES_MAX - 1);
  // A cache: replaced atomically, not made durable.
  writeFileAtomic(path, text, { durable: false });
}

/** The pane closed: its file goes (spec: the throttle state is the pane's). */
export function removeStateFile(socket: string, window: string): void {
  const path = stateFilePath(socket, window);
  if (!path) return;
  try {
    unlinkSync(path);
  } catch {
    // none was written
  }
}

/** Keeps at most `keep` throttle files in `dir`, removing the least recently written. */
export function pruneStateFiles(dir: string, keep: number): number {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => FILE_RE.test(n));
  } catch {
    return 0;
  }
  if (names.length <= keep) return 0;
  const aged = names
    .map((n) => {
      try {
        return { n, at: statSync(join(dir, n)).mtimeMs };
      } catch {
        return { n, at: 0 };
      }
    })
    .sort((a, b) => a.at - b.at);
  let removed = 0;
  for (const { n } of aged.slice(0, names.length - keep)) {
    try {
      unlinkSync(join(dir, n));
      removed++;
    } catch {
      // another writer removed it
    }
  }
  return removed;
}
