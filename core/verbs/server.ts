// Verbs about the daemon itself: list-verbs, server-info, kill-server.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { describeVerb, type VerbDescription } from '../rpc/describe.js';
import { TuiosError } from '../errors.js';
import { VERSION, PROTOCOL_VERSION } from '../version.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { getHeapCodeStatistics } from 'node:v8';
import { waitsRunning } from './wait.js';

let cache: VerbDescription[] | null = null;

export const listVerbs = defineVerb({
  name: 'list-verbs',
  link: { untargeted: true },
  access: 'none',
  summary: 'List every verb with its params (ask before you send)',
  target: 'none',
  mutates: false,
  cli: { positionals: ['verb'] },
  params: z.object({ verb: z.string().max(64).optional().describe('Describe only this verb') }),
  run({ params, svc }) {
    cache ??= svc.dispatcher.list().map(describeVerb);
    if (params.verb) {
      const one = cache.find((v) => v.name === params.verb);
      if (!one) throw new TuiosError('unknown_verb', `There is no verb "${params.verb}".`, 'List them with: tuios list-verbs');
      return { verbs: [one] };
    }
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
  }),
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
  run({ svc }) {
    setImmediate(() => svc.shutdown('kill-server'));
    return { stopping: true, pid: process.pid };
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
  run({ svc }) {
    const file = join(svc.paths.stateDir, 'ssh_host_ed25519_key.pub');
    let text: string;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch {
      throw new TuiosError('not_found', 'This daemon has no SSH host key yet.', 'It is made when the SSH server first starts ([ssh] enabled = true).');
    }
    const [type, b64, ...comment] = text.split(/\s+/);
    const fp = 'SHA256:' + createHash('sha256').update(Buffer.from(b64 ?? '', 'base64')).digest('base64').replace(/=+$/, '');
    const bits = type === 'ssh-ed25519' ? 256 : 0;
    return { fingerprint: fp, type, line: `${bits} ${fp} ${comment.join(' ') || 'no comment'} (${type === 'ssh-ed25519' ? 'ED25519' : (type ?? '').toUpperCase()})`, file };
  },
});
