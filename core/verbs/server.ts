// Verbs about the daemon itself: list-verbs, server-info, kill-server.
import { z } from 'zod';
import { defineVerb, type VerbInfo } from '../rpc/verb.js';
import { describeVerb, type VerbDescription } from '../rpc/describe.js';
import { TuiosError } from '../errors.js';
import { VERSION, PROTOCOL_VERSION } from '../version.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { getHeapCodeStatistics } from 'node:v8';
import { waitsRunning } from './wait.js';
import { readLoopDelay } from '../daemon/loop-delay.js';
import { table } from '../rpc/print-helpers.js';

let cache: VerbDescription[] | null = null;
/** Each verb's description once made, by name (the registry never changes while the daemon runs). */
const described = new Map<string, VerbDescription>();

function describedOf(def: VerbInfo): VerbDescription {
  let d = described.get(def.name);
  if (!d) {
    d = describeVerb(def);
    described.set(def.name, d);
  }
  return d;
}

/** A verb as list-verbs describes it (core/rpc/describe.ts). */
const verbDescriptionSchema = z.object({
  name: z.string(),
  summary: z.string(),
  help: z.string().optional(),
  target: z.enum(['none', 'session', 'session-or-new', 'window', 'window-optional']),
  mutates: z.boolean(),
  stream: z.boolean(),
  params: z.array(
    z.object({
      name: z.string(),
      type: z.enum(['string', 'integer', 'number', 'boolean', 'string[]', 'record', 'object']),
      required: z.boolean(),
      description: z.string().optional(),
      enum: z.array(z.string()).optional(),
      default: z.unknown().optional(),
    }),
  ),
  // The params' JSON schema, whole.
  schema: z.unknown(),
  cli: z.object({
    positionals: z.array(z.string()).optional(),
    rest: z.string().optional(),
    command: z.boolean().optional(),
    short: z.record(z.string(), z.string()).optional(),
    comma: z.array(z.string()).optional(),
    aliases: z.array(z.string()).optional(),
    subcommands: z.record(z.string(), z.string()).optional(),
    usage: z.string().optional(),
    callerCwd: z.string().optional(),
  }),
});

export const listVerbs = defineVerb({
  name: 'list-verbs',
  link: { untargeted: true },
  access: 'none',
  summary: 'List every verb with its params (ask before you send)',
  target: 'none',
  mutates: false,
  cli: { positionals: ['verb'] },
  params: z.object({ verb: z.string().max(64).optional().describe('Describe only this verb') }),
  // With --verb only the one verb; else every verb, the protocol and the daemon's version.
  result: z.object({ verbs: z.array(verbDescriptionSchema), protocol: z.number().int().optional(), version: z.string().optional() }),
  print: (r) => table(r.verbs.map((v) => [v.name, v.summary])),
  run({ params, svc }) {
    if (params.verb) {
      // One verb is described alone: describing every verb took 86 ms the first time (0.7 s on a busy
      // machine), and a hook's first question, which asks for a few by name, gave up waiting for it.
      const def = svc.dispatcher.get(params.verb);
      if (!def) throw new TuiosError('unknown_verb', `There is no verb "${params.verb}".`, 'List them with: tuios list-verbs');
      return { verbs: [describedOf(def)] };
    }
    cache ??= svc.dispatcher.list().map(describedOf);
    return { verbs: cache, protocol: PROTOCOL_VERSION, version: VERSION };
  },
});

