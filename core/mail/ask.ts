// Questions an agent asks the person (spec: Questions an agent asks you): an Inbox row with fixed
// answers, and a call that waits for the answer. Only the person answers; an answer that comes
// after the call gave up is mailed to the asking pane from `human`, verified.
import type { Bus, Disposable } from '../bus.js';
import type { Inbox, Item } from '../inbox/inbox.js';
import type { MailStore } from './mail.js';
import type { Model } from '../model/model.js';
import { TuiosError } from '../errors.js';
import { ANSWER_MAX_BYTES, ASK_MAX_OPTIONS, QUESTION_MAX_BYTES } from '../limits.js';

/** Re-exported for core/verbs/mail.ts until the verb records land; the limit is core/limits.ts's. */

export type AskOutcome = { status: 'answered'; answer: string; index: number } | { status: 'pending' } | { status: 'dismissed'; reason: string };

interface Question {
  id: number;
  item: Item;
  windowId: string | null;
  question: string;
  options: string[];
  waiters: Set<(o: AskOutcome) => void>;
}

// One line of printable text: no control or format characters at all.
// eslint-disable-next-line no-control-regex
const NOT_PRINTABLE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b-\u200f\u2060-\u2064\ufeff]/;

export function checkQuestion(q: string, options: string[]): void {
  if (q.trim() === '' || NOT_PRINTABLE.test(q)) throw new TuiosError('invalid_params', 'A question is one line of printable text.', 'For anything longer, write the person mail and ask the short question here.', { field: 'question' });
  if (Buffer.byteLength(q) > QUESTION_MAX_BYTES) throw new TuiosError('invalid_params', `A question is at most ${QUESTION_MAX_BYTES} bytes.`, 'Write the details as mail and ask the short question here.', { field: 'question' });
  if (options.length < 2 || options.length > ASK_MAX_OPTIONS) throw new TuiosError('invalid_params', `A question has 2 to ${ASK_MAX_OPTIONS} answers (-o).`, undefined, { field: 'options' });
  for (const o of options) {
    if (o.trim() === '' || NOT_PRINTABLE.test(o) || Buffer.byteLength(o) > ANSWER_MAX_BYTES) {
      throw new TuiosError('invalid_params', `Each answer is one line of printable text, at most ${ANSWER_MAX_BYTES} bytes.`, undefined, { field: 'options' });
    }
  }
  if (new Set(options).size !== options.length) throw new TuiosError('invalid_params', 'The answers must differ from each other.', undefined, { field: 'options' });
}

export class AskStore implements Disposable {
  private nextId = 1;
  private readonly questions = new Map<number, Question>();
  private readonly sub: Disposable;

  constructor(
    bus: Bus,
    private readonly inbox: Inbox,
    private readonly mail: MailStore,
    private readonly model: Model,
  ) {
    // Closing the pane ends its question; an Inbox close the person made (dismiss) answers the call.
    this.sub = bus.on('attention', (ev) => {
      if (ev.op !== 'close' || ev.item.kind !== 'ask') return;
      const q = this.byItem(ev.item.id);
      if (q) this.finish(q, { status: 'dismissed', reason: ev.reason });
    });
  }

  private byItem(itemId: number): Question | undefined {
    for (const q of this.questions.values()) if (q.item.id === itemId) return q;
    return undefined;
  }

  /** Puts the question in the Inbox. A pane has one open question: a new one supersedes the first. */
  ask(windowId: string | null, question: string, options: string[]): Question {
    checkQuestion(question, options);
    if (windowId) for (const q of this.questions.values()) if (q.windowId === windowId) this.inbox.close(q.item.id, 'superseded by a new question');
    const id = this.nextId++;
    const item = this.inbox.open('ask', { windowId, summary: question, options, ref: { ask_id: id } });
    const q: Question = { id, item, windowId, question, options, waiters: new Set() };
    this.questions.set(id, q);
    return q;
  }

  /** Waits for the answer, at most `ms`; `pending` leaves the question open. */
  wait(q: Question, ms: number, signal: AbortSignal): Promise<AskOutcome> {
    return new Promise((resolve) => {
      const done = (o: AskOutcome) => {
        clearTimeout(t);
        signal.removeEventListener('abort', onAbort);
        q.waiters.delete(done);
        resolve(o);
      };
      const t = setTimeout(() => done({ status: 'pending' }), ms);
      const onAbort = () => done({ status: 'pending' });
      signal.addEventListener('abort', onAbort);
      q.waiters.add(done);
    });
  }

  get(id: number): Question | undefined {
    return this.questions.get(id);
  }

  /** The person's answer (the caller is verified already). */
  answer(id: number, answer: string | number): { answer: string; index: number; mailed: boolean } {
    const q = this.questions.get(id);
    if (!q) throw new TuiosError('not_found', `There is no open question ${id}.`, 'It was answered, dismissed or its pane closed.');
    const index = typeof answer === 'number' ? answer - 1 : q.options.indexOf(answer);
    if (!(index >= 0 && index < q.options.length)) {
      throw new TuiosError('invalid_params', 'The answer must be one of the question\'s own answers.', `Answers: ${q.options.map((o, i) => `${i + 1}. ${o}`).join(', ')}`, { field: 'answer', available: q.options });
    }
    const text = q.options[index]!;
    const waiting = q.waiters.size > 0;
    this.questions.delete(id);
    this.inbox.close(q.item.id, 'answered');
    for (const w of [...q.waiters]) w({ status: 'answered', answer: text, index: index + 1 });
    // Nobody waits any more: the answer goes to the asking pane as mail from the person.
    let mailed = false;
    if (!waiting && q.windowId) {
      const w = this.model.windows.get(q.windowId);
      if (w) {
        this.mail.send({ to: w.id, to_session_id: w.sessionId, from: 'human', from_pane: null, from_kind: 'human', verified_human: true, claimed_human: false, subject: `answer: ${q.question}`, body: text, reply_to: null });
        mailed = true;
      }
    }
    return { answer: text, index: index + 1, mailed };
  }

  private finish(q: Question, o: AskOutcome): void {
    this.questions.delete(q.id);
    for (const w of [...q.waiters]) w(o);
  }

  /** Open questions of a pane (the TUI draws the pane as needing the person while one waits). */
  openFor(windowId: string): Question | undefined {
    for (const q of this.questions.values()) if (q.windowId === windowId) return q;
    return undefined;
  }

  dispose(): void {
    this.sub.dispose();
    for (const q of this.questions.values()) this.finish(q, { status: 'dismissed', reason: 'the daemon stopped' });
  }
}
