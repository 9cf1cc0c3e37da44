// Harness manifests: one TOML file per harness (manifests/*.toml, and the user's own in
// $XDG_CONFIG_HOME/tuios/harnesses or TUIOS_HARNESS_DIR), validated whole at load. An invalid
// manifest is logged at warn with the file and the reason and dropped whole; a user manifest
// replaces a bundled one with the same id whole (no merge: a rule has no name to merge by).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { parse as parseToml } from 'smol-toml';
import type { Logger } from '../log.js';
import { compilePattern, type Pattern } from '../re.js';
import { compileRules, type CompiledRules } from './rules/compile.js';
import { MAX_CAPTURED_VERSIONS, MAX_MANIFEST_BYTES } from '../limits.js';
import { lineOfKey, parseErrorText, parseErrorWhere } from '../config/toml-where.js';

/** Names shorter than this are too common to trust alone: they need [detect.require]. */
export const SHORT_NAME = 5;

const name = z.string().min(1).max(64);
/** A release as a manifest lists it: digits first, then dotted parts and a -/+ suffix. */
const CAPTURED_VERSION = /^\d+(?:\.\d+){1,3}(?:[-+][0-9A-Za-z.-]{1,64})?$/;
const glob = z.string().min(1).max(512);

const requireBlock = z
  .object({
    /** Base names the executable may have (the runtime behind a short name). */
    exe_base: z.array(name).max(32).optional(),
    /** Globs one of which the executable path must match. */
    exe_glob: z.array(glob).max(32).optional(),
  })
  .strict();

const detectBlock = z
  .object({
    /** The kernel's name for the process (15 bytes at most). */
    comm: z.array(name).max(32).default([]),
    /** Base names of argv[0]. */
    argv0: z.array(name).max(32).default([]),
    /** Globs on the executable's path: `*` `?` inside a component, `**` across; relative matches any suffix. */
    exe_glob: z.array(glob).max(32).default([]),
    /** Package names in the path of the one script an interpreter was asked to run. */
    argv_path: z.array(name).max(32).default([]),
    /** Evidence demanded beyond a name (comm, argv0). */
    require: requireBlock.optional(),
    /** Wait on output before claiming working from presence: for harnesses with no working rule. */
    presence_working: z.boolean().default(false),
  })
  .strict();

const inputBlock = z
  .object({
    submit: z.enum(['cr', 'lf']).default('cr'),
    bracketed_paste: z.boolean().default(true),
    focus_before_submit: z.boolean().default(false),
    source: z.string().max(500).default('not measured'),
    images: z.enum(['path_paste', 'path_text', 'none']).default('path_text'),
    images_source: z.string().max(500).optional(),
  })
  .strict();

const RESUME_TOKEN = /^[A-Za-z0-9_./:=+-]+$/;
const resumeBlock = z
  .object({
    argv: z
      .array(z.string().min(1).max(256))
      .min(2)
      .max(16)
      .refine((a) => a.every((t) => t === '{session_id}' || RESUME_TOKEN.test(t.replace('{session_id}', 'x'))), 'every token is letters, digits and _ . / : = + -')
      .refine((a) => a.slice(1).some((t) => t.includes('{session_id}')) && !a[0]!.includes('{session_id}'), '{session_id} must come after the program'),
    source: z.string().max(500).default(''),
  })
  .strict();

/** Screen, title and notify blocks: shape-checked here, compiled (and refused) by the rule engine. */
const rulesBlock = z.object({ enabled: z.boolean().default(true) }).passthrough();

export const manifestSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'an id is lowercase letters, digits, - and _'),
    name: z.string().min(1).max(64),
    /** Other names the harness answers to (TUIOS_AGENT, selectors, --harness on reports). */
    aliases: z.array(name).max(16).default([]),
    /** Where the facts in this manifest come from (versions measured, docs). */
    source: z.string().max(1000).default(''),
    /** One server runs the hooks of every conversation (Codex): the session guard is stricter. */
    shared_server: z.boolean().default(false),
    /**
     * The releases its screen and title rules were captured from (the program_version of each
     * fixture under fixtures/screens/<id>/). A running release outside them is reported as not
     * covered (core/detection/harness-version.ts). Empty: no capture; absent: the manifest does not say.
     */
    captured_versions: z
      .array(z.string().regex(CAPTURED_VERSION, 'a captured version is a release number such as 2.1.332 or 0.0.1790142911-g7618fb'))
      .max(MAX_CAPTURED_VERSIONS)
      .refine((a) => new Set(a).size === a.length, 'a captured version is listed once')
      .optional(),
    detect: detectBlock.optional(),
    input: inputBlock.prefault({}),
    resume: resumeBlock.optional(),
    screen: rulesBlock.optional(),
    title: rulesBlock.optional(),
    notify: rulesBlock.optional(),
  })
  .strict();

export type ManifestData = z.infer<typeof manifestSchema>;