export const serverInfo = defineVerb({
  name: 'server-info',
  link: { untargeted: true },
  access: 'none',
  summary: 'The daemon\'s version, pid, socket, boot id, uptime and memory',
  target: 'none',
  mutates: false,
  params: z.object({
    gc: z.boolean().default(false).describe('Collect garbage before reading memory (only when the daemon runs under node --expose-gc, as leak tests do)'),
    reset_loop: z.boolean().default(false).describe('Start the event loop figures anew after reading them (to read one phase of a run)'),
  }),
  result: z.object({
    version: z.string(),
    protocol: z.number().int(),
    pid: z.number().int(),
    socket: z.string(),
    boot_id: z.string(),
    started_at: z.number(),
    uptime_ms: z.number(),
    sessions: z.number().int(),
    windows: z.number().int(),
    config_error: z.string().nullable(),
    config_warnings: z.array(z.string()),
    // What each endpoint (ssh, link, ...) says of itself.
    endpoints: z.record(z.string(), z.unknown()),
    attached_clients: z.number().int(),
    waits: z.number().int(),
    memory: z.object({
      rss: z.number().int(),
      heap_used: z.number().int(),
      heap_total: z.number().int(),
      heap_code: z.number().int(),
      external: z.number().int(),
      array_buffers: z.number().int(),
      collected: z.boolean(),
    }),
    process_listeners: z.number().int(),
    // How long the event loop kept work waiting since the daemon started or the last reset_loop.
    event_loop: z.object({ since: z.number(), p50_ms: z.number(), p99_ms: z.number(), max_ms: z.number() }).nullable(),
  }),
  print: 'fields',
  run({ svc, params }) {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (params.gc && gc) gc();
    const m = process.memoryUsage();
    const code = getHeapCodeStatistics();
    return {
      version: VERSION,
      protocol: PROTOCOL_VERSION,
      pid: process.pid,
      socket: svc.paths.socket,
      boot_id: svc.bootId,
      started_at: svc.startedAt,
      uptime_ms: Date.now() - svc.startedAt,
      sessions: svc.model.sessions.size,
      windows: svc.model.windows.size,
      config_error: svc.config.lastError,
      config_warnings: svc.config.warnings,
      endpoints: Object.fromEntries(svc.endpoints),
      attached_clients: svc.person.attachedCount,
      waits: waitsRunning(svc),
      // heap_code is the part of heap_used that is compiled code and bytecode: it grows as V8
      // optimizes, so a leak test reads heap_used less heap_code (the program's own objects).
      memory: { rss: m.rss, heap_used: m.heapUsed, heap_total: m.heapTotal, heap_code: code.code_and_metadata_size + code.bytecode_and_metadata_size, external: m.external, array_buffers: m.arrayBuffers, collected: !!(params.gc && gc) },
      // terminal-kit adds listeners per client; a count that keeps growing is a leak.
      process_listeners: ['exit', 'beforeExit', 'asyncExit', 'SIGWINCH', 'uncaughtException'].reduce((n, ev) => n + process.listenerCount(ev), 0),
      event_loop: readLoopDelay(params.reset_loop),
    };
  },
});

export const killServer = defineVerb({
  name: 'kill-server',
  access: 'admin',
  summary: 'Stop the daemon; sessions and windows come back (with new shells) at its next start',
  target: 'none',
  mutates: true,
  params: z.object({}),
  result: z.object({ stopping: z.literal(true), pid: z.number().int() }),
  print: 'none',
  run({ svc }) {
    setImmediate(() => svc.shutdown('kill-server'));
    return { stopping: true as const, pid: process.pid };
  },
});

export const sshHostKey = defineVerb({
  name: 'ssh-host-key',
  access: 'none',
  summary: 'The SSH server\'s host key fingerprint, as ssh-keygen -lf prints it',
  target: 'none',
  mutates: false,
  cli: { aliases: ['ssh'], subcommands: { 'host-key': 'ssh-host-key', status: 'ssh-status' } },
  params: z.object({}),
  result: z.object({ fingerprint: z.string(), type: z.string(), line: z.string(), file: z.string() }),
  print: (r) => r.line,
  run({ svc }) {
    const file = join(svc.paths.stateDir, 'ssh_host_ed25519_key.pub');
    let text: string;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch {
      throw new TuiosError('not_found', 'This daemon has no SSH host key yet.', 'It is made when the SSH server first starts ([ssh] enabled = true).');
    }
    // split always answers a first word: type is a string ('' for an empty file).
    const [type = '', b64, ...comment] = text.split(/\s+/);
    const fp = 'SHA256:' + createHash('sha256').update(Buffer.from(b64 ?? '', 'base64')).digest('base64').replace(/=+$/, '');
    const bits = type === 'ssh-ed25519' ? 256 : 0;
    return { fingerprint: fp, type, line: `${bits} ${fp} ${comment.join(' ') || 'no comment'} (${type === 'ssh-ed25519' ? 'ED25519' : (type ?? '').toUpperCase()})`, file };
  },
});
