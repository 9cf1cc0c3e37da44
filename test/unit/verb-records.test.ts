// The verb records (core/rpc/verb.ts): a result that breaks its verb's result schema is told as a
// defect by a daemon that checks (TUIOS_CHECK_RESULTS=1, what every test daemon runs with), and
// the daemon prints a result from the record for a caller that asks.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { defineVerb } from '../../core/rpc/verb.js';
import { printResult } from '../../core/rpc/print.js';
import { RpcClient, RpcError } from '../../core/rpc/client.js';
import { startInProcessDaemon } from '../helpers/in-process-daemon.js';
import { listAgents } from '../../core/verbs/agents.js';
import { allVerbs } from '../../core/verbs/index.js';
import { hostVerbs } from '../../link/verbs/hosts.js';
import { sshStatusVerb } from '../../ssh-server/verbs.js';
import { listVerbs } from '../../core/verbs/server.js';
import { describeVerb } from '../../core/rpc/describe.js';

const promises = defineVerb({
  name: 'test-promises',
  summary: 'A verb whose result keeps its promise',
  target: 'none',
  mutates: false,
  params: z.object({ n: z.number().int() }),
  result: z.object({ n: z.number().int(), label: z.string() }),
  print: (r) => `${r.label} ${r.n}`,
  run: ({ params }) => ({ n: params.n, label: 'got' }),
});

const breaks = defineVerb({
  name: 'test-breaks',
  summary: 'A verb whose result breaks its schema',
  target: 'none',
  mutates: false,
  params: z.object({}),
  result: z.object({ n: z.number().int() }),
  print: 'fields',
  // What a handler that drifted from its record answers: tsc would refuse it typed; the cast
  // stands in for a value that changed type at run time.
  run: () => ({ n: 'seven' }) as unknown as { n: number },
});

test('a result that breaks its schema is an internal error; one that keeps it is printed from the record', async () => {
  const d = await startInProcessDaemon({ extensions: [{ name: 'records-test', verbs: [promises, breaks], start: async () => {} }] });
  try {
    const c = await RpcClient.connect(d.paths.socket);
    try {
      assert.equal(await c.callPrinted('test-promises', { n: 3 }), { result: { n: 3, label: 'got' }, text: 'got 3' });
      assert.equal(await c.call('test-promises', { n: 4 }), { n: 4, label: 'got' });
      const e = await c.call('test-breaks', {}).then(() => null, (x: unknown) => x);
      assert.instance(e, RpcError);
      assert.is((e as RpcError).code, 'internal');
      assert.match((e as RpcError).message, /result of test-breaks does not match its schema at n/);
    } finally {
      c.close();
    }
  } finally {
    await d.stop();
  }
});

test('print: none says nothing, fields lists flat results and nests as JSON', () => {
  const base = { summary: 'x'.repeat(12), target: 'none' as const, mutates: false, params: z.object({}), result: z.unknown(), run: () => ({}) };
  assert.is(printResult(defineVerb({ ...base, name: 'a', print: 'none' }), { ok: true }), '');
  assert.is(printResult(defineVerb({ ...base, name: 'b', print: 'fields' }), { a: 1, b: null }), 'a: 1\nb: -');
  assert.is(printResult(defineVerb({ ...base, name: 'c', print: 'fields' }), { a: { b: 1 } }), '{\n  "a": {\n    "b": 1\n  }\n}');
});

test('every verb, the extensions\' too, has its whole record', () => {
  const targets = ['none', 'session', 'session-or-new', 'window', 'window-optional'];
  for (const v of [...allVerbs, ...hostVerbs, sshStatusVerb]) {
    const at = `verb ${v.name}`;
    assert.match(v.name, /^[a-z][a-z-]*$/, at);
    assert.ok(v.summary && v.summary.length > 10, `${at}: a summary`);
    assert.instance(v.params, z.ZodObject, `${at}: params are a zod object`);
    assert.instance(v.result, z.ZodType, `${at}: a result schema`);
    assert.ok(typeof v.print === 'function' || v.print === 'fields' || v.print === 'none', `${at}: how it prints`);
    assert.ok(targets.includes(v.target), `${at}: a target`);
    assert.type(v.mutates, 'boolean', `${at}: whether it mutates`);
    assert.type(v.run, 'function', `${at}: a handler`);
    // The schemas are data a tool reads whole (list-verbs, MCP): each converts to JSON Schema.
    assert.ok(z.toJSONSchema(v.result, { unrepresentable: 'any' }), `${at}: its result schema converts to JSON Schema`);
  }
});

test('list-agents prints a linked host\'s harness as it prints this machine\'s', () => {
  const row = { host: 'build', window_id: 'a'.repeat(32), short_id: 'a'.repeat(12), name: 'claude', session: 'api', session_id: 'b'.repeat(32), harness: 'claude-code', state: 'needs_input', kind: 'approval', message: 'May I', needs_you: true, state_since: 1, finished_unread: false, group: null, cwd: '/', down: false, seen_at: 1, target: 'build:api:claude', seen_ms: 5, counted: true };
  const text = printResult(listAgents, listAgents.result!.parse({ agents: [row] }));
  assert.match(text.split('\n')[1]!, /^api\s+claude\s+a{12}\s+claude-code\s+needs_input\s+May I$/);
});

test('list-verbs of one verb describes that verb alone; the whole list after it holds the same description', async () => {
  const byName = new Map(allVerbs.map((v) => [v.name, v]));
  let listed = 0;
  const dispatcher = {
    get: (n: string) => byName.get(n),
    list: () => {
      listed++;
      return [...byName.values()];
    },
  };
  const run = (params: { verb?: string }) => listVerbs.run({ params, svc: { dispatcher } } as never) as { verbs: Array<{ name: string }> };
  const one = run({ verb: 'set-agent-state' });
  assert.is(listed, 0, 'one verb asked for: the registry is not walked (describing every verb took 86 ms the first time)');
  assert.equal(one.verbs, [describeVerb(byName.get('set-agent-state')!)]);
  assert.throws(() => run({ verb: 'no-such-verb' }), /There is no verb "no-such-verb"/);
  const all = run({});
  assert.is(listed, 1);
  assert.is(all.verbs.length, byName.size);
  assert.is(all.verbs.find((v) => v.name === 'set-agent-state'), one.verbs[0], 'the one made first is the one listed');
});

test.run();
