// A ProtoSink (proto/agent.ts) that records every call an adapter makes, in order, and answers
// permissions as the test says: what the pane side would see, with no pane.
//
//   const sink = new RecordingSink((req) => req.options.find((o) => o.kind === 'allow_once')!.id);
//   await agent.start(sink);
//   await sink.until((e) => e.call === 'turnEnded');
import type { ProtoMetaKey, ProtoPermissionRequest, ProtoSink, ProtoTurnEnd } from '../../proto/agent.js';

export type SinkEvent =
  | { call: 'opened'; agent?: string; model?: string }
  | { call: 'replyText'; chunk: string }
  | { call: 'toolCall'; id: string; title: string; phase: 'start' | 'end'; failed?: boolean }
  | { call: 'plan'; entries: { text: string; done: boolean }[] }
  | { call: 'meta'; key: ProtoMetaKey; value: string | null }
  | { call: 'permission'; req: ProtoPermissionRequest }
  | { call: 'permissionAnswered'; choice: string | null }
  | { call: 'permissionAborted'; title: string }
  | { call: 'turnEnded'; end: ProtoTurnEnd }
  | { call: 'exited'; why: string };

/** How a test answers a permission: an option id, null, or undefined to wait until it is aborted. */
export type Answer = (req: ProtoPermissionRequest) => string | null | undefined | Promise<string | null | undefined>;

export class RecordingSink implements ProtoSink {
  readonly events: SinkEvent[] = [];
  private readonly watchers = new Set<() => void>();

  constructor(public answer: Answer = () => undefined) {}

  private push(e: SinkEvent): void {
    this.events.push(e);
    for (const w of [...this.watchers]) w();
  }

  opened(info: { agent?: string; model?: string }): void {
    this.push({ call: 'opened', ...info });
  }
  replyText(chunk: string): void {
    this.push({ call: 'replyText', chunk });
  }
  toolCall(ev: { id: string; title: string; phase: 'start' | 'end'; failed?: boolean }): void {
    this.push({ call: 'toolCall', ...ev });
  }
  plan(entries: { text: string; done: boolean }[]): void {
    this.push({ call: 'plan', entries });
  }
  meta(key: ProtoMetaKey, value: string | null): void {
    this.push({ call: 'meta', key, value });
  }
  async permission(req: ProtoPermissionRequest, signal: AbortSignal): Promise<string | null> {
    this.push({ call: 'permission', req });
    const aborted = new Promise<null>((resolve) => {
      if (signal.aborted) return resolve(null);
      signal.addEventListener('abort', () => resolve(null), { once: true });
    });
    const given = Promise.resolve(this.answer(req)).then((a) => (a === undefined ? aborted : a));
    const choice = await Promise.race([given, aborted]);
    if (signal.aborted) this.push({ call: 'permissionAborted', title: req.title });
    else this.push({ call: 'permissionAnswered', choice });
    return choice;
  }
  turnEnded(end: ProtoTurnEnd): void {
    this.push({ call: 'turnEnded', end });
  }
  exited(why: string): void {
    this.push({ call: 'exited', why });
  }

  /** The calls of one kind, in order. */
  of<C extends SinkEvent['call']>(call: C): Extract<SinkEvent, { call: C }>[] {
    return this.events.filter((e): e is Extract<SinkEvent, { call: C }> => e.call === call);
  }

  /** The reply text streamed so far, joined. */
  get reply(): string {
    return this.of('replyText').map((e) => e.chunk).join('');
  }

  /** Resolves with the first event (recorded already or to come) the predicate accepts. */
  until<E extends SinkEvent = SinkEvent>(pred: (e: SinkEvent) => boolean, timeoutMs = 10_000, what = 'a sink event'): Promise<E> {
    return new Promise<E>((resolve, reject) => {
      const found = this.events.find(pred);
      if (found) return resolve(found as E);
      const seen = this.events.length;
      const t = setTimeout(() => {
        this.watchers.delete(w);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; the sink saw: ${this.events.map((e) => e.call).join(', ')}`));
      }, timeoutMs);
      const w = () => {
        const e = this.events.slice(seen).find(pred);
        if (!e) return;
        clearTimeout(t);
        this.watchers.delete(w);
        resolve(e as E);
      };
      this.watchers.add(w);
    });
  }
}
