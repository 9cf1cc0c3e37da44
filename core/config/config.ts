// config.toml, read with smol-toml and validated against the schema, then watched. A file that
// does not parse or validate keeps the last good config, and the daemon logs why.
import { readFileSync, statSync, watch, type FSWatcher, mkdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { configSchema, defaultConfig, unknownKeys, type Config } from './schema.js';
import type { Logger } from '../log.js';
import { MAX_CONFIG_BYTES } from '../limits.js';
import { policyWarnings } from '../alerts/policy.js';
import { glyphWarnings } from './glyphs.js';
import { lineOfKey, parseErrorText, parseErrorWhere } from './toml-where.js';

export interface LoadResult {
  config: Config | null;
  /** The file's TOML as parsed (keys it leaves out are absent), beside a config. */
  raw?: Record<string, unknown>;
  warnings: string[];
  error: string | null;
}

/** Pure: text in, a config (or the reason there is none) out. */
export function parseConfig(text: string): LoadResult {
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (e) {
    return { config: null, warnings: [], error: `config.toml does not parse${parseErrorWhere(e)}: ${parseErrorText(e)}` };
  }
  const warnings = unknownKeys(configSchema, raw).map((k) => `config.toml: unknown key "${k}" is ignored`);
  const r = configSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0]!;
    const line = lineOfKey(text, i.path as Array<string | number>);
    return { config: null, warnings, error: `config.toml${line ? ` line ${line}` : ''}: ${i.path.join('.') || '(top)'}: ${i.message}` };
  }
  warnings.push(...policyWarnings(r.data.notifications));
  warnings.push(...glyphWarnings(r.data.appearance));
  return { config: r.data, raw: raw as Record<string, unknown>, warnings, error: null };
}

export class ConfigStore {
  current: Config = defaultConfig();
  /** The TOML of the config in force, as its file said it (get-config tells a key left out). */
  currentRaw: Record<string, unknown> = {};
  warnings: string[] = [];
  lastError: string | null = null;
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly listeners = new Set<(c: Config, prev: Config) => void>();

  constructor(
    readonly file: string,
    private readonly log: Logger,
  ) {}

  /** Reads the file; a missing file is the defaults. Returns what happened, for callers that report it. */
  load(): LoadResult {
    let text: string;
    try {
      const st = statSync(this.file);
      if (st.size > MAX_CONFIG_BYTES) {
        return this.fail(`config.toml is larger than ${MAX_CONFIG_BYTES} bytes and was not read`);
      }
      text = readFileSync(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        return this.apply({ config: defaultConfig(), raw: {}, warnings: [], error: null });
      }
      return this.fail(`config.toml cannot be read: ${(e as Error).message}`);
    }
    return this.apply(parseConfig(text));
  }

  onChange(fn: (c: Config, prev: Config) => void): { dispose(): void } {
    this.listeners.add(fn);
    return { dispose: () => this.listeners.delete(fn) };
  }

  /** Watches the folder (the file may not exist yet, and editors replace it by rename). */
  watch(): void {
    const dir = dirname(this.file);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      this.watcher = watch(dir, (_ev, name) => {
        if (name && name !== basename(this.file)) return;
        if (this.timer) clearTimeout(this.timer);
        this.timer = setTimeout(() => this.load(), 150);
      });
      this.watcher.on('error', () => {});
    } catch (e) {
      this.log.warn('config folder cannot be watched', { error: String(e) });
    }
  }

  dispose(): void {
    this.watcher?.close();
    if (this.timer) clearTimeout(this.timer);
    this.listeners.clear();
  }

  private fail(error: string): LoadResult {
    return this.apply({ config: null, warnings: [], error });
  }

  private apply(r: LoadResult): LoadResult {
    for (const w of r.warnings) this.log.warn(w);
    this.warnings = r.warnings;
    if (!r.config) {
      this.lastError = r.error;
      this.log.warn('config not applied; keeping the last good config', { file: this.file, reason: r.error });
      return r;
    }
    this.lastError = null;
    const prev = this.current;
    this.current = r.config;
    this.currentRaw = r.raw ?? {};
    for (const fn of this.listeners) {
      try {
        fn(r.config, prev);
      } catch (e) {
        this.log.error('config listener threw', { error: String(e) });
      }
    }
    return r;
  }
}
