// Prints still kept by verb name while they move into the verb records (core/rpc/print.ts runs them).

import { table, str } from '../rpc/print-helpers.js';

type Formatter = (r: Record<string, unknown>) => string;

/** Prints not yet moved into their verb records (core/rpc/verb.ts `print`). */
export const legacyFormatters: Record<string, Formatter> = {
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
        const exit = w.exit as { code: number | null; signal: number | null; reason?: string } | null;
        const agent = w.agent_state as { state?: string } | undefined;
        const ended = exit?.reason ? exit.reason.split(':')[0]! : exit?.signal ? `exited (signal ${exit.signal})` : `exited ${exit?.code}`;
        const state = exit ? ended : w.disconnected ? 'disconnected' : agent?.state && agent.state !== 'none' ? agent.state : 'running';
        // A process on a linked host: its pid there, as HOST:PID.
        const pid = w.host ? `${str(w.host)}:${w.host_pid ?? '-'}` : str(w.pid);
        return [str(w.session), str(w.name), str(w.short_id), pid, str(fg?.comm), `${w.cols}x${w.rows}`, state, str(w.cwd)];
      }),
    ]);
  },
  'capture-pane': (r) => (typeof r.fixture === 'string' ? (r.fixture as string).replace(/\n$/, '') : (r.lines as string[]).join('\n')),
  'capture-state': (r) => {
    const v = r.verdict as { state: string; source: string | null; rule: string | null };
    const by = [v.source, v.rule ? `rule ${v.rule}` : ''].filter(Boolean).join(', ');
    return `${str(r.path)}\ntuios said ${v.state}${by ? ` (${by})` : ''}; you said ${str(r.want)}, so the capture expects ${str(r.expect_state)}. Its colours: ${str(r.ansi_path)}`;
  },
  'new-session': (r) => str((r.window as Record<string, unknown>).id),
  'new-window': (r) => str(r.id),
  'wait-for': (r) => (typeof r.line === 'string' ? r.line : typeof r.state === 'string' ? r.state : ''),
  'list-verbs': (r) => {
    const vs = r.verbs as Array<{ name: string; summary: string }>;
    return table(vs.map((v) => [v.name, v.summary]));
  },
  'kill-server': () => '',
  'peek-prompt': (r) => {
    const opts = r.options as Array<{ n: number; label: string; selected: boolean }>;
    const risk = r.risk as { risky: boolean; ack: string[]; detail: string[] } | undefined;
    const out = [`${str(r.name)} waits ${Math.round(Number(r.waited_ms) / 1000)}s on ${str(r.kind)}${r.message ? `: ${risk?.risky ? 'risky: ' : ''}${str(r.message)}` : ''}`, `prompt ${str(r.prompt_id)} (rule ${str(r.rule)})`, '', String(r.fenced)];
    if (opts.length) out.push('', ...opts.map((o) => `${o.selected ? '❯' : ' '} ${o.n}. ${o.label}`));
    out.push('', `answers: ${(r.offered as string[]).join(', ') || 'none (answer it in the pane)'}`);
    if (risk?.risky) out.push(...risk.detail.map((d) => `risk: ${d}`), `allow with: --risk-ack ${JSON.stringify(risk.ack.join(','))}`);
    return out.join('\n');
  },
  'list-hosts': (r) => {
    const hs = r.hosts as Array<{ name: string; address: string; port: number; label: string; agents: number; items: number; mail_waiting: number; detail: string | null; state: string }>;
    if (hs.length === 0) return `no linked hosts (this machine is ${str(r.self)}); add one with: tuios hosts add NAME ADDRESS`;
    const rows = [['NAME', 'ADDRESS', 'STATE', 'AGENTS', 'INBOX'], ...hs.map((h) => [h.name, `${h.address}:${h.port}`, h.label, String(h.agents), String(h.items)])];
    const waiting = hs.filter((h) => h.mail_waiting > 0).map((h) => `${h.mail_waiting} message${h.mail_waiting === 1 ? '' : 's'} wait${h.mail_waiting === 1 ? 's' : ''} for the link to ${h.name}`);
    const why = hs.filter((h) => h.state === 'down' && h.detail).map((h) => `${h.name}: ${h.detail}`);
    return [table(rows), ...(waiting.length || why.length ? [''] : []), ...waiting, ...why].join('\n');
  },
  'add-host': (r) => `linked to ${str(r.host)} at ${str(r.address)}:${str(r.port)} (host key ${str(r.fingerprint)}${r.key_recorded ? ', recorded' : ''})`,
  'remove-host': (r) => `removed ${str(r.host ?? r.removed)}${Number(r.mail_dropped) > 0 ? `; ${str(r.mail_dropped)} waiting messages dropped` : ''}`,
  respond: (r) => `pressed ${str(r.pressed)}; ${str(r.ended) === 'timeout' ? `the pane is still ${str(r.state)}` : `it is ${str(r.state)} now`}`,
  'ssh-host-key': (r) => String(r.line),
  'ssh-status': (r) => {
    const at = r.listening as { host: string; port: number } | null;
    if (!at) return r.enabled ? 'ssh: not listening (the daemon log says why)' : 'ssh: off ([ssh] enabled = false)';
    return [`listening on ${at.host}:${at.port}, host key ${str(r.fingerprint)}`, `${str(r.connections)} connections, ${str(r.shells)} shells open; ${str(r.authorized_keys)} keys authorized`, `${str(r.accepted)} logins, ${str(r.auth_refused)} refused; ${str(r.requests_refused)} requests refused`].join('\n');
  },
  'explain-agent-detect': (r) => String(r.text),
  'read-agent-messages': (r) => {
    const ms = r.messages as Array<{ id: number; thread: number; at: number; fenced: string; subject: string }>;
    const head = r.peek_forced ? 'peek_forced: nothing was marked read\n' : '';
    if (ms.length === 0) return head + 'no messages';
    return head + ms.map((m) => `#${m.thread} message ${m.id}, ${new Date(m.at).toISOString()}${m.subject ? `: ${m.subject}` : ''}\n${m.fenced}`).join('\n\n');
  },
  'send-agent-message': (r) => {
    // Mail for another machine says what became of it; mail here says nothing, as before.
    const h = r.host as { host: string; delivered: boolean; held?: boolean; held_for?: string | null; waiting?: number; reason?: string } | undefined;
    if (!h) return '';
    if (h.delivered) return h.held ? `delivered to ${h.host}, held there for the person (it was for ${str(h.held_for)})` : `delivered to ${h.host}`;
    return `queued for ${h.host}: ${str(h.waiting)} waiting (${str(h.reason)}); it goes when the link is back`;
  },
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
  'new-worktree': (r) => `${str(r.session)}  ${str(r.path)}  (${str(r.branch)} from ${str(r.base)})`,
  'list-worktrees': (r) => {
    type Row = Record<string, unknown>;
    const repos = r.repositories as Array<{ name: string; main: string | null; worktrees: Row[] }>;
    if (repos.length === 0) return 'no worktrees';
    return repos
      .map((g) => `${g.name}${g.main ? `  (${g.main})` : ''}\n` + table([['SESSION', 'BRANCH', 'BASE', 'AGENT', 'STATE', 'DIRTY', 'AHEAD', 'PATH'], ...g.worktrees.map((w) => [str(w.session), str(w.branch), str(w.base), str(w.harness), String(w.state) + (w.prompt_status ? ` (prompt ${w.prompt_status})` : ''), str(w.dirty), str(w.ahead), str(w.path)])]).replace(/^/gm, '  '))
      .join('\n\n');
  },
  'diff-worktree': (r) => {
    const files = r.files as Array<{ path: string; status: string; added: number | null; deleted: number | null }>;
    const head = `${str(r.session)}: ${files.length} file${files.length === 1 ? '' : 's'}, +${str(r.added)} -${str(r.deleted)}, ${str(r.commits)} commit${r.commits === 1 ? '' : 's'} past ${str(r.base)}${r.truncated ? ' (truncated)' : ''}`;
    const list = files.map((f) => `${f.status} ${f.path}  ${f.added === null ? 'binary' : `+${f.added} -${f.deleted}`}`).join('\n');
    return [head, list, typeof r.patch === 'string' && r.patch ? '\n' + (r.patch as string).replace(/\n$/, '') : ''].filter(Boolean).join('\n');
  },
  'remove-worktree': (r) => {
    const x = r.removed as Record<string, unknown>;
    return `removed ${str(x.session)} (${str(x.path)})${x.branch_deleted ? '' : `; branch ${str(x.branch)} kept`}`;
  },
  'pull-worktree': (r) => `${str(r.session)}  ${str(r.path)}  (${str(r.branch)} at ${String(r.head).slice(0, 12)}, ${Math.round(Number(r.bytes) / 1024)} KB)`,
  'start-agent': (r) => `${str(r.window_id)}  ${str(r.name)} ${str(r.state)}${r.prompt_status ? ` prompt ${str(r.prompt_status)}` : ''}`,
  'fan-out': (r) => {
    const as = r.attempts as Array<Record<string, unknown>>;
    return `group ${str(r.group)} from ${str(r.base)}\n` + table([['SESSION', 'BRANCH', 'AGENT', 'STATE', 'PROMPT'], ...as.map((a) => [str(a.session), str(a.branch), str(a.harness), str(a.state), str(a.prompt_status)])]);
  },
  'keep-fan': (r) => {
    const removed = r.removed as Array<{ session: string }>;
    const lines = [`kept ${str(r.kept)}${r.merged ? ` (merged into ${str((r.merged as Record<string, unknown>).into)})` : ''}; removed ${removed.length ? removed.map((x) => x.session).join(', ') : 'none'}`];
    for (const n of r.notes as string[]) lines.push(n);
    return lines.join('\n');
  },
};
