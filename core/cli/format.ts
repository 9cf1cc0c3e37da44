// How results print without --json. A verb with no formatter here prints its result as
// `key: value` lines, or as JSON when it is nested.

type Formatter = (r: Record<string, unknown>) => string;

function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

function str(v: unknown): string {
  if (v === null || v === undefined) return '-';
  return String(v);
}

const formatters: Record<string, Formatter> = {
  'list-sessions': (r) => {
    const ss = r.sessions as Array<Record<string, unknown>>;
    if (ss.length === 0) return 'no sessions';
    return table([['NAME', 'WINDOWS', 'ID'], ...ss.map((s) => [str(s.name), str(s.windows), str(s.short_id)])]);
  },
  'list-windows': (r) => {
    const ws = r.windows as Array<Record<string, unknown>>;
    if (ws.length === 0) return 'no windows';
    return table([
      ['SESSION', 'NAME', 'ID', 'PID', 'COMMAND', 'SIZE', 'STATE', 'CWD'],
      ...ws.map((w) => {
        const fg = w.foreground as { comm?: string } | null;
        const exit = w.exit as { code: number | null; signal: number | null } | null;
        const agent = w.agent_state as { state?: string } | undefined;
        const state = exit ? (exit.signal ? `exited (signal ${exit.signal})` : `exited ${exit.code}`) : agent?.state && agent.state !== 'none' ? agent.state : 'running';
        return [str(w.session), str(w.name), str(w.short_id), str(w.pid), str(fg?.comm), `${w.cols}x${w.rows}`, state, str(w.cwd)];
      }),
    ]);
  },
  'capture-pane': (r) => (typeof r.fixture === 'string' ? (r.fixture as string).replace(/\n$/, '') : (r.lines as string[]).join('\n')),
  'new-session': (r) => str((r.window as Record<string, unknown>).id),
  'new-window': (r) => str(r.id),
  'wait-for': (r) => (typeof r.line === 'string' ? r.line : typeof r.state === 'string' ? r.state : ''),
  'list-verbs': (r) => {
    const vs = r.verbs as Array<{ name: string; summary: string }>;
    return table(vs.map((v) => [v.name, v.summary]));
  },
  'kill-server': () => '',
  'explain-agent-detect': (r) => String(r.text),
  'read-agent-messages': (r) => {
    const ms = r.messages as Array<{ id: number; thread: number; at: number; fenced: string; subject: string }>;
    const head = r.peek_forced ? 'peek_forced: nothing was marked read\n' : '';
    if (ms.length === 0) return head + 'no messages';
    return head + ms.map((m) => `#${m.thread} message ${m.id}, ${new Date(m.at).toISOString()}${m.subject ? `: ${m.subject}` : ''}\n${m.fenced}`).join('\n\n');
  },
  'send-agent-message': () => '',
  'ask-agent': (r) => (Array.isArray(r.panes) ? (r.panes as Array<Record<string, unknown>>).map((p) => `${p.name}: ${p.ok ? String(p.state) : (p.error as { code: string }).code}`).join('\n') : String(r.reply ?? '')),
  'queue-prompt': (r) => String(r.id),
  'list-queued': (r) => {
    const q = r.queued as Array<{ id: string; window_id: string; by: string; status: string; text: string }>;
    if (q.length === 0) return 'nothing queued';
    return table([['ID', 'PANE', 'BY', 'STATUS', 'TEXT'], ...q.map((m) => [m.id, m.window_id.slice(0, 12), m.by.length === 32 ? m.by.slice(0, 12) : m.by, m.status, m.text.split('\n')[0]!.slice(0, 60)])]);
  },
  'cancel-queued': () => '',
  'ask-human': (r) => (r.status === 'answered' ? String(r.answer) : String(r.status)),
  'list-attention': (r) => {
    const items = r.items as Array<{ id: number; kind: string; label: string; summary: string; waited_ms: number }>;
    if (items.length === 0) return 'nothing waits for you';
    const age = (ms: number) => (ms < 60_000 ? '<1m' : ms < 3_600_000 ? `${Math.floor(ms / 60_000)}m` : `${Math.floor(ms / 3_600_000)}h`);
    return table([['ID', 'KIND', 'WHERE', 'WAIT', 'WHAT'], ...items.map((i) => [String(i.id), i.kind, i.label, age(i.waited_ms), i.summary])]);
  },
  'explain-agent-screen': (r) => String(r.text),
  'get-agent-state': (r) => String(r.state),
  'set-agent-state': (r) => (r.applied ? '' : `not applied: ${r.state} stands (source ${r.source})`),
  'set-agent-meta': () => '',
  'set-agent-session': () => '',
  'list-agents': (r) => {
    const as = r.agents as Array<Record<string, unknown>>;
    if (as.length === 0) return 'no agents';
    return table([
      ['SESSION', 'NAME', 'ID', 'HARNESS', 'STATE', 'MESSAGE'],
      ...as.map((a) => [str(a.session), str(a.name), str(a.short_id), str(a.harness_id), String(a.state) + (a.finished_unread ? ' (unread)' : ''), str(a.message || '')]),
    ]);
  },
  'send-text': () => '',
  'send-keys': () => '',
  'close-window': () => '',
  'kill-session': () => '',
  'select-window': () => '',
  'set-window': () => '',
  'set-session-name': () => '',
  'resize-window': () => '',
};

export function formatResult(verb: string, result: unknown): string {
  if (result === null || result === undefined) return '';
  if (typeof result !== 'object') return String(result);
  const f = formatters[verb];
  if (f) return f(result as Record<string, unknown>);
  const entries = Object.entries(result as Record<string, unknown>);
  if (entries.every(([, v]) => v === null || typeof v !== 'object')) {
    return entries.map(([k, v]) => `${k}: ${str(v)}`).join('\n');
  }
  return JSON.stringify(result, null, 2);
}

export function addFormatter(verb: string, f: Formatter): void {
  formatters[verb] = f;
}
