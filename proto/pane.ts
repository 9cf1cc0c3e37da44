// The pane side of `tuios agent-proto` (spec: Headless agents over a protocol): the conversation
// as a plain transcript with a prompt line under it, the state reported from the protocol alone,
// metadata and activity on the side, permissions answered with a number key or from the Inbox.
// It knows no protocol: an adapter (proto/acp.ts, proto/codex.ts) calls it as a ProtoSink. Every
// string from the agent passes paneText/paneLine before the pane sees it.
import type { ProtoAgent, ProtoMetaKey, ProtoPermissionRequest, ProtoSink, ProtoTurnEnd } from './agent.js';
import { reportFor, type ProtoEvent, type ProtoState } from './state.js';
import { MetaTracker } from './meta.js';
import { KeyReader, type Key } from './keys.js';
import { PermissionQuestion } from './permission.js';
import { paneLine, paneText, capText } from './sanitize.js';
import type { ActivityEvent } from './daemon.js';
import { firstLine } from '../core/integrations/hooks/text.js';
import { PROMPT_MAX_BYTES } from '../core/limits.js';

/** What the pane side needs from the daemon (proto/daemon.ts DaemonLink; tests give their own). */
export interface PaneDaemon {
  report(r: NonNullable<ReturnType<typeof reportFor>>): Promise<void>;
  hold(tool: string, line: string, signal: AbortSignal): Promise<'allow' | 'deny' | null>;
  meta(values: Record<string, string>): void;
  activity(event: ActivityEvent, text: string, state: ProtoState): void;
}

/** A reply line is cut here, a detail line of a permission at the width of a line. */
const LINE_MAX = 4000;
const TITLE_MAX = 300;
const OPTION_MAX = 80;
const DETAIL_LINES_MAX = 20;
/** The reply text kept for the turn's `done` message and its activity. */
const REPLY_KEPT_MAX = 4096;

interface OpenQuestion {
  q: PermissionQuestion;
  resolve(id: string | null): void;
  hold: AbortController | null;
}

export class ProtoPane implements ProtoSink {
  private readonly keys = new KeyReader();
  private readonly metaKeys = new MetaTracker();
  private last: ProtoState | null = null;
  private reports: Promise<void> = Promise.resolve();
  private line = '';
  private partial = '';
  private reply = '';
  private turn = false;
  private exitedWhy: string | null = null;
  private question: OpenQuestion | null = null;
  private agentName = '';
  private readonly tools = new Map<string, string>();

  constructor(
    private readonly agent: ProtoAgent,
    private readonly daemon: PaneDaemon,
    private readonly out: (s: string) => void,
    private readonly now: () => number = () => Date.now(),
    private readonly onLeave: () => void = () => undefined,
  ) {}

  /** The state reports in the order they were made (tests wait on it). */
  settled(): Promise<void> {
    return this.reports;
  }

  private report(ev: ProtoEvent): Promise<void> {
    const r = reportFor(ev, this.last);
    if (!r) return this.reports;
    this.last = r.state;
    this.reports = this.reports.then(() => this.daemon.report(r));
    return this.reports;
  }

  // ---- the screen --------------------------------------------------------------------------

  /** Writes transcript lines above the prompt line, then draws the prompt line again. */
  private print(lines: string): void {
    this.out('\r\x1b[2K' + lines.replace(/\n/g, '\r\n') + (lines.endsWith('\n') ? '' : '\r\n'));
    this.drawPrompt();
  }

  private drawPrompt(): void {
    let p: string;
    if (this.exitedWhy !== null) p = '(the agent has exited; ctrl+d closes the pane) ';
    else if (this.question) p = `answer 1-${this.question.q.options.length} > `;
    else p = (this.turn ? '(working; ctrl+c cancels) ' : '') + '> ' + this.line;
    this.out('\r\x1b[2K' + p);
  }

  // ---- the ProtoSink -----------------------------------------------------------------------

