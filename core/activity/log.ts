// The daemon's activity rings (spec: What the agent has been doing): one per pane whose agent's
// hooks reported, made by the first report and fed by the later ones, by the pane's state changes
// and by the commands its shell finishes (OSC 133). A pane whose harness has no hooks, and a plain
// shell, has none; for those only the last command its shell finished is kept (one record, for
// compare-fan). Everything dies with the window. Nothing reads a ring to decide a state.
import type { Bus, Disposable } from '../bus.js';
import type { Window } from '../model/window.js';
import { ActivityRing, type ActivityEntry } from './ring.js';
import { SHELL_TOOLS, WRITE_TOOLS } from './recap.js';
import { relative, isAbsolute } from 'node:path';

/** What set-agent-state carries for the ring: the hook event and its activity line. */
export interface ReportFeed {
  event?: string;
  activity?: string;
  message?: string;
}

/** What report-agent-activity carries for the ring. */
export interface ActivityFeed {
  type: string;
  agent_id?: string;
  agent_type?: string;
  text?: string;
  status?: string;
  source?: string;
}

/** The last command a pane's shell finished (OSC 133 D), kept for every pane. */
export interface FinishedCommand {
  command: string;
  exit: number | null;
  at: number;
}

/** A subagent this ring saw start: its line at the stop says how long it ran. */
interface SubagentStart {
  name: string;
  at: number;
  /** Its tool calls, once the Agent call's result said (a background launch's, before its stop). */
  tools?: number;
}

const SUBAGENTS_TRACKED = 64;

/** `Bash: go test ./api/` as tool `Bash` and argument `go test ./api/`. */
export function splitCall(text: string): { tool: string; arg: string } {
  const m = /^([A-Za-z_][\w.-]{0,63}): (.*)$/s.exec(text);
  return m ? { tool: m[1]!, arg: m[2]! } : { tool: text.split(/\s/)[0] ?? '', arg: '' };
}

export class ActivityLog implements Disposable {
  private readonly rings = new Map<string, ActivityRing>();
  private readonly lastCommands = new Map<string, FinishedCommand>();
  private readonly subagents = new Map<string, Map<string, SubagentStart>>();
  private readonly launches = new Map<string, string[]>();
  /** The end lines of subagents that stopped, by id, so the Agent call's result can add its count. */
  private readonly ended = new Map<string, Map<string, ActivityEntry>>();
  private readonly subs: Disposable[] = [];
  /** Panes whose Stop report wrote the turn's said entry, so its turn_end adds none. */
  private readonly saidByStop = new Set<string>();

  constructor(private readonly bus: Bus) {
    this.subs.push(
      bus.on('window-closed', (ev) => this.forget(ev.window_id)),
      bus.on('agent-state', (ev) => {
        const ring = this.rings.get(ev.window_id);
        if (ring && ev.state !== ev.old_state) ring.push({ kind: 'state', text: ev.state });
      }),
    );
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
    this.rings.clear();
    this.lastCommands.clear();
  }

  forget(windowId: string): void {
    this.rings.delete(windowId);
    this.lastCommands.delete(windowId);
    this.subagents.delete(windowId);
    this.launches.delete(windowId);
    this.ended.delete(windowId);
    this.saidByStop.delete(windowId);
  }

  ringOf(w: Window): ActivityRing | undefined {
    return this.rings.get(w.id);
  }

  lastCommandOf(w: Window): FinishedCommand | null {
    return this.lastCommands.get(w.id) ?? null;
  }

  private ring(w: Window): ActivityRing {
    let r = this.rings.get(w.id);
    if (!r) this.rings.set(w.id, (r = new ActivityRing()));
    return r;
  }

  /** A path as the recap names it: relative to the pane's folder when it is under it. */
  private fileName(w: Window, path: string): string {
    const cwd = w.currentCwd();
    if (cwd && isAbsolute(path)) {
      const rel = relative(cwd, path);
      if (rel && !rel.startsWith('..') && !isAbsolute(rel)) return rel;
    }
    return path;
  }

  /** The pane's own set-agent-state report, from a hook: its event says what the activity line is. */
  fromReport(w: Window, r: ReportFeed): void {
    const text = r.activity ?? '';
    switch (r.event) {
      case 'UserPromptSubmit':
      case 'BeforeAgent':
        this.saidByStop.delete(w.id);
        if (text) this.ring(w).push({ kind: 'prompt', text });
        return;
      case 'PreToolUse':
      case 'BeforeTool': {
        if (!text) return;
        const { tool, arg } = splitCall(text);
        this.ring(w).push({ kind: 'tool', text, tool, ...(arg ? { arg } : {}) });
        return;
      }
      case 'PostToolUse':
      case 'PostToolUseFailure':
      case 'AfterTool': {
        const ring = this.ring(w);
        const failed = r.event === 'PostToolUseFailure';
        const result = splitCall(text);
        const call = ring.lastOf('tool');
        const closes = call && call.tool === result.tool ? call : undefined;
        const tool = closes?.tool ?? result.tool;
        const arg = closes?.arg;
        const resultLine = result.arg && result.arg !== 'finished' ? result.arg : '';
        // A patch names several files (apply_patch: `a.go, b.go`); every other write tool one.
        const written = !failed && arg && WRITE_TOOLS.has(tool) ? (tool === 'apply_patch' ? arg.split(', ') : [arg]).map((f) => this.fileName(w, f)) : [];
        const file = written.length ? written.join(', ') : undefined;
        const callText = closes ? closes.text : tool;
        const line = file ? `${callText}  (wrote ${file})` : resultLine ? `${callText}  ${resultLine}` : callText;
        ring.push({ kind: failed ? 'failed' : 'done', text: line, tool, ...(arg ? { arg } : {}), ...(written.length ? { file: written[0], ...(written.length > 1 ? { files: written } : {}) } : {}), ...(SHELL_TOOLS.has(tool) ? { exit: failed ? 1 : 0 } : {}) });
        return;
      }
      case 'Stop':
        // The turn's end: what the agent said comes before the state it leaves the pane in. The
        // turn_end activity the same hook sends after it is then the same turn.
        this.ring(w).push({ kind: 'said', text });
        this.saidByStop.add(w.id);
        return;
      default:
        return;
    }
  }

