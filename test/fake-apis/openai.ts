// A fake OpenAI API: Responses (`POST /v1/responses`, Codex) and Chat Completions
// (`POST /v1/chat/completions`, opencode, Qwen Code, pi, Kilo), both streamed, ported from the
// reference server in shared/notes/fake-model-apis/openai.js. A request that offers a shell tool is
// the main turn: a fresh one gets a call of that tool for the chosen command, one whose last item is
// the tool's output gets the final text. A request with no shell tool (titles) is a side request.
import { startFakeApi, sseHead, json, type FakeApi, type FakeApiOptions } from './common.js';

export type { FakeApi, FakeApiOptions, RecordedRequest } from './common.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

const SHELL_TOOLS = ['shell_command', 'exec_command', 'shell', 'run_shell_command', 'bash', 'Bash', 'run_commands', 'execute_command'];

function toolName(t: Any): string {
  return t?.name ?? t?.function?.name ?? '';
}

function pickTool(tools: Any[]): Any | null {
  const names = tools.map(toolName);
  for (const want of SHELL_TOOLS) {
    const i = names.indexOf(want);
    if (i >= 0) return tools[i];
  }
  return null;
}

/**
 * The arguments for the shell tool, shaped by its schema: Codex's `exec_command` (`cmd`, escalated
 * so that it asks for approval), an argv-array `command`, or a string `command` with or without
 * a `description` (opencode and Qwen Code want one, pi has none), or Cline's `commands` array.
 */
export function shellArgs(tool: Any, command: string): Record<string, unknown> {
  const fn = tool?.function ?? tool;
  const props = (fn?.parameters ?? {}).properties ?? {};
  if (props.commands && props.commands.type === 'array') return { commands: [command] }; // Cline's run_commands
  if (props.cmd) return { cmd: command, sandbox_permissions: 'require_escalated', justification: `Do you want to run ${command}?` };
  if (props.command && props.command.type === 'array') return { command: ['bash', '-lc', command] };
  // Cline 2.x's native execute_command wants requires_approval.
  if (props.requires_approval) return { command, requires_approval: true };
  const base = props.description ? { command, description: `Run ${command}` } : { command };
  // Qwen Code 0.7.x requires is_background ("params must have required property 'is_background'").
  return props.is_background ? { ...base, is_background: false } : base;
}

