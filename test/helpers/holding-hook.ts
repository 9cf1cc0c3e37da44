// A real `tuios agent-hook claude-code` run for a pane with a PermissionRequest, which holds until
// the person answers from the Inbox (or the hold is released). Its budget to reach the daemon is
// raised from 500 ms to 10 s (--timeout): a loaded machine starts node slower than that, and the
// tests that use it test the hold, not the hook's deadline (hook-reliability tests that).
import { spawn } from 'node:child_process';
import { BIN } from './daemon.js';

export interface HoldingHook {
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** What --explain said so far (for a failure's message). */
  said(): string;
}

export function holdingHook(env: Record<string, string>, pane: string, conversation: string, command: string): HoldingHook {
  const payload = { hook_event_name: 'PermissionRequest', session_id: conversation, tool_name: 'Bash', tool_input: { command } };
  const p = spawn(process.execPath, [BIN, 'agent-hook', 'claude-code', '--explain', '--timeout', '10000'], { env: { ...env, TUIOS_PANE_ID: pane }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (b) => (stdout += b));
  p.stderr.on('data', (b) => (stderr += b));
  p.stdin.end(JSON.stringify(payload));
  return { done: new Promise((resolve) => p.on('close', (code) => resolve({ code, stdout, stderr }))), said: () => stderr };
}