  /** report-agent-activity: a conversation's start, a turn's end, a subagent's start and stop. */
  fromActivity(w: Window, a: ActivityFeed): void {
    const ring = this.ring(w);
    switch (a.type) {
      case 'session_start':
        this.subagents.delete(w.id);
        this.launches.delete(w.id);
        ring.push({ kind: 'session', text: `conversation ${a.source ?? 'started'}` });
        return;
      case 'turn_end':
        if (this.saidByStop.delete(w.id)) return;
        ring.push({ kind: 'said', text: a.text ?? '' });
        return;
      case 'subagent_update': {
        // A launch (no id yet) names the next start of its type.
        if (!a.agent_id && a.status === 'running' && a.text) {
          const l = this.launches.get(w.id) ?? [];
          l.push(`${a.text} (${a.agent_type ?? 'agent'})`);
          this.launches.set(w.id, l.slice(-SUBAGENTS_TRACKED));
          return;
        }
        if (!a.agent_id || (a.status !== 'done' && a.status !== 'failed')) return;
        // The Agent call's result: how many tool calls it made, or that it failed. A foreground
        // subagent's stop comes first, so its line is amended; a failure with no stop ends it.
        const tools = /\((\d+) tool calls\)$/.exec(a.text ?? '')?.[1];
        const ended = this.ended.get(w.id)?.get(a.agent_id);
        if (ended) {
          if (a.status === 'failed') ended.text = ended.text.replace(/ (done|stopped) after /, ' failed after ');
          if (tools && !/, \d+ tools$/.test(ended.text)) ended.text += `, ${tools} tools`;
          return;
        }
        const m = this.subagents.get(w.id);
        const s = m?.get(a.agent_id);
        if (s && a.status === 'failed') {
          m!.delete(a.agent_id);
          this.endedEntry(w, a.agent_id, ring.push({ kind: 'subagent', text: `${s.name} failed after ${span(Date.now() - s.at)}${tools ? `, ${tools} tools` : ''}` }));
        } else if (s && tools) s.tools = Number(tools);
        return;
      }
      case 'subagent_start': {
        if (!a.agent_id) return;
        const l = this.launches.get(w.id) ?? [];
        const type = a.agent_type ?? 'agent';
        const i = l.findIndex((x) => x.endsWith(`(${type})`));
        const name = i >= 0 ? l.splice(i, 1)[0]! : l.length ? l.shift()! : type;
        let m = this.subagents.get(w.id);
        if (!m) this.subagents.set(w.id, (m = new Map()));
        if (m.size >= SUBAGENTS_TRACKED) m.delete(m.keys().next().value!);
        m.set(a.agent_id, { name, at: Date.now() });
        ring.push({ kind: 'subagent', text: `${name} started` });
        return;
      }
      case 'subagent_stop': {
        // Only a stop for a subagent this ring saw start is kept.
        const m = this.subagents.get(w.id);
        const s = a.agent_id ? m?.get(a.agent_id) : undefined;
        if (!s) return;
        m!.delete(a.agent_id!);
        const how = a.text ? 'done' : 'stopped';
        this.endedEntry(w, a.agent_id!, ring.push({ kind: 'subagent', text: `${s.name} ${how} after ${span(Date.now() - s.at)}${s.tools !== undefined ? `, ${s.tools} tools` : ''}` }));
        return;
      }
      default:
        return;
    }
  }

  private endedEntry(w: Window, id: string, e: ActivityEntry): void {
    let m = this.ended.get(w.id);
    if (!m) this.ended.set(w.id, (m = new Map()));
    if (m.size >= SUBAGENTS_TRACKED) m.delete(m.keys().next().value!);
    m.set(id, e);
  }

  /**
   * Watches the pane's shell prompt marks: the command line is the text between the input mark
   * (B) and the output mark (C); the done mark (D) finishes it with its exit status.
   */
  watch(w: Window): Disposable {
    let input: { line: number; col: number } | null = null;
    let running: string | null = null;
    return w.addScreenHooks({
      onPromptMark: (m) => {
        const scr = w.screen;
        if (m.kind === 'A') {
          input = null;
        } else if (m.kind === 'B') {
          input = { line: scr.viewportTop + scr.cursor.y, col: scr.cursor.x };
        } else if (m.kind === 'C') {
          running = input ? [...scr.lineText(input.line)].slice(input.col).join('').trim() : '';
          input = null;
        } else if (m.kind === 'D' && running !== null) {
          const command = running || 'a command';
          running = null;
          this.lastCommands.set(w.id, { command, exit: m.exitCode, at: Date.now() });
          const ring = this.rings.get(w.id);
          if (ring) ring.push({ kind: 'command', text: m.exitCode === null ? command : `${command}  exit ${m.exitCode}`, arg: command, exit: m.exitCode });
        }
      },
    });
  }
}

function span(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.round(s / 60)}m` : `${Math.floor(s / 3600)}h ${Math.round((s % 3600) / 60)}m`;
}

export type { ActivityEntry };
