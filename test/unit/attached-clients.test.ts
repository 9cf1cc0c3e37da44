// The attached-clients registry (core/daemon/clients.ts): which client is "the attached client"
// of a call, and what a layout change asks of the clients; and a title as a client's terminal gets it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AttachedClients, type RegisteredClient } from '../../core/daemon/clients.js';
import { cleanTitle } from '../../core/verbs/client-title.js';
import { CLIENT_TITLE_MAX } from '../../core/limits.js';

function client(id: number, session: string, drawn: number[]): RegisteredClient {
  return {
    id,
    sessionId: () => session,
    area: () => ({ x: 24, y: 0, w: 56, h: 23 }),
    acts: { showSession: () => true, focusWindow: () => true, setTitle: () => true, redraw: () => void drawn.push(id) },
  };
}

test('attachedFor: the client that shows the session, else the one used last; none without clients', () => {
  const reg = new AttachedClients();
  assert.is(reg.attachedFor('s1'), null);
  assert.is(reg.foreground(), null);
  const drawn: number[] = [];
  const one = reg.register(client(1, 's1', drawn));
  reg.register(client(2, 's2', drawn));
  reg.register(client(3, 's1', drawn));
  // The last registered is the one used last until another is used.
  assert.is(reg.attachedFor('s1')!.id, 3);
  reg.used(1);
  assert.is(reg.attachedFor('s1')!.id, 1);
  assert.is(reg.attachedFor('s2')!.id, 2);
  // No client shows s9: the foreground one (used last).
  assert.is(reg.attachedFor('s9')!.id, 1);
  assert.is(reg.attachedFor(null)!.id, 1);
  one.dispose();
  assert.is(reg.attachedFor('s9')!.id, 3);
  assert.is(reg.count, 2);
});

test('changed: each client that shows the session draws again, no other', () => {
  const reg = new AttachedClients();
  const drawn: number[] = [];
  reg.register(client(1, 's1', drawn));
  reg.register(client(2, 's2', drawn));
  reg.register(client(3, 's1', drawn));
  reg.changed('s1');
  assert.equal(drawn.sort(), [1, 3]);
  assert.equal(reg.info().map((c) => c.id), [3, 2, 1]);
});

test('cleanTitle: control characters out, cut to the limit in characters', () => {
  assert.is(cleanTitle('a\x1b]2;b\x07c\x9bd\x7fe\nf'), 'a]2;bcdef');
  assert.is(cleanTitle('é'.repeat(CLIENT_TITLE_MAX + 10)), 'é'.repeat(CLIENT_TITLE_MAX));
  assert.is(Array.from(cleanTitle('😀'.repeat(300))).length, CLIENT_TITLE_MAX);
});

test.run();
