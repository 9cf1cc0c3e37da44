// `hosts add` and `hosts rm` edit config.toml as text: a `[hosts.NAME]` table appended, or that
// table's lines taken out, and everything else in the file (comments, order, other tables) left
// as the person wrote it. The result is parsed and checked before it is written; a host the
// person wrote some other way (an inline table) is refused with a hint to edit it by hand.
import { stringify } from 'smol-toml';
import { parseConfig } from '../core/config/config.js';
import { TuiosError } from '../core/errors.js';

export interface HostEntryText {
  address: string;
  port?: number;
  user?: string;
  identity?: string;
}

function headerName(line: string): string | null {
  const m = /^\s*\[\s*hosts\s*\.\s*(?:"([^"]+)"|'([^']+)'|([A-Za-z0-9_.-]+))\s*\]\s*(#.*)?$/.exec(line);
  return m ? (m[1] ?? m[2] ?? m[3] ?? null) : null;
}

function hostsOf(text: string): Record<string, unknown> {
  const r = parseConfig(text);
  if (!r.config) throw new TuiosError('invalid_params', `config.toml does not read as it is (${r.error}); fix it first.`);
  return r.config.hosts;
}

export function addHostText(text: string, name: string, e: HostEntryText): string {
  if (name in hostsOf(text)) throw new TuiosError('name_taken', `config.toml already has a host ${name}.`, `Remove it first with: tuios hosts rm ${name}`);
  const entry: Record<string, unknown> = { address: e.address };
  if (e.port !== undefined) entry.port = e.port;
  if (e.user) entry.user = e.user;
  if (e.identity) entry.identity = e.identity;
  const block = stringify({ hosts: { [name]: entry } }).trim();
  const next = `${text.replace(/\s*$/, '')}${text.trim() ? '\n\n' : ''}# Added by tuios hosts add. What ${name} may do here: list, write, respond, files, hold_mail.\n${block}\n`;
  if (!(name in hostsOf(next))) throw new TuiosError('internal', 'The host table did not read back.');
  return next;
}

export function removeHostText(text: string, name: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let skipping = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (/^\s*\[/.test(line)) skipping = headerName(line) === name;
    if (!skipping) out.push(line);
    else if (out.length && /^# Added by tuios hosts add\./.test(out[out.length - 1]!)) out.pop();
  }
  const next = out.join('\n').replace(/\n{3,}/g, '\n\n');
  if (name in hostsOf(next)) throw new TuiosError('conflict', `The host ${name} is written in config.toml in a form tuios does not edit.`, 'Remove it from config.toml by hand.');
  return next;
}
