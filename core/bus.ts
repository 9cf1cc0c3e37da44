// The one in-process event bus. The model, the agent store, the Inbox and mail publish typed
// events here; TUI instances, `subscribe` streams, the link and the queue listen. Each module adds
// its own event shapes to `EventMap` by declaration merging, so no god type file lists them all.
import type { Logger } from './log.js';
import { nullLogger } from './log.js';
import { EVENTS_REPLAY_KEPT } from './limits.js';

// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface EventMap {}

export type EventName = keyof EventMap;
export type BusEvent<K extends EventName = EventName> = K extends EventName
  ? { type: K; seq: number; ts: number } & EventMap[K]
  : never;

export interface Disposable {
  dispose(): void;
}

type Listener = (ev: BusEvent) => void;

export class Bus {
  private seq = 0;
  private readonly listeners = new Set<Listener>();
  /**
   * Events published while another is being delivered (a listener publishing in turn: the Inbox
   * opening an item on an agent-state). They wait here and are delivered after it, in seq order,
   * so every listener sees seqs ascending; before, the inner event reached the later listeners
   * first. The outermost publish delivers them all before it returns.
   */
  private readonly pending: BusEvent[] = [];
  private delivering = false;
  /** The last EVENTS_REPLAY_KEPT events, oldest first, for a subscriber that resumes (since). */
  private readonly recent: BusEvent[] = [];

  constructor(private readonly log: Logger = nullLogger) {}

  /** The sequence number of the last published event. */
  get lastSeq(): number {
    return this.seq;
  }

  publish<K extends EventName>(type: K, body: EventMap[K]): BusEvent<K> {
    const ev = { type, seq: ++this.seq, ts: Date.now(), ...body } as unknown as BusEvent<K>;
    this.pending.push(ev as BusEvent);
    this.recent.push(ev as BusEvent);
    if (this.recent.length > EVENTS_REPLAY_KEPT) this.recent.shift();
    if (this.delivering) return ev;
    this.delivering = true;
    try {
      for (let i = 0; i < this.pending.length; i++) this.deliver(this.pending[i]!);
    } finally {
      this.pending.length = 0;
      this.delivering = false;
    }
    return ev;
  }

  private deliver(ev: BusEvent): void {
    for (const fn of [...this.listeners]) {
      try {
        fn(ev);
      } catch (e) {
        // One broken subscriber never stops the others or the publisher.
        this.log.error('event listener threw', { event: ev.type, error: String(e) });
      }
    }
  }

  /**
   * The kept events after `seq`, and whether they are all of them (false when some after it were
   * published and are no longer kept).
   */
  since(seq: number): { events: BusEvent[]; complete: boolean } {
    const events = this.recent.filter((e) => e.seq > seq);
    const oldest = this.recent[0]?.seq ?? this.seq + 1;
    return { events, complete: seq >= this.seq || oldest <= seq + 1 };
  }

  subscribe(fn: Listener): Disposable {
    this.listeners.add(fn);
    return { dispose: () => this.listeners.delete(fn) };
  }

  /** Listens to one event type only. */
  on<K extends EventName>(type: K, fn: (ev: BusEvent<K>) => void): Disposable {
    return this.subscribe((ev) => {
      if (ev.type === type) fn(ev as BusEvent<K>);
    });
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}

