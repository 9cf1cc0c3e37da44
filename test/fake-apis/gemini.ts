// A fake Gemini API (generativelanguage v1beta) for Gemini CLI, ported from the reference server in
// shared/notes/fake-model-apis/gemini.js. Gemini CLI first asks a router
// (`:generateContent`, not streamed, no tools), then streams the main turn
// (`:streamGenerateContent?alt=sse`) with `run_shell_command` among its function declarations.
import { startFakeApi, sseHead, json, type FakeApi, type FakeApiOptions } from './common.js';

export type { FakeApi, FakeApiOptions, RecordedRequest } from './common.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

export function startFakeGemini(opts: FakeApiOptions = {}): Promise<FakeApi> {
  return startFakeApi(opts, async ({ req, res, rec, api }) => {
    if (/countTokens/.test(rec.url)) return json(res, { totalTokens: 10 });
    if (req.method !== 'POST') return false;
    const body: Any = rec.body;
    const decls: string[] = (body.tools ?? []).flatMap((t: Any) => t.functionDeclarations ?? []).map((f: Any) => f.name);
    const contents: Any[] = body.contents ?? [];
    const last = contents[contents.length - 1] ?? {};
    const answered = (last.parts ?? []).some((p: Any) => p.functionResponse);
    const main = decls.includes('run_shell_command');
    // setToolCall: a fresh turn calls that tool (ask_user, say) instead of the shell command, when declared.
    const other = main && !answered && api.toolCall && decls.includes(api.toolCall.name) ? api.toolCall : null;
    const call = main && !answered && (other !== null || api.command !== null);
    rec.role = main ? 'main' : 'side';
    rec.answer = call ? 'tool_call' : main ? 'text' : 'side';
    let parts: Any[];
    if (other) parts = [{ functionCall: { name: other.name, args: other.args } }];
    else if (call) parts = [{ text: "I'll run that for you." }, { functionCall: { name: 'run_shell_command', args: { command: api.command, description: `Run ${api.command}` } } }];
    else if (main) parts = [{ text: api.finalText }];
    else parts = [{ text: JSON.stringify({ reasoning: 'simple', model_choice: 'flash', next_speaker: 'user' }) }];
    if (main) await api.mainGate(rec);
    if (res.destroyed) return true;
    const resp = {
      candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 },
      modelVersion: 'gemini-fake',
      responseId: `r${rec.id}`,
    };
    if (/alt=sse|streamGenerateContent/.test(rec.url)) {
      sseHead(res);
      res.write(`data: ${JSON.stringify(resp)}\r\n\r\n`);
      res.end();
      return true;
    }
    return json(res, resp);
  });
}