/** A glob on a path, compiled once: components for `*` and `?`, any depth for `**`. */
export class PathGlob {
  readonly source: string;
  private readonly re: Pattern;
  constructor(g: string) {
    this.source = g;
    let re = g.startsWith('/') ? '^' : '(?:^|/)';
    for (let i = 0; i < g.length; i++) {
      const c = g[i]!;
      if (c === '*' && g[i + 1] === '*') {
        i++;
        if (g[i + 1] === '/') {
          i++;
          re += '(?:[^/]*/)*';
        } else re += '.*';
      } else if (c === '*') re += '[^/]*';
      else if (c === '?') re += '[^/]';
      else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
    this.re = compilePattern(re + '$', 'exe_glob', '');
  }
  test(path: string): boolean {
    return this.re.test(path);
  }
}

export interface Manifest extends ManifestData {
  /** bundled, or the path of the user's file. */
  origin: 'bundled' | string;
  replacesBundled: boolean;
  file: string;
  exeGlobs: PathGlob[];
  requireGlobs: PathGlob[];
  /** Every program name the harness answers to: id, aliases, comm and argv0 names. */
  names: string[];
  /** The screen, title and notify rules, compiled once at load. */
  rules: CompiledRules;
}

export interface LoadFailure {
  file: string;
  reason: string;
}

function shortNameCheck(m: ManifestData): string | null {
  const d = m.detect;
  if (!d) return null;
  const short = [...d.comm, ...d.argv0].filter((n) => n.length < SHORT_NAME);
  if (short.length > 0 && !(d.require && (d.require.exe_base?.length || d.require.exe_glob?.length))) {
    return `the name ${JSON.stringify(short[0])} is shorter than ${SHORT_NAME} characters and needs a [detect.require] block`;
  }
  return null;
}

/** Validates and compiles one manifest's text. Throws with the reason; the caller drops it whole. */
export function compileManifest(text: string, file: string, origin: 'bundled' | string): Manifest {
  let raw: Record<string, unknown>;
  try {
    raw = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`does not parse${parseErrorWhere(e)}: ${parseErrorText(e)}`);
  }
  const r = manifestSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    const line = lineOfKey(text, i.path as Array<string | number>);
    throw new Error(`${line ? `line ${line}: ` : ''}${i.path.join('.') || '(top)'}: ${i.message}`);
  }
  const m = r.data;
  const short = shortNameCheck(m);
  if (short) throw new Error(short);
  let exeGlobs: PathGlob[];
  let requireGlobs: PathGlob[];
  try {
    exeGlobs = (m.detect?.exe_glob ?? []).map((g) => new PathGlob(g));
    requireGlobs = (m.detect?.require?.exe_glob ?? []).map((g) => new PathGlob(g));
  } catch (e) {
    throw new Error(`detect.exe_glob: ${e instanceof Error ? e.message : String(e)}`);
  }
  let rules: CompiledRules;
  try {
    rules = compileRules(raw);
  } catch (e) {
    throw new Error(e instanceof Error ? e.message : String(e));
  }
  const names = [...new Set([m.id, ...m.aliases, ...(m.detect?.comm ?? []), ...(m.detect?.argv0 ?? [])])];
  return { ...m, origin, replacesBundled: false, file, exeGlobs, requireGlobs, names, rules };
}

function readDir(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.toml'))
      .sort()
      .map((f) => join(dir, f));
  } catch {
    return [];
  }
}

export interface ManifestSet {
  /** Lookup order: user manifests first (they win), then bundled ones, each sorted by id. */
  list: Manifest[];
  byId: Map<string, Manifest>;
  failures: LoadFailure[];
}

export function loadManifests(bundledDir: string, userDir: string | null, log: Logger): ManifestSet {
  const failures: LoadFailure[] = [];
  const load = (file: string, origin: 'bundled' | string): Manifest | null => {
    try {
      if (statSync(file).size > MAX_MANIFEST_BYTES) throw new Error(`larger than ${MAX_MANIFEST_BYTES} bytes`);
      return compileManifest(readFileSync(file, 'utf8'), file, origin);
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      failures.push({ file, reason });
      log.warn('manifest dropped', { file, reason });
      return null;
    }
  };
  const bundled = new Map<string, Manifest>();
  for (const f of readDir(bundledDir)) {
    const m = load(f, 'bundled');
    if (!m) continue;
    if (bundled.has(m.id)) {
      failures.push({ file: f, reason: `id ${m.id} is used by another bundled manifest` });
      continue;
    }
    bundled.set(m.id, m);
  }
  const user = new Map<string, Manifest>();
  for (const f of userDir ? readDir(userDir) : []) {
    const m = load(f, f);
    if (!m) continue;
    if (user.has(m.id)) {
      failures.push({ file: f, reason: `id ${m.id} is used by another manifest in ${userDir}` });
      continue;
    }
    m.replacesBundled = bundled.has(m.id);
    user.set(m.id, m);
  }
  const list = [...[...user.values()].sort((a, b) => a.id.localeCompare(b.id)), ...[...bundled.values()].filter((m) => !user.has(m.id)).sort((a, b) => a.id.localeCompare(b.id))];
  return { list, byId: new Map(list.map((m) => [m.id, m])), failures };
}

/** A harness by id, alias or program name (claude is claude-code). */
export function findHarness(set: ManifestSet, name: string): Manifest | undefined {
  return set.byId.get(name) ?? set.list.find((m) => m.names.includes(name));
}
