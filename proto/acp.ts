// The Agent Client Protocol adapter (version 1, on the official SDK): starts the agent in a
// session of its own, opens one conversation, and turns its messages into ProtoSink calls through
// proto/acp-read.ts. It advertises no file system and no terminal capability, and implements no
// client method but the two every client must (session/update, session/request_permission): the
// SDK answers every other request with method not found.
import { Readable, Writable } from 'node:stream';
import { ClientSideConnection, ndJsonStream, PROTOCOL_VERSION, type Client } from '@agentclientprotocol/sdk';
import type { ProtoAgent, ProtoSink } from './agent.js';
import { spawnAgent, type AdapterOptions } from './spawn.js';
import { agentOf, modelOf, permissionOf, planOf, stopOf, textOf, usageOf } from './acp-read.js';

/** The longest message the agent may send; past it the connection fails (a flood, a runaway). */
export const ACP_MESSAGE_MAX_BYTES = 4 * 1024 * 1024;

export function acpAgent(o: AdapterOptions): ProtoAgent {
  let sink: ProtoSink | null = null;
  let conn: ClientSideConnection | null = null;
  let sessionId = '';
  let gone = false;
  let pid: number | undefined;
  const tools = new Map<string, string>();

  const client: Client = {
    async requestPermission(params) {
      const s = sink;
      if (!s) return { outcome: { outcome: 'cancelled' } };
      const ctl = new AbortController();
      const id = await s.permission(permissionOf(params), ctl.signal);
      return id === null ? { outcome: { outcome: 'cancelled' } } : { outcome: { outcome: 'selected', optionId: id } };
    },
    async sessionUpdate(params) {
      const s = sink;
      const u = params.update as unknown as Record<string, unknown>;
      if (!s || params.sessionId !== sessionId) return;
      switch (u.sessionUpdate) {
        case 'agent_message_chunk':
          s.replyText(textOf(u.content));
          return;
        case 'tool_call': {
          const id = String(u.toolCallId ?? '');
          const title = typeof u.title === 'string' ? u.title : '';
          if (tools.size < 1024) tools.set(id, title);
          s.toolCall({ id, title, phase: 'start' });
          if (u.status === 'completed' || u.status === 'failed') endTool(id, u);
          return;
        }
        case 'tool_call_update': {
          const id = String(u.toolCallId ?? '');
          if (u.status === 'completed' || u.status === 'failed') endTool(id, u);
          return;
        }
        case 'plan': {
          const p = planOf(u);
          s.plan(p.entries);
          s.meta('plan', p.value);
          return;
        }
        case 'usage_update': {
          const use = usageOf(u);
          if (use.context !== null) s.meta('context', use.context);
          if (use.cost !== null) s.meta('cost', use.cost);
          return;
        }
        default:
          return;
      }
    },
  };

  function endTool(id: string, u: Record<string, unknown>): void {
    if (!tools.has(id)) return;
    const title = (typeof u.title === 'string' && u.title) || tools.get(id) || '';
    tools.delete(id);
    sink?.toolCall({ id, title, phase: 'end', failed: u.status === 'failed' });
  }

  return {
    async start(s) {
      sink = s;
      let child;
      try {
        child = spawnAgent(o);
      } catch (e) {
        s.exited(`it did not start: ${(e as Error).message}`);
        return;
      }
      pid = child.pid;
      let started = false;
      child.on('error', (e) => {
        if (gone) return;
        gone = true;
        s.exited(started ? `it failed: ${e.message}` : `it did not start: ${e.message}`);
      });
      child.on('exit', (code, signal) => {
        if (gone) return;
        gone = true;
        s.exited(signal ? `it was stopped by ${signal}` : `it exited with code ${code}`);
      });
      if (!child.stdin || !child.stdout) return;
      child.stdin.on('error', () => undefined);
      const stream = ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as unknown as ReadableStream<Uint8Array>, { maxMessageBytes: ACP_MESSAGE_MAX_BYTES });
      conn = new ClientSideConnection(() => client, stream);
      try {
        const init = await conn.initialize({
          protocolVersion: PROTOCOL_VERSION,
          clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
          clientInfo: { name: 'tuios', version: '1' },
        });
        const made = await conn.newSession({ cwd: o.cwd, mcpServers: [] });
        started = true;
        sessionId = made.sessionId;
        const model = modelOf(made);
        s.opened({ agent: agentOf(init) ?? undefined, model: model ?? undefined });
        if (model) s.meta('model', model);
      } catch (e) {
        if (gone) return;
        gone = true;
        s.exited(`it did not open a conversation: ${(e as Error).message}`);
        killGroup(pid);
      }
    },
    async prompt(text) {
      const s = sink;
      if (!s || !conn || gone) {
        s?.turnEnded({ kind: 'failed', why: 'the agent is not running' });
        return;
      }
      try {
        const r = await conn.prompt({ sessionId, prompt: [{ type: 'text', text }] });
        if (gone) return;
        const end = stopOf(r.stopReason);
        s.turnEnded(end === 'done' ? { kind: 'done', reply: '' } : end === 'cancelled' ? { kind: 'cancelled' } : { kind: 'failed', why: end.failed });
      } catch (e) {
        if (gone) return;
        s.turnEnded({ kind: 'failed', why: errorText(e) });
      }
    },
    async cancel() {
      if (conn && sessionId && !gone) await conn.cancel({ sessionId }).catch(() => undefined);
    },
    async close() {
      gone = true;
      killGroup(pid);
    },
  };
}

/** A JSON-RPC error's message and, when it has one, the data's message (the model API's words). */
function errorText(e: unknown): string {
  const err = e as { message?: unknown; data?: unknown };
  const data = err?.data as { message?: unknown; details?: unknown } | string | undefined;
  const more = typeof data === 'string' ? data : typeof data?.message === 'string' ? data.message : typeof data?.details === 'string' ? data.details : '';
  const msg = typeof err?.message === 'string' ? err.message : String(e);
  return more && !msg.includes(more) ? `${msg}: ${more}` : msg;
}

/** Ends the agent's whole session (it leads its own process group). */
function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    // already gone
  }
}
