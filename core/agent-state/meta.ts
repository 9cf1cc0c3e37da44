// Agent metadata: short display-only facts a pane reports about its agent (model, context, cost).
// It never changes a state, a wait, an alert or a message. Pure, with the spec's limits.
import { stripControls } from '../pty/paste.js';
import { META_KEYS_PER_CALL, META_KEYS_PER_PANE, META_VALUE_MAX } from '../limits.js';

/** tuios's own keys: fed by its hooks, refused to set-agent-meta and kept by --clear. */
export const META_RESERVED = new Set(['now', 'prompt', 'subagents']);
export const META_KEY_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,31}$/;
/**
 * The source a harness's hooks write with (the model they name). It never replaces a value another
 * feed wrote: a status line or a protocol pane names the model as the person sees it, and updates it.
 */
export const HOOK_META_SOURCE = 'hook';

export interface MetaEntry {
  value: string;
  source: string;
  expiresAt: number | null;
  ttlMs: number | null;
}

export type MetaCheck = { ok: true } | { ok: false; field: string; message: string };

/** Validates one call before anything is written: the whole call is refused, never half applied. */
export function checkMetaCall(entries: Record<string, string | null>, opts: { allowReserved?: boolean } = {}): MetaCheck {
  const keys = Object.keys(entries);
  if (keys.length > META_KEYS_PER_CALL) return { ok: false, field: 'values', message: `at most ${META_KEYS_PER_CALL} keys in one call` };
  for (const k of keys) {
    if (!META_KEY_RE.test(k)) return { ok: false, field: `values.${k}`, message: 'a key is a letter then up to 31 letters, digits, _ . or -' };
    if (META_RESERVED.has(k) && !opts.allowReserved) return { ok: false, field: `values.${k}`, message: `${k} is tuios's own key and cannot be set` };
  }
  return { ok: true };
}

export function cleanMetaValue(v: string): string {
  return [...stripControls(v)].slice(0, META_VALUE_MAX).join('');
}

export class MetaTable {
  private readonly entries = new Map<string, MetaEntry>();

  get size(): number {
    return this.entries.size;
  }

  /**
   * Writes a call's values (null clears a key). A value equal to the one held changes nothing;
   * a TTL is renewed only once less than half of it is left, so a status line can write every
   * tick without a push per tick. Returns whether anything visible changed, or the refusal.
   */
  set(values: Record<string, string | null>, source: string, ttlMs: number | null, now: number): { changed: boolean } | { error: string } {
    const newKeys = Object.keys(values).filter((k) => values[k] !== null && !this.entries.has(k));
    if (this.entries.size + newKeys.length > META_KEYS_PER_PANE) return { error: `a pane holds at most ${META_KEYS_PER_PANE} keys` };
    let changed = false;
    for (const [k, raw] of Object.entries(values)) {
      if (raw === null) {
        changed = this.entries.delete(k) || changed;
        continue;
      }
      const value = cleanMetaValue(raw);
      const held = this.entries.get(k);
      if (held && held.value === value && held.source === source) {
        if (ttlMs !== null && (held.expiresAt === null || held.expiresAt - now < ttlMs / 2)) {
          held.expiresAt = now + ttlMs;
          held.ttlMs = ttlMs;
        } else if (ttlMs === null) {
          held.expiresAt = null;
          held.ttlMs = null;
        }
        continue;
      }
      // Map order is first-report order: an update keeps the key where it was.
      this.entries.set(k, { value, source, expiresAt: ttlMs !== null ? now + ttlMs : null, ttlMs });
      changed = true;
    }
    return { changed };
  }

  /** The source that wrote a key, or null when the pane has no such key. */
  sourceOf(key: string): string | null {
    return this.entries.get(key)?.source ?? null;
  }

  /** The values a hook may write: its keys that no other feed holds. */
  hookWritable(values: Record<string, string | null>): Record<string, string | null> {
    return Object.fromEntries(Object.entries(values).filter(([k]) => {
      const held = this.sourceOf(k);
      return held === null || held === HOOK_META_SOURCE;
    }));
  }

  /** --clear: removes every key but tuios's own (or only `source`'s, when given). */
  clear(source?: string): boolean {
    let changed = false;
    for (const [k, e] of this.entries) {
      if (META_RESERVED.has(k)) continue;
      if (source && e.source !== source) continue;
      this.entries.delete(k);
      changed = true;
    }
    return changed;
  }

  /** Drops keys whose TTL ran out; returns whether any went. */
  expire(now: number): boolean {
    let changed = false;
    for (const [k, e] of this.entries) {
      if (e.expiresAt !== null && e.expiresAt <= now) {
        this.entries.delete(k);
        changed = true;
      }
    }
    return changed;
  }

  nextExpiry(): number | null {
    let min: number | null = null;
    for (const e of this.entries.values()) if (e.expiresAt !== null && (min === null || e.expiresAt < min)) min = e.expiresAt;
    return min;
  }

  reset(): void {
    this.entries.clear();
  }

  toJSON(): Record<string, string> {
    return Object.fromEntries([...this.entries].map(([k, e]) => [k, e.value]));
  }
}
