// `tuios integration install|uninstall|status`: edits each harness's own config file (spec:
// Harness integrations). Keeps the user's text and order, replaces the file atomically, writes
// nothing when nothing changed, keeps the file from before tuios touched it as `<file>.tuios.bak`
// (once), follows a symlinked file, refuses a file it cannot parse, a symlink to nothing and a
// configuration folder that does not exist yet. Runs in the CLI: no daemon involved.
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../store/atomic.js';
import { KIMI_BEGIN, KIMI_END, type Env, type Integration } from './table.js';
import { deepEqual, parseJsonObject, styleOf, writeJsonText } from './json-text.js';
import { versionsIn, withOurs, withoutOurs } from './hook-entries.js';
import { obj } from '../hooks/plan.js';
import { statusLineStatus, withStatusLine, withoutStatusLine, type StatusLineStatus } from './status-line.js';
import { HERMES_PLUGIN, HermesConfigError, hermesEnabled, hermesPluginFiles, withHermesEnabled, withoutHermesEnabled } from './hermes.js';

export type IntegrationState = 'installed' | 'out of date' | 'not installed' | 'no integration' | 'cannot read';

export interface StatusRow {
  harness: string;
  name: string;
  reports: 'state' | 'session';
  state: IntegrationState;
  file: string;
  version: number | null;
  current: number;
  /** The program the installed hooks run. */
  program?: string;
  note?: string;
  /** Claude Code's status line feed (spec: The status line feed). */
  status_line?: StatusLineStatus;
}

/** What an install adds beside the hooks: Claude Code's status line, with the person's command to chain. */
export interface InstallOptions {
  statusLine?: { then: string | null };
}

/** What an uninstall takes: everything, or the status line alone. */
export interface UninstallOptions {
  statusLineOnly?: boolean;
}

export class IntegrationError extends Error {}

/** The file to edit: a symlink's target (a dotfile manager's link stays a link); a dangling one is refused. */
function realTarget(file: string): string {
  let st;
  try {
    st = lstatSync(file);
  } catch {
    return file;
  }
  if (!st.isSymbolicLink()) return file;
  try {
    return realpathSync(file);
  } catch {
    throw new IntegrationError(`${file} is a symlink to a file that does not exist; tuios does not write through it.`);
  }
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new IntegrationError(`${path} cannot be read: ${(e as Error).message}`);
  }
}

/** A harness's own file, written atomically with the mode it had (a new one 0644, its folders 0755). */
function writeAtomic(path: string, text: string): void {
  let mode = 0o644;
  try {
    mode = statSync(path).mode & 0o7777;
  } catch {
    // a new file
  }
  writeFileAtomic(path, text, { mode, dirMode: 0o755 });
}

export interface Change {
  file: string;
  changed: boolean;
  action: 'written' | 'removed' | 'unchanged';
}

/**
 * One edit of one file: read, compute, and write only if the file is still what was read (a
 * harness saving it meanwhile gets one more try, then the edit is refused).
 */
export function edit(file: string, compute: (text: string | null) => string | null, opts: { backup: boolean }): Change {
  const path = realTarget(file);
  for (let attempt = 0; attempt < 2; attempt++) {
    const before = readText(path);
    const after = compute(before);
    if (after === before) return { file: path, changed: false, action: 'unchanged' };
    if (readText(path) !== before) continue;
    const bak = `${path}.tuios.bak`;
    if (opts.backup && before !== null && !existsSync(bak)) writeAtomic(bak, before);
    if (after === null) unlinkSync(path);
    else writeAtomic(path, after);
    return { file: path, changed: true, action: after === null ? 'removed' : 'written' };
  }
  throw new IntegrationError(`${path} changed while tuios edited it; it was not written. Run the command again.`);
}

function backupOf(path: string): string | null {
  return readText(`${realTarget(path)}.tuios.bak`);
}

function requireDir(i: Integration, env: Env): void {
  const dir = i.dir(env);
  if (!existsSync(dir)) throw new IntegrationError(`${dir} does not exist yet: run ${i.name} once first, then install again.`);
}

