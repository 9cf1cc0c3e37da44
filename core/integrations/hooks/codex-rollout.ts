// Codex's automatic reviewer: a PermissionRequest it decides reports nothing (spec: What each
// event reports). Its rollout names the turn's `approvals_reviewer` and approval policy; the tail
// of the file, bounded, holds the current turn's context.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { CODEX_ROLLOUT_TAIL_BYTES } from '../../limits.js';

export function readTail(path: string, max = CODEX_ROLLOUT_TAIL_BYTES): string | null {
  let fd: number | null = null;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    const len = Math.min(size, max);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, size - len);
    return buf.toString('utf8');
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

/** True when the rollout's last turn context has the automatic reviewer with on-request or granular. */
export function autoReviewed(rollout: string): boolean {
  const lines = rollout.split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!;
    if (!l.includes('approval_policy') && !l.includes('approvals_reviewer')) continue;
    let o: unknown;
    try {
      o = JSON.parse(l);
    } catch {
      continue;
    }
    const ctx = (o as { payload?: Record<string, unknown> }).payload ?? (o as Record<string, unknown>);
    const reviewer = ctx.approvals_reviewer;
    const policy = ctx.approval_policy;
    const policyName = typeof policy === 'string' ? policy : policy && typeof policy === 'object' ? Object.keys(policy)[0] : '';
    return reviewer === 'auto_review' && (policyName === 'on-request' || policyName === 'granular');
  }
  return false;
}