  opened(info: { agent?: string; model?: string }): void {
    this.agentName = info.agent ? paneLine(info.agent, 80) : '';
    const model = info.model ? paneLine(info.model, 80) : '';
    this.print(`connected${this.agentName ? ` to ${this.agentName}` : ''}${model ? ` (${model})` : ''}`);
    void this.report({ kind: 'opened' });
  }

  replyText(chunk: string): void {
    const text = paneText(chunk);
    if (this.reply.length < REPLY_KEPT_MAX) this.reply = capText(this.reply + text, REPLY_KEPT_MAX);
    this.partial += text;
    const cut = this.partial.lastIndexOf('\n');
    if (cut < 0) {
      if (this.partial.length > LINE_MAX) {
        this.print(this.partial.slice(0, LINE_MAX));
        this.partial = '';
      }
      return;
    }
    const whole = this.partial.slice(0, cut);
    this.partial = this.partial.slice(cut + 1);
    this.print(whole.split('\n').map((l) => capText(l, LINE_MAX)).join('\n'));
  }

  private flushReply(): void {
    if (this.partial) this.print(capText(this.partial, LINE_MAX));
    this.partial = '';
  }

  toolCall(ev: { id: string; title: string; phase: 'start' | 'end'; failed?: boolean }): void {
    this.flushReply();
    const title = paneLine(ev.title, TITLE_MAX) || this.tools.get(ev.id) || 'tool';
    if (ev.phase === 'start') {
      if (this.tools.size < 256) this.tools.set(ev.id, title);
      this.print(`  * ${title}`);
      this.daemon.activity('PreToolUse', title, this.last ?? 'working');
    } else {
      const started = this.tools.get(ev.id) ?? title;
      this.tools.delete(ev.id);
      this.print(`  ${ev.failed ? 'x' : '+'} ${started}${ev.failed ? ' (failed)' : ''}`);
      this.daemon.activity(ev.failed ? 'PostToolUseFailure' : 'PostToolUse', started, this.last ?? 'working');
    }
  }

  plan(entries: { text: string; done: boolean }[]): void {
    this.flushReply();
    const shown = entries.slice(0, 50).map((e) => `  [${e.done ? 'x' : ' '}] ${paneLine(e.text, TITLE_MAX)}`);
    this.print(['plan:', ...shown].join('\n'));
  }

  meta(key: ProtoMetaKey, value: string | null): void {
    const call = this.metaKeys.set(key, value);
    if (call) this.daemon.meta(call);
  }

  permission(req: ProtoPermissionRequest, signal: AbortSignal): Promise<string | null> {
    this.flushReply();
    // A newer question ends the older one unanswered (the agent moved on).
    this.endQuestion(null, null);
    const title = paneLine(req.title, TITLE_MAX) || 'permission';
    const q = new PermissionQuestion(req.options, this.now());
    const lines = [`permission: ${title}`];
    for (const d of req.detail.slice(0, DETAIL_LINES_MAX)) lines.push(`  ${paneLine(d, LINE_MAX)}`);
    q.options.forEach((o, i) => lines.push(`  ${i + 1} ${paneLine(o.label, OPTION_MAX) || o.kind}`));
    return new Promise<string | null>((resolve) => {
      const open: OpenQuestion = { q, resolve, hold: null };
      this.question = open;
      const needs = this.report({ kind: 'permission', line: title });
      if (req.oneLine && q.inboxOption('allow') && q.inboxOption('deny')) {
        lines.push('  (also in the Inbox: allow once or deny)');
        open.hold = new AbortController();
        const ctl = open.hold;
        // The hold needs the pane to be on needs_input first.
        void needs.then(() => (ctl.signal.aborted ? null : this.daemon.hold('run', title, ctl.signal))).then((b) => {
          if (!b || this.question !== open) return;
          const opt = q.inboxOption(b);
          if (!opt) return;
          this.print(`answered from the Inbox by the person: ${paneLine(opt.label, OPTION_MAX)}`);
          this.endQuestion(open, opt.id);
        });
      }
      this.print(lines.join('\n'));
      signal.addEventListener('abort', () => this.endQuestion(open, null), { once: true });
    });
  }