/** Where a JSON kind keeps its hooks table. */
function tableKey(i: Integration): string {
  return i.kind.type === 'settings-hooks' ? (i.kind.tableKey ?? 'hooks') : 'hooks';
}

function tableOf(i: Integration, doc: Record<string, unknown>): Record<string, unknown> {
  return obj(doc[tableKey(i)]) ?? {};
}

function putTable(i: Integration, doc: Record<string, unknown>, table: Record<string, unknown>): Record<string, unknown> {
  const out = { ...doc };
  const key = tableKey(i);
  if (Object.keys(table).length === 0) delete out[key];
  else out[key] = table;
  const k = i.kind;
  if (k.type === 'hooks-file' && out.hooks === undefined && k.header && Object.keys(out).every((key) => key in k.header!)) return {};
  return out;
}

function parseOrRefuse(path: string, text: string): Record<string, unknown> {
  const p = parseJsonObject(text);
  if (!p.ok) throw new IntegrationError(`${path} is not changed: ${p.why}. Fix it by hand, then install again.`);
  return p.value;
}

/** The status line edit for Claude Code's settings, or a refusal that leaves the file unchanged. */
function statusLineEdit(i: Integration, file: string, doc: Record<string, unknown>, program: string, opts: InstallOptions): Record<string, unknown> {
  if (!opts.statusLine) return doc;
  if (i.harness !== 'claude-code') throw new IntegrationError(`${i.name} has no status line feed; --statusline is for Claude Code`);
  const r = withStatusLine(doc, program, opts.statusLine.then);
  if (!r.ok) throw new IntegrationError(`${file} is not changed: ${r.why}`);
  return r.doc;
}

/**
 * The versions a file tuios wrote names (its `--integration N`, in a comment or in the command it
 * runs): none for a file someone else wrote, which install refuses and uninstall leaves alone.
 */
