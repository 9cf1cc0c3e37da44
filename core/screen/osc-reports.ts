// What a pane's own escape sequences report, as the emulator parses them: notifications (OSC 9,
// 777, 99), progress (OSC 9;4) and shell prompt marks (OSC 133).

export interface Notification {
  /** Which sequence carried it: 9, 777 or 99; 0 when a program sent it another way (herdr's notification.show). */
  osc: 9 | 777 | 99 | 0;
  title: string;
  body: string;
}

/** OSC 9;4: state 0 remove, 1 set, 2 error, 3 indeterminate, 4 paused. */
export interface ProgressReport {
  state: 0 | 1 | 2 | 3 | 4;
  percent: number | null;
}

/** A report as the rules and fixtures write it: `4;<state>`, and `;<percent>` where it means something. */
export function progressText(p: ProgressReport | null): string | undefined {
  if (!p) return undefined;
  return p.state === 0 || p.state === 3 || p.percent === null ? `4;${p.state}` : `4;${p.state};${p.percent}`;
}

export interface PromptMark {
  /** OSC 133 A (prompt start), B (input start), C (output start), D (command done). */
  kind: 'A' | 'B' | 'C' | 'D';
  exitCode: number | null;
}

export function safeBase64(s: string): string {
  try {
    return Buffer.from(s, 'base64').toString('utf8');
  } catch {
    return '';
  }
}

export function parseProgress(data: string): ProgressReport | null {
  const parts = data.split(';');
  if (parts[0] !== '4') return null;
  const st = Number.parseInt(parts[1] ?? '0', 10);
  if (!(st >= 0 && st <= 4)) return null;
  const pct = parts[2] !== undefined && parts[2] !== '' ? Number.parseInt(parts[2], 10) : NaN;
  return {
    state: st as ProgressReport['state'],
    percent: Number.isFinite(pct) ? Math.max(0, Math.min(100, pct)) : null,
  };
}