  /** Ends `which` (or whichever question is open, for null) with an answer or none. */
  private endQuestion(which: OpenQuestion | null, id: string | null): void {
    const open = this.question;
    if (!open || (which && open !== which)) return;
    this.question = null;
    open.hold?.abort();
    open.resolve(id);
    if (id !== null) void this.report({ kind: 'answered' });
    this.drawPrompt();
  }

  turnEnded(end: ProtoTurnEnd): void {
    this.flushReply();
    this.endQuestion(null, null);
    this.turn = false;
    if (end.kind === 'done') {
      const said = end.reply || this.reply;
      this.print('(turn done)');
      void this.report({ kind: 'done', reply: said });
      this.daemon.activity('Stop', firstLine(said), 'done');
    } else if (end.kind === 'cancelled') {
      this.print('(turn cancelled)');
      void this.report({ kind: 'cancelled' });
    } else {
      this.print(`(turn failed: ${paneLine(end.why, TITLE_MAX)})`);
      void this.report({ kind: 'failed', why: paneLine(end.why, TITLE_MAX) });
    }
    this.reply = '';
  }

  exited(why: string): void {
    this.flushReply();
    this.endQuestion(null, null);
    this.turn = false;
    this.exitedWhy = paneLine(why, TITLE_MAX);
    this.print(`(the agent exited: ${this.exitedWhy})`);
    void this.report({ kind: 'exited', why: this.exitedWhy });
  }

  // ---- the person's typing -----------------------------------------------------------------

  /** Bytes from the pane's terminal. */
  input(chunk: string): void {
    for (const k of this.keys.read(chunk)) this.key(k);
  }

  private key(k: Key): void {
    if (k.kind === 'eof' && (this.line === '' || this.exitedWhy !== null)) {
      this.onLeave();
      return;
    }
    if (this.question) {
      if (k.kind === 'interrupt') {
        void this.agent.cancel();
        return;
      }
      const opt = this.question.q.answer(k, this.now());
      if (opt) {
        this.print(`answered: ${paneLine(opt.label, OPTION_MAX)}`);
        this.endQuestion(this.question, opt.id);
      }
      return;
    }
    if (this.exitedWhy !== null) return;
    switch (k.kind) {
      case 'char':
      case 'paste':
        this.line = capText(this.line + paneText(k.kind === 'char' ? k.ch : k.text).replace(/\n/g, ' '), PROMPT_MAX_BYTES);
        break;
      case 'backspace':
        this.line = [...this.line].slice(0, -1).join('');
        break;
      case 'kill-line':
        this.line = '';
        break;
      case 'interrupt':
        if (this.turn) void this.agent.cancel();
        else this.line = '';
        break;
      case 'enter':
        this.submit();
        return;
      default:
        break;
    }
    this.drawPrompt();
  }

  private submit(): void {
    const text = this.line.trim();
    if (!text) return this.drawPrompt();
    if (this.turn) {
      this.print('(a turn is running: wait for it, or ctrl+c cancels it)');
      return;
    }
    this.line = '';
    this.turn = true;
    this.reply = '';
    this.print(`you: ${text}`);
    void this.report({ kind: 'prompt' });
    // Every key again, so values the daemon lost come back without waiting for a change.
    const all = this.metaKeys.turnStart();
    if (Object.keys(all).length) this.daemon.meta(all);
    this.daemon.activity('UserPromptSubmit', firstLine(text), 'working');
    this.agent.prompt(text).catch((e: unknown) => this.turnEnded({ kind: 'failed', why: e instanceof Error ? e.message : String(e) }));
  }
}