export function startFakeOpenAI(opts: FakeApiOptions = {}): Promise<FakeApi> {
  return startFakeApi(opts, async ({ req, res, rec, api }) => {
    if (req.method === 'GET' && /models/.test(rec.url)) return json(res, { object: 'list', data: [{ id: 'fake-model', object: 'model', owned_by: 'fake' }], models: [] });
    if (req.method !== 'POST') return false;
    const body: Any = rec.body;
    const tools: Any[] = Array.isArray(body.tools) ? body.tools : [];
    const items: Any[] = body.input ?? body.messages ?? [];
    const last = Array.isArray(items) ? items[items.length - 1] ?? {} : {};
    // Cline 2.x sends a tool's result back as a user message, "[execute_command for '...'] Result:".
    const answered = last.type === 'function_call_output' || last.type === 'custom_tool_call_output' || last.role === 'tool' || (last.role === 'user' && /\] Result:/.test(JSON.stringify(last.content ?? '')));
    const shellTool = pickTool(tools);
    const main = !!shellTool;
    // setToolCall: a fresh turn calls that tool (a question tool, say) instead of the shell command.
    // A call marked `unlisted` is made even when the request does not offer that tool (Codex's
    // update_plan, which 0.171 keeps out of the list for a model it has no metadata for but still runs).
    const other = main && api.toolCall ? tools.find((t) => toolName(t) === api.toolCall!.name) ?? (api.toolCall.unlisted ? { type: 'function', name: api.toolCall.name } : null) : null;
    const tool = other ?? shellTool;
    const args = () => (other ? api.toolCall!.args : shellArgs(tool, api.command!));
    const fresh = main && !answered && (other !== null || api.command !== null);
    // Cline 2.x (execute_command with attempt_completion offered) counts a text-only answer as a
    // mistake: its final answer is an attempt_completion call carrying the text.
    const completion = main && !fresh && tools.some((t) => toolName(t) === 'execute_command') ? tools.find((t) => toolName(t) === 'attempt_completion') ?? null : null;
    const call = fresh || completion !== null;
    rec.role = main ? 'main' : 'side';
    rec.answer = fresh ? 'tool_call' : main ? 'text' : 'side';
    if (main) await api.mainGate(rec);
    if (res.destroyed) return true;
    const text = main ? api.finalText : api.title;
    const callName = () => toolName(completion ?? tool);
    const callArgs = () => (completion ? { result: text } : args());
    const id = rec.id;
    if (/chat\/completions/.test(rec.url)) {
      if (body.stream === false) {
        const message = call
          ? { role: 'assistant', content: null, tool_calls: [{ id: `call_${id}`, type: 'function', function: { name: callName(), arguments: JSON.stringify(callArgs()) } }] }
          : { role: 'assistant', content: text };
        return json(res, { id: `c${id}`, object: 'chat.completion', created: 0, model: body.model, choices: [{ index: 0, message, finish_reason: call ? 'tool_calls' : 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
      }
      sseHead(res);
      const chunk = (d: Any, extra: Any = {}) => res.write(`data: ${JSON.stringify({ id: `c${id}`, object: 'chat.completion.chunk', created: 0, model: body.model, choices: d ? [d] : [], ...extra })}\n\n`);
      if (call) {
        chunk({ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: `call_${id}`, type: 'function', function: { name: callName(), arguments: JSON.stringify(callArgs()) } }] }, finish_reason: null });
        chunk({ index: 0, delta: {}, finish_reason: 'tool_calls' });
      } else {
        chunk({ index: 0, delta: { role: 'assistant', content: text }, finish_reason: null });
        chunk({ index: 0, delta: {}, finish_reason: 'stop' });
      }
      chunk(null, { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
      res.write('data: [DONE]\n\n');
      res.end();
      return true;
    }
    if (!/responses/.test(rec.url)) return false;
    sseHead(res);
    let seq = 0;
    const ev = (type: string, d: Any) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...d })}\n\n`);
    const base = { id: `resp_${id}`, object: 'response', created_at: Math.floor(Date.now() / 1000), model: body.model, status: 'in_progress', output: [] };
    ev('response.created', { response: base });
    ev('response.in_progress', { response: base });
    let item: Any;
    if (call && tool?.type === 'custom') {
      // A freeform tool (Codex's apply_patch for a model it knows): its input is text, not JSON.
      const input = String((args() as { input?: unknown }).input ?? '');
      item = { type: 'custom_tool_call', id: `ctc_${id}`, call_id: `call_${id}`, name: toolName(tool), input, status: 'completed' };
      ev('response.output_item.added', { output_index: 0, item: { ...item, input: '', status: 'in_progress' } });
      ev('response.custom_tool_call_input.delta', { output_index: 0, item_id: item.id, delta: input });
      ev('response.custom_tool_call_input.done', { output_index: 0, item_id: item.id, input });
      ev('response.output_item.done', { output_index: 0, item });
    } else if (call) {
      item = { type: 'function_call', id: `fc_${id}`, call_id: `call_${id}`, name: toolName(tool), arguments: JSON.stringify(args()), status: 'completed' };
      ev('response.output_item.added', { output_index: 0, item: { ...item, arguments: '', status: 'in_progress' } });
      ev('response.function_call_arguments.delta', { output_index: 0, item_id: item.id, delta: item.arguments });
      ev('response.function_call_arguments.done', { output_index: 0, item_id: item.id, arguments: item.arguments });
      ev('response.output_item.done', { output_index: 0, item });
    } else {
      item = { type: 'message', id: `msg_${id}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
      ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
      ev('response.content_part.added', { output_index: 0, item_id: item.id, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      ev('response.output_text.delta', { output_index: 0, item_id: item.id, content_index: 0, delta: text });
      ev('response.output_text.done', { output_index: 0, item_id: item.id, content_index: 0, text });
      ev('response.content_part.done', { output_index: 0, item_id: item.id, content_index: 0, part: item.content[0] });
      ev('response.output_item.done', { output_index: 0, item });
    }
    ev('response.completed', {
      response: {
        ...base,
        status: 'completed',
        output: [item],
        usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 20, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 120 },
      },
    });
    res.end();
    return true;
  });
}
