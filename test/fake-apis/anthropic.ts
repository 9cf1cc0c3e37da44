// A fake Anthropic Messages API for Claude Code, ported from the reference server in
// shared/notes/fake-model-apis/anthropic.js. Claude Code sends `HEAD /` at start, then every model
// call as `POST /v1/messages?beta=true` with `stream: true`. The first request of a turn is a title
// side request (no tools); the main request offers `Bash`. A fresh turn gets a text block and a
// Bash tool_use for the chosen command (or the tool setToolCall names, when offered); the request
// that ends with a tool_result gets the final text.
import { startFakeApi, sseHead, json, type FakeApi, type FakeApiOptions, type RecordedRequest } from './common.js';

export type { FakeApi, FakeApiOptions, RecordedRequest } from './common.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

function endsWithToolResult(body: Body): boolean {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  const m = msgs[msgs.length - 1];
  return !!m && Array.isArray(m.content) && m.content.some((c: Body) => c && c.type === 'tool_result');
}

/** The text of a request's first message: a subagent's holds the prompt it was given. */
export function firstMessageText(body: Body): string {
  const m = Array.isArray(body.messages) ? body.messages[0] : undefined;
  if (!m) return '';
  if (typeof m.content === 'string') return m.content;
  return Array.isArray(m.content) ? m.content.map((c: Body) => (c && typeof c.text === 'string' ? c.text : '')).join('\n') : '';
}

interface Block {
  type: 'text' | 'tool_use';
  text?: string;
  id?: string;
  name?: string;
  input?: Record<string, unknown>;
}

export function startFakeAnthropic(opts: FakeApiOptions = {}): Promise<FakeApi> {
  return startFakeApi(opts, async ({ req, res, rec, api }) => {
    const url = rec.url;
    if (req.method !== 'POST' || !url.startsWith('/v1/messages')) return false;
    if (url.startsWith('/v1/messages/count_tokens')) return json(res, { input_tokens: 100 });
    const body: Body = rec.body;
    const tools: string[] = (body.tools ?? []).map((t: Body) => t.name);
    let content: Block[];
    let stop: string;
    if (tools.includes('Bash')) {
      rec.role = 'main';
      // setToolCall: a fresh turn calls that tool (AskUserQuestion, say) instead of Bash, when offered.
      const other = api.toolCall && tools.includes(api.toolCall.name) ? api.toolCall : null;
      // setSubagent: the lead hands the work to a subagent, which runs a command of its own.
      const sub = api.subagent;
      const agentTool = sub ? tools.find((t) => t === 'Agent' || t === 'Task') : undefined;
      const isSubagent = !!sub && firstMessageText(body).includes(sub.prompt);
      if (sub && isSubagent) {
        rec.answer = endsWithToolResult(body) ? 'text' : 'tool_call';
        content = endsWithToolResult(body)
          ? [{ type: 'text', text: sub.result }]
          : [{ type: 'tool_use', id: `toolu_fake_${rec.id}`, name: 'Bash', input: { command: sub.command, description: `Run ${sub.command}` } }];
        stop = endsWithToolResult(body) ? 'end_turn' : 'tool_use';
      } else if (sub && agentTool && !endsWithToolResult(body)) {
        rec.answer = 'tool_call';
        content = [{ type: 'tool_use', id: `toolu_fake_${rec.id}`, name: agentTool, input: { description: sub.description, prompt: sub.prompt, subagent_type: sub.subagentType ?? 'general-purpose', ...(sub.background ? { run_in_background: true } : {}) } }];
        stop = 'tool_use';
      } else if (!endsWithToolResult(body) && other) {
        rec.answer = 'tool_call';
        content = [{ type: 'tool_use', id: `toolu_fake_${rec.id}`, name: other.name, input: other.args }];
        stop = 'tool_use';
      } else if (!endsWithToolResult(body) && api.command !== null) {
        rec.answer = 'tool_call';
        content = [
          { type: 'text', text: "I'll run that for you." },
          { type: 'tool_use', id: `toolu_fake_${rec.id}`, name: 'Bash', input: { command: api.command, description: `Run ${api.command}` } },
        ];
        stop = 'tool_use';
      } else {
        rec.answer = 'text';
        content = [{ type: 'text', text: api.finalText }];
        stop = 'end_turn';
      }
      await api.mainGate(rec);
    } else {
      rec.role = 'side';
      rec.answer = 'side';
      const sys = JSON.stringify(body.system ?? '');
      const text = /title|topic/i.test(sys) ? JSON.stringify({ isNewTopic: true, title: api.title }) : 'OK';
      content = [{ type: 'text', text }];
      stop = 'end_turn';
    }
    if (res.destroyed) return true;
    const msgId = `msg_fake_${rec.id}`;
    const model = body.model ?? 'claude-sonnet-4-5';
    // A main answer reports the token use set for it (Claude Code's status line reads context and cost from it).
    const use = rec.role === 'main' ? api.usage : { input_tokens: 100, output_tokens: 20 };
    const usage = { input_tokens: use.input_tokens, output_tokens: use.output_tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    if (!body.stream) {
      return json(res, { id: msgId, type: 'message', role: 'assistant', model, content, stop_reason: stop, stop_sequence: null, usage });
    }
    sseHead(res, { 'request-id': `req_fake_${rec.id}` });
    const ev = (type: string, d: Record<string, unknown>) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...d })}\n\n`);
    ev('message_start', { message: { id: msgId, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
    ev('ping', {});
    content.forEach((c, index) => {
      if (c.type === 'text') {
        ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
        ev('content_block_delta', { index, delta: { type: 'text_delta', text: c.text } });
      } else {
        ev('content_block_start', { index, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } });
        ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(c.input) } });
      }
      ev('content_block_stop', { index });
    });
    ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: use.output_tokens } });
    ev('message_stop', {});
    res.end();
    return true;
  });
}
