// A small ACP agent over stdio for tests (no SDK: it writes the wire by hand, so it can also
// misbehave). `node acp-agent.mjs MODE`: `scripted` answers each prompt by its words (perm: asks
// permission for `touch hello.txt`; fail: answers an error; slow: waits for session/cancel;
// exit: exits 3; anything else: a reply); `hostile` answers every prompt with escape sequences in
// its text, requests the client never advertised (fs, terminal, an unknown method) and a flood
// of notifications, then reports the error codes it got back in its reply. TUIOS_ACP_STAMPS names
// a file where it appends the wall clock (ms) just before each end_turn answer (the bench).
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const mode = process.argv[2] ?? 'scripted';
const stamps = process.env.TUIOS_ACP_STAMPS;
let nextId = 1000;
const waiting = new Map();
let cancelTurn = null;

const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
const update = (u) => send({ method: 'session/update', params: { sessionId: 's1', update: u } });
const chunk = (text) => update({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } });
const request = (method, params) =>
  new Promise((resolve) => {
    const id = nextId++;
    waiting.set(id, resolve);
    send({ id, method, params });
  });
const now = () => performance.timeOrigin + performance.now();

async function prompt(id, text) {
  if (mode === 'hostile') return hostile(id);
  if (text.includes('exit')) process.exit(3);
  if (text.includes('fail')) return send({ id, error: { code: -32603, message: 'Internal error', data: { message: 'the model API answered 500' } } });
  update({ sessionUpdate: 'usage_update', used: 53000, size: 200000, cost: { amount: 0.4213, currency: 'USD' } });
  update({ sessionUpdate: 'plan', entries: [{ content: 'look', status: 'completed', priority: 'high' }, { content: 'touch the file', status: 'in_progress', priority: 'high' }] });
  if (text.includes('slow')) {
    chunk('working slowly\n');
    await new Promise((r) => (cancelTurn = r));
    return send({ id, result: { stopReason: 'cancelled' } });
  }
  if (text.includes('perm')) {
    update({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'touch hello.txt', kind: 'execute', status: 'pending', rawInput: { command: 'touch hello.txt', description: 'make the file' } });
    const r = await request('session/request_permission', {
      sessionId: 's1',
      toolCall: { toolCallId: 't1', title: 'touch hello.txt', kind: 'execute', rawInput: { command: 'touch hello.txt', description: 'make the file' } },
      options: [
        { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    });
    const chosen = r.result?.outcome?.optionId ?? r.result?.outcome?.outcome ?? 'none';
    update({ sessionUpdate: 'tool_call_update', toolCallId: 't1', status: chosen === 'reject' ? 'failed' : 'completed' });
    update({ sessionUpdate: 'plan', entries: [{ content: 'look', status: 'completed', priority: 'high' }, { content: 'touch the file', status: 'completed', priority: 'high' }] });
    chunk(`permission answered: ${chosen}\n`);
  }
  chunk('All done here.\nSecond line.');
  if (stamps) appendFileSync(stamps, `${now()}\n`);
  send({ id, result: { stopReason: 'end_turn' } });
}

async function hostile(id) {
  chunk('title\x1b]0;owned-title\x07 clip\x1b]52;c;aGVsbG8=\x07 state\x1b]7501;state=errored;message=pwned\x07 csi\x1b[2J\x1b[H bell\x07 c1\x9b31m end\n');
  const codes = [];
  for (const [method, params] of [
    ['fs/read_text_file', { sessionId: 's1', path: '/etc/passwd' }],
    ['fs/write_text_file', { sessionId: 's1', path: '/tmp/x', content: 'x' }],
    ['terminal/create', { sessionId: 's1', command: 'sh' }],
    ['hostile/unknown', {}],
  ]) {
    const r = await request(method, params);
    codes.push(r.error ? r.error.code : 'ok');
  }
  for (let i = 0; i < 3000; i++) chunk(`flood ${i} \x1b]2;flood-title\x07\n`);
  chunk(`codes: ${codes.join(',')}\n`);
  send({ id, result: { stopReason: 'end_turn' } });
}

const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return;
  }
  if (m.id !== undefined && !m.method) {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    w?.(m);
    return;
  }
  switch (m.method) {
    case 'initialize':
      return send({ id: m.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [], agentInfo: { name: 'fake-acp', version: '0.1' } } });
    case 'session/new':
      return send({ id: m.id, result: { sessionId: 's1', models: { currentModelId: 'm1', availableModels: [{ modelId: 'm1', name: 'Fake Model' }] } } });
    case 'session/prompt': {
      const text = (m.params?.prompt ?? []).map((b) => b.text ?? '').join(' ');
      return void prompt(m.id, text);
    }
    case 'session/cancel':
      cancelTurn?.();
      cancelTurn = null;
      return;
    default:
      if (m.id !== undefined) send({ id: m.id, error: { code: -32601, message: 'Method not found' } });
  }
});
rl.on('close', () => process.exit(0));
