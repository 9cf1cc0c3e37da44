// Mail a linked host sends an agent here (spec: Mail waiting for another machine, Mail held from
// another machine). It lands in the agent's mailbox, or, with hold_mail, in the person's as held
// mail. A resend after a lost answer carries the same outbox id and is answered again without a
// second delivery. What the host sent is data: cleaned and cut before it is stored.
import type { Services } from '../../core/daemon/services.js';
import type { Window } from '../../core/model/window.js';
import type { Bodies } from '../codec/schema.js';
import { TuiosError, toErrorBody } from '../../core/errors.js';
import { checkRight, type LinkPolicy } from '../policy.js';
import { peerLine, peerText } from '../clean.js';
import { BODY_MAX_BYTES, LINK_SEEN_MAIL_IDS, SUBJECT_MAX } from '../../core/limits.js';

type Ack = Bodies['MailAck'];

/** The agent pane of a session: the first window an agent was seen in, else its focused window. */
function agentPaneOf(svc: Services, sessionRef: string): Window {
  const s = svc.model.findSession(sessionRef);
  const ws = svc.model.windowsOf(s);
  const w = ws.find((x) => svc.agents.holdsAgent(x)) ?? svc.model.focusedWindow(s) ?? ws[0];
  if (!w) throw new TuiosError('window_not_found', `The session ${s.name} has no windows.`);
  return w;
}

/** Outbox ids already delivered from one host, newest last (a bounded memory of answers). */
export class SeenMail {
  private readonly acks = new Map<string, Ack>();

  get(id: string): Ack | undefined {
    return this.acks.get(id);
  }

  add(a: Ack): void {
    this.acks.set(a.id, a);
    while (this.acks.size > LINK_SEEN_MAIL_IDS) this.acks.delete(this.acks.keys().next().value!);
  }
}

export function deliverMail(svc: Services, host: string, policy: LinkPolicy, m: Bodies['Mail'], seen: SeenMail): Ack {
  const id = m.id.slice(0, 64);
  const again = seen.get(id);
  if (again) return again;
  const ack = ((): Ack => {
    try {
      checkRight(policy, host, 'write', 'Mail');
      const from = peerLine(m.from, 64) || host;
      const subject = peerLine(m.subject, SUBJECT_MAX);
      const body = peerText(m.body, BODY_MAX_BYTES);
      const toHuman = m.to_window === 'human';
      const w = toHuman ? null : m.to_window ? svc.model.findWindow(m.to_window, svc.model.findSession(m.to_session)) : agentPaneOf(svc, m.to_session);
      // Mail for the person is theirs already; only mail for an agent is held.
      const hold = !!w && policy.hold_mail;
      const msg = svc.mail.send({
        to: w && !hold ? w.id : 'human',
        to_session_id: w && !hold ? w.sessionId : null,
        from: `${from}@${host}`,
        from_pane: null,
        from_kind: 'link',
        verified_human: false,
        claimed_human: false,
        subject,
        body,
        reply_to: null,
        host,
        ...(hold && w ? { held_for: { window_id: w.id, name: w.name } } : {}),
      });
      svc.log.info('mail from a linked host', { host, message: msg.id, held: hold });
      return { id, ok: true, code: '', message: '', message_id: msg.id, thread: msg.thread, held: hold, held_for: hold && w ? w.name : null };
    } catch (e) {
      const b = toErrorBody(e);
      return { id, ok: false, code: b.code, message: b.message, message_id: 0, thread: 0, held: false, held_for: null };
    }
  })();
  seen.add(ack);
  return ack;
}
