// Verb calls the TUI makes, in-process through the dispatcher, as its client. Acts as the person
// carry the client's nonce; a client attached from inside a pane has none, and the daemon says
// so. A refusal comes back as a sentence for the dock line, never as an exception.
import type { Services } from '../core/daemon/services.js';
import type { Caller } from '../core/rpc/caller.js';
import { TuiosError } from '../core/errors.js';
import { observing, type ReadOnlyBy } from './observe.js';

export type Outcome<T> = { ok: true; value: T } | { ok: false; code: string; message: string };

export class Acts {
  constructor(
    /** The daemon's services, for what a view reads without a verb (the config in force). */
    readonly svc: Services,
    private readonly caller: Caller,
    private readonly nonce: string,
  ) {}

  /** A verb call; `asPerson` adds the nonce. */
  async call<T = Record<string, unknown>>(verb: string, params: Record<string, unknown>, asPerson = false): Promise<Outcome<T>> {
    try {
      const p = asPerson && this.nonce ? { ...params, nonce: this.nonce } : params;
      const value = (await this.svc.dispatcher.call(verb, p, this.caller)) as T;
      return { ok: true, value };
    } catch (e) {
      if (e instanceof TuiosError) return { ok: false, code: e.code, message: e.message };
      this.svc.log.error('tui verb call failed', { verb, error: e instanceof Error ? e.stack : String(e) });
      return { ok: false, code: 'internal', message: `${verb} failed inside the daemon; see its log.` };
    }
  }

  /** Why this client may change nothing (an observe key), or null. */
  get readOnly(): ReadOnlyBy | null {
    return observing(this.caller);
  }

  get canActAsPerson(): boolean {
    return this.nonce !== '';
  }
}
