// hosts add / ls / rm (spec: Other machines): the hosts this machine links to, stored as
// `[hosts.NAME]` tables in config.toml. The first connection shows the host key's fingerprint;
// `hosts add` records it once the person accepted it (asked at a terminal, --yes otherwise), and
// a key that changed later refuses the link loudly.
import { z } from 'zod';
import { readFileSync, existsSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { defineVerb } from '../../core/rpc/verb.js';
import { TuiosError } from '../../core/errors.js';
import { writeFileAtomic } from '../../core/store/atomic.js';
import { HOST_NAME_RE } from '../../core/config/schema.js';
import type { Services } from '../../core/daemon/services.js';
import type { Links } from '../links.js';
import { addHostText, removeHostText } from '../hosts-config.js';
import { probeHostKey } from '../transport/dial.js';
import { table, str } from '../../core/rpc/print-helpers.js';

/** A linked host as list-hosts shows it: its link's status, how long since it was heard, and a label. */
const hostStatusSchema = z.object({
  name: z.string(),
  address: z.string(),
  port: z.number().int(),
  state: z.enum(['connecting', 'up', 'down']),
  since: z.number(),
  seen_at: z.number(),
  reason: z.string().nullable(),
  detail: z.string().nullable(),
  version: z.string().nullable(),
  protocol: z.number().int().nullable(),
  via: z.string().nullable(),
  agents: z.number().int(),
  items: z.number().int(),
  dropped: z.number().int(),
  mail_waiting: z.number().int(),
  refused: z.array(z.object({ id: z.string(), to: z.string(), code: z.string(), reason: z.string(), at: z.number() })).readonly(),
  seen_ms: z.number().nullable(),
  label: z.string(),
});

/** The Links of each daemon (two daemons may run in one test process). */
const links = new WeakMap<Services, Links>();

export function setLinks(svc: Services, l: Links | null): void {
  if (l) links.set(svc, l);
  else links.delete(svc);
}

function linksOf(svc: Services): Links {
  const l = links.get(svc);
  if (!l) throw new TuiosError('unsupported', 'This daemon runs without the link between hosts.');
  return l;
}

function configText(svc: Services): string {
  const f = svc.config.file;
  return existsSync(f) ? readFileSync(f, 'utf8') : '';
}

function writeConfig(svc: Services, text: string): void {
  writeFileAtomic(svc.config.file, text);
  // Applied now, not when the watcher notices.
  const r = svc.config.load();
  if (r.error) throw new TuiosError('internal', `config.toml did not apply after the edit: ${r.error}`);
}

export const addHost = defineVerb({
  name: 'add-host',
  access: 'admin',
  summary: 'Link to another machine: its agents, Inbox and mail appear here (hosts add NAME ADDR)',
  help: 'Connects once to show the host key\'s fingerprint; a key not recorded yet (in the state folder\'s known_hosts or ~/.ssh/known_hosts) is refused with confirm_required until you accept it: the CLI asks at a terminal, and takes --yes otherwise. Then writes [hosts.NAME] to config.toml, and the daemon keeps a link to it. The port is tuios\'s SSH server there (2222), or 22 for a host that runs only OpenSSH (the link then runs `tuios link-serve --stdio` there).',
  target: 'none',
  mutates: true,
  cli: { positionals: ['name', 'address'], short: { p: 'port', u: 'user', i: 'identity' }, usage: 'hosts add NAME ADDRESS [--port P] [--user U] [--identity FILE] [--yes]' },
  params: z.object({
    name: z.string().regex(HOST_NAME_RE, 'a host name is letters, digits, ., - and _').refine((n) => n !== 'local', '"local" names this machine').describe('The name targets use (NAME:SESSION)'),
    address: z.string().min(1).max(253).describe('Its address'),
    port: z.number().int().min(1).max(65535).optional().describe('Its SSH port (default 2222)'),
    user: z.string().min(1).max(64).optional().describe('The user there (default yours)'),
    identity: z.string().min(1).max(4096).optional().describe('The private key to log in with (default ssh-agent, then ~/.ssh/id_*)'),
    confirm: z.string().max(128).optional().describe('The host key fingerprint you accept (SHA256:...)'),
  }),
  result: z.object({ host: z.string(), address: z.string(), port: z.number().int(), fingerprint: z.string(), key_recorded: z.boolean(), known_from: z.string() }),
  print: (r) => `linked to ${str(r.host)} at ${str(r.address)}:${str(r.port)} (host key ${str(r.fingerprint)}${r.key_recorded ? ', recorded' : ''})`,
  async run({ params, svc }) {
    const l = linksOf(svc);
    const port = params.port ?? 2222;
    const text = configText(svc);
    if (svc.config.current.hosts[params.name]) throw new TuiosError('name_taken', `There is already a host ${params.name}.`, `Remove it first with: tuios hosts rm ${params.name}`);
    const key = await probeHostKey(params.address, port).catch((e: Error) => {
      throw new TuiosError('host_down', `${params.address}:${port} cannot be reached: ${e.message}`, 'Check the address and that tuios (or sshd) listens there.');
    });
    const v = l.known.judge(params.address, port, key.blob);
    if (v.kind === 'changed' || v.kind === 'revoked') {
      throw new TuiosError('forbidden', `THE HOST KEY OF ${params.address}:${port} DOES NOT MATCH: it shows ${key.fingerprint}, and ${v.source} line ${v.line} records another key. Nothing was added.`, 'If the host was reinstalled, remove the old line from that file first.', { fingerprint: key.fingerprint });
    }
    let recorded = false;
    if (v.kind === 'unknown') {
      if (params.confirm !== key.fingerprint) {
        throw new TuiosError('confirm_required', `The host key of ${params.address}:${port} is ${key.fingerprint}. Accept it only if that is the key of ${params.name}.`, 'Compare it with `tuios ssh host-key` on that machine (or ssh-keygen -lf its host key), then add again with --yes.', { fingerprint: key.fingerprint, confirm: key.fingerprint, available: [{ host: params.name, address: params.address, port, fingerprint: key.fingerprint }] });
      }
      l.known.record(params.address, port, key.blob);
      recorded = true;
    }
    writeConfig(svc, addHostText(text, params.name, { address: params.address, port: params.port, user: params.user, identity: params.identity }));
    svc.log.info('host added', { host: params.name, address: params.address, port, fingerprint: key.fingerprint });
    return { host: params.name, address: params.address, port, fingerprint: key.fingerprint, key_recorded: recorded, known_from: v.kind === 'known' ? v.source : l.known.own };
  },
});

function ago(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.round(s / 60)}m`;
  if (s < 86400) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86400)}d`;
}