function ownFileVersions(text: string): number[] {
  return [...text.matchAll(/--integration["\s,]+(\d+)/g)].map((m) => Number(m[1]));
}

export function install(i: Integration, env: Env, program = 'tuios', opts: InstallOptions = {}): Change {
  if (opts.statusLine && i.harness !== 'claude-code') throw new IntegrationError(`${i.name} has no status line feed; --statusline is for Claude Code`);
  requireDir(i, env);
  const refused = i.refuse?.(env);
  if (refused) throw new IntegrationError(refused);
  const file = i.file(env);
  const k = i.kind;
  if (k.type === 'hermes') return installHermes(i, env, program);
  if (k.type === 'own-file') {
    return edit(file, (text) => {
      if (text !== null && ownFileVersions(text).length === 0) throw new IntegrationError(`${file} exists and tuios did not write it; it is left alone.`);
      return k.text(program);
    }, { backup: false });
  }
  if (k.type === 'toml-block') {
    return edit(file, (text) => {
      const base = stripBlock(text ?? '');
      const sep = base === '' || base.endsWith('\n\n') ? '' : base.endsWith('\n') ? '\n' : '\n\n';
      return base + sep + k.text(program);
    }, { backup: true });
  }
  return edit(file, (text) => {
    const doc = parseOrRefuse(file, text ?? '');
    const style = styleOf(text ?? '');
    const base = k.type === 'hooks-file' && text === null && k.header ? { ...k.header } : doc;
    const next = statusLineEdit(i, file, putTable(i, base, withOurs(tableOf(i, base), i.entries!(program), k.shape, k.commandKey)), program, opts);
    if (text !== null && deepEqual(next, doc)) return text;
    return writeJsonText(next, style);
  }, { backup: true });
}

export function uninstall(i: Integration, env: Env, opts: UninstallOptions = {}): Change {
  if (opts.statusLineOnly && i.harness !== 'claude-code') throw new IntegrationError(`${i.name} has no status line feed; --statusline is for Claude Code`);
  const file = i.file(env);
  const k = i.kind;
  if (k.type !== 'hermes' && !existsSync(file) && !isLink(file)) return { file, changed: false, action: 'unchanged' };
  if (k.type === 'hermes') return uninstallHermes(i, env);
  const bak = backupOf(file);
  if (k.type === 'own-file') {
    return edit(file, (text) => (text !== null && ownFileVersions(text).length > 0 ? null : text), { backup: false });
  }
  if (k.type === 'toml-block') {
    return edit(file, (text) => {
      if (text === null) return null;
      const base = stripBlock(text);
      if (base === stripBlock(base) && base === text) return text;
      // The file as it was before tuios, byte for byte, when nothing else changed since.
      if (bak !== null && bak.replace(/\n+$/, '') === base.replace(/\n+$/, '')) return bak;
      return base;
    }, { backup: false });
  }
  return edit(file, (text) => {
    if (text === null) return null;
    const doc = parseOrRefuse(file, text);
    // Claude Code's status line goes with the hooks, or alone with --statusline.
    const hooksGone = opts.statusLineOnly ? doc : putTable(i, doc, withoutOurs(tableOf(i, doc), k.shape, k.commandKey));
    const next = i.harness === 'claude-code' ? withoutStatusLine(hooksGone) : hooksGone;
    if (deepEqual(next, doc)) return text;
    if (bak !== null) {
      const was = parseJsonObject(bak);
      if (was.ok && deepEqual(was.value, next)) return bak;
    } else if (Object.keys(next).length === 0) return null; // tuios made the file: it goes
    return writeJsonText(next, styleOf(text));
  }, { backup: false });
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

function stripBlock(text: string): string {
  const a = text.indexOf(KIMI_BEGIN);
  if (a < 0) return text;
  const b = text.indexOf(KIMI_END, a);
  const end = b < 0 ? text.length : b + KIMI_END.length + (text[b + KIMI_END.length] === '\n' ? 1 : 0);
  let head = text.slice(0, a);
  // The blank line install put before the block goes with it.
  if (head.endsWith('\n\n')) head = head.slice(0, -1);
  return head + text.slice(end);
}

function programOf(text: string): string | undefined {
  const m = /(?:"command"\s*:\s*"|"bash"\s*:\s*"|command = "|spawn\(")([^"\\]*(?:\\.[^"\\]*)*?)\s+agent-hook\b/.exec(text) ?? /(?:spawn\(|PROGRAM = )("[^"]+")/.exec(text);
  if (!m) return undefined;
  const raw = m[1]!;
  if (raw.startsWith('"')) return JSON.parse(raw) as string;
  // One shell word as shellWord wrote it: 'a b' with '\'' for a quote.
  return /^'.*'$/.test(raw) ? raw.slice(1, -1).replace(/'\\''/g, "'") : raw;
}

export function status(i: Integration, env: Env): StatusRow {
  const file = i.file(env);
  const row: StatusRow = { harness: i.harness, name: i.name, reports: i.reports, state: 'not installed', file, version: null, current: i.version };
  if (i.harness === 'claude-code') row.status_line = { state: 'not installed', version: null, then: null };
  let text: string | null;
  try {
    text = readText(realTarget(file));
  } catch (e) {
    return { ...row, state: 'cannot read', note: (e as Error).message };
  }
  if (!existsSync(i.dir(env))) return { ...row, note: `${i.dir(env)} does not exist yet: run ${i.name} once first` };
  if (text === null) return row;
  let versions: number[] = [];
  const k = i.kind;
  if (k.type === 'hermes') {
    const h = hermesStatus(i, env, text);
    if (h.state !== 'installed') return { ...row, ...h };
    versions = [h.version!];
  } else if (k.type === 'own-file' || k.type === 'toml-block') {
    versions = ownFileVersions(text);
    if (k.type === 'own-file' && versions.length === 0) return { ...row, state: 'cannot read', note: `${file} exists and tuios did not write it` };
  } else {
    const p = parseJsonObject(text);
    if (!p.ok) return { ...row, state: 'cannot read', note: `${file}: ${p.why}` };
    versions = versionsIn(tableOf(i, p.value), k.shape, k.commandKey);
    if (i.harness === 'claude-code') row.status_line = statusLineStatus(p.value);
  }
  if (versions.length === 0) return row;
  const v = Math.min(...versions);
  row.version = v;
  row.state = v >= i.version ? 'installed' : 'out of date';
  row.program = programOf(k.type === 'hermes' ? (readText(hermesInit(i, env)) ?? '') : text);
  if (i.harness === 'codex') {
    const cfg = readText(join(i.dir(env), 'config.toml')) ?? '';
    if (/^\[features\][^[]*^\s*hooks\s*=\s*false/ms.test(cfg)) row.note = 'config.toml turns hooks off ([features] hooks = false)';
  }
  return row;
}


// Hermes: three files, worked out before any is written, so a file tuios cannot read or may not
// touch leaves all of them unchanged.
function hermesPluginDir(i: Integration, env: Env): string {
  return join(i.dir(env), 'plugins', HERMES_PLUGIN);
}

function hermesInit(i: Integration, env: Env): string {
  return join(hermesPluginDir(i, env), '__init__.py');
}

function ownedByUs(text: string | null): boolean {
  return text !== null && /--integration\s*\d+/.test(text) && text.includes('tuios');
}

function installHermes(i: Integration, env: Env, program: string): Change {
  const config = i.file(env);
  const files = hermesPluginFiles(program);
  const dir = hermesPluginDir(i, env);
  const cfgPath = realTarget(config);
  const cfgBefore = readText(cfgPath);
  let cfgAfter: string;
  try {
    cfgAfter = withHermesEnabled(cfgBefore ?? '');
  } catch (e) {
    if (e instanceof HermesConfigError) throw new IntegrationError(`${config} is not changed: ${e.message}`);
    throw e;
  }
  for (const name of Object.keys(files)) {
    const t = readText(join(dir, name));
    if (t !== null && !ownedByUs(t)) throw new IntegrationError(`${join(dir, name)} exists and tuios did not write it; nothing was changed.`);
  }
  let changed = false;
  const written: string[] = [];
  try {
    for (const [name, text] of Object.entries(files)) {
      if (edit(join(dir, name), () => text, { backup: false }).changed) {
        changed = true;
        written.push(join(dir, name));
      }
    }
    changed = edit(config, (t) => (t === cfgBefore ? cfgAfter : withHermesEnabled(t ?? '')), { backup: true }).changed || changed;
  } catch (e) {
    // An integration over several files says which it changed and which it did not.
    const msg = e instanceof Error ? e.message : String(e);
    throw new IntegrationError(`${msg}${written.length ? ` Already changed: ${written.join(', ')}.` : ''} Not changed: ${config}.`);
  }
  return { file: config, changed, action: changed ? 'written' : 'unchanged' };
}

function uninstallHermes(i: Integration, env: Env): Change {
  const config = i.file(env);
  const dir = hermesPluginDir(i, env);
  let changed = false;
  for (const name of Object.keys(hermesPluginFiles('tuios'))) {
    const p = join(dir, name);
    if (ownedByUs(readText(p))) changed = edit(p, () => null, { backup: false }).changed || changed;
  }
  try {
    if (existsSync(dir) && readdirSync(dir).length === 0) rmdirSync(dir);
  } catch {
    // the folder stays
  }
  if (existsSync(config) || isLink(config)) {
    const bak = backupOf(config);
    changed =
      edit(
        config,
        (t) => {
          if (t === null) return null;
          const next = withoutHermesEnabled(t);
          if (next === t) return t;
          // The file as it was before tuios, byte for byte, when nothing else changed since.
          if (bak !== null) {
            try {
              if (withHermesEnabled(bak) === t) return bak;
            } catch {
              // the backup does not take the plugin: keep the line edit
            }
          }
          return next;
        },
        { backup: false },
      ).changed || changed;
  }
  return { file: config, changed, action: changed ? 'written' : 'unchanged' };
}

function hermesStatus(i: Integration, env: Env, config: string): { state: IntegrationState; version?: number; note?: string } {
  const init = readText(hermesInit(i, env));
  if (init === null) return { state: 'not installed' };
  if (!ownedByUs(init)) return { state: 'cannot read', note: `${hermesInit(i, env)} exists and tuios did not write it` };
  const v = Number(/--integration\s*(\d+)/.exec(init)?.[1] ?? 0);
  if (!hermesEnabled(config)) return { state: 'not installed', note: `${HERMES_PLUGIN} is not in plugins.enabled in ${i.file(env)}` };
  return { state: v >= i.version ? 'installed' : 'out of date', version: v };
}