export const listHosts = defineVerb({
  name: 'list-hosts',
  summary: 'The linked hosts: connecting, up, or down (seen Xm ago, and why), and the mail waiting for each',
  help: 'Each host has name, address, port, state (connecting, up, down), seen_ms (since the link last heard it), reason (no daemon, no tuios, version, host key unknown, host key changed, auth, refused), the agents and Inbox rows held here, and mail_waiting. `self` is the name this machine goes by on its links.',
  target: 'none',
  mutates: false,
  cli: {
    aliases: ['hosts'],
    subcommands: { add: 'add-host', ls: 'list-hosts', list: 'list-hosts', rm: 'remove-host', remove: 'remove-host' },
    usage: 'hosts [ls] [--json] | hosts add NAME ADDRESS ... | hosts rm NAME',
  },
  params: z.object({}),
  // self: the name this machine goes by; served: the hosts whose links to here are open.
  result: z.object({ self: z.string(), hosts: z.array(hostStatusSchema), served: z.array(z.string()) }),
  print: (r) => {
    const hs = r.hosts;
    if (hs.length === 0) return `no linked hosts (this machine is ${str(r.self)}); add one with: tuios hosts add NAME ADDRESS`;
    const rows = [['NAME', 'ADDRESS', 'STATE', 'AGENTS', 'INBOX'], ...hs.map((h) => [h.name, `${h.address}:${h.port}`, h.label, String(h.agents), String(h.items)])];
    const waiting = hs.filter((h) => h.mail_waiting > 0).map((h) => `${h.mail_waiting} message${h.mail_waiting === 1 ? '' : 's'} wait${h.mail_waiting === 1 ? 's' : ''} for the link to ${h.name}`);
    const why = hs.filter((h) => h.state === 'down' && h.detail).map((h) => `${h.name}: ${h.detail}`);
    return [table(rows), ...(waiting.length || why.length ? [''] : []), ...waiting, ...why].join('\n');
  },
  run({ svc }) {
    const l = linksOf(svc);
    const now = Date.now();
    const hosts = l.status().map((s) => {
      const seen = s.seen_at ? now - s.seen_at : null;
      const label = s.state === 'down' ? [seen !== null ? `seen ${ago(seen)} ago` : 'never seen', s.reason].filter(Boolean).join(', ') : s.state;
      return { ...s, seen_ms: seen, label };
    });
    return { self: l.self, hosts, served: [...l.served].map((x) => x.hostName).filter(Boolean).sort() };
  },
});

export const removeHost = defineVerb({
  name: 'remove-host',
  access: 'admin',
  summary: 'Stop linking to a host: its [hosts.NAME] table, its recorded key and the mail waiting for it go',
  target: 'none',
  mutates: true,
  cli: { positionals: ['name'], usage: 'hosts rm NAME' },
  params: z.object({ name: z.string().regex(HOST_NAME_RE).describe('The host') }),
  result: z.object({ removed: z.string(), mail_dropped: z.number().int() }),
  print: (r) => `removed ${str(r.removed)}${r.mail_dropped > 0 ? `; ${str(r.mail_dropped)} waiting messages dropped` : ''}`,
  run({ params, svc }) {
    const l = linksOf(svc);
    const h = svc.config.current.hosts[params.name];
    if (!h) throw new TuiosError('host_not_found', `There is no host ${params.name}.`, 'List them with: tuios hosts ls');
    const waiting = l.peers.get(params.name)?.sender.outbox.size ?? 0;
    writeConfig(svc, removeHostText(configText(svc), params.name));
    if (h.address) l.known.forget(h.address, h.port);
    const outbox = join(svc.paths.stateDir, 'link', 'outbox', `${params.name}.json`);
    if (existsSync(outbox)) unlinkSync(outbox);
    svc.log.info('host removed', { host: params.name, mail_dropped: waiting });
    return { removed: params.name, mail_dropped: waiting };
  },
});

export const hostVerbs = [addHost, listHosts, removeHost];
