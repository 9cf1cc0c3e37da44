// Running git safely from the daemon (spec: Reviewing an agent's changes, "Programs the repository
// names"). Every call:
// - is an argv, never a shell string;
// - runs no hooks (core.hooksPath=/dev/null), and no program that only the repository's own config
//   names: each filter, textconv, diff or merge driver, fsmonitor, editor, pager, askpass and gpg
//   program set in the repository's config (local or worktree scope) is overridden on the command
//   line with the value the global or system config gives it, or with nothing, so a filter your
//   global config names (Git LFS's) still runs and one a cloned repository names does not;
// - is bounded in time (its whole process group is killed at the deadline) and in output;
// - runs as an async child process, never on the daemon's event path.
import { spawn } from 'node:child_process';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { TuiosError } from '../errors.js';
import { GIT_MAX_OUTPUT_BYTES, GIT_MAX_STDERR_BYTES, GIT_SAFETY_CACHE_ENTRIES, GIT_SAFETY_CACHE_MS, GIT_TIMEOUT_MS } from '../limits.js';

export interface GitOptions {
  /** The folder git runs in (a worktree, or a git dir for plumbing). */
  cwd: string;
  /** Extra environment for this call (GIT_INDEX_FILE, an identity for commit-tree). */
  env?: Record<string, string>;
  /** Bytes for stdin, or a stream piped into it. */
  input?: string | Buffer | Readable;
  /** Stream stdout here (with backpressure) instead of collecting it. Not ended by the runner. */
  stdout?: Writable;
  timeoutMs?: number;
  /** Collected stdout past this fails the call with git_failed, unless `cut` is set. */
  maxOutputBytes?: number;
  /** Past maxOutputBytes, stop reading, end git and answer what was read (`truncated`). */
  cut?: boolean;
  signal?: AbortSignal;
  /** Exit codes that are an answer, not a failure (e.g. 1 for `diff --quiet`). */
  okCodes?: number[];
  /** Skip the repository's neutralising config (for calls before there is a repository). */
  noRepo?: boolean;
  /**
   * The person's own git (spec: Shipping a worktree, "Your identity"): their hooks, signing and the
   * programs their config names run, as in their shell. Never for a call from inside a pane.
   */
  asPerson?: boolean;
  /** Told git's pid (its process group) once it runs: a journal records it to end it after a crash. */
  onSpawn?: (pid: number) => void;
}

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
  truncated: boolean;
}

/** Variables that would point git somewhere else, or carry config past our command line. */
const DROPPED_ENV = /^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|COMMON_DIR|NAMESPACE|CONFIG|CONFIG_PARAMETERS|CONFIG_COUNT|CONFIG_KEY_\d+|CONFIG_VALUE_\d+|PREFIX|EXEC_PATH|EXTERNAL_DIFF|DIFF_OPTS|SSH|SSH_COMMAND|ASKPASS|EDITOR|SEQUENCE_EDITOR|PAGER|TRACE\w*|QUARANTINE_PATH|REPLACE_REF_BASE|SHALLOW_FILE|GRAFT_FILE|LITERAL_PATHSPECS|GLOB_PATHSPECS|NOGLOB_PATHSPECS|ICASE_PATHSPECS)$/;

let baseEnvCache: Record<string, string> | null = null;

/**
 * glibc hands freed heap back to the kernel once 128 KB are free at its top, and pack-objects
 * frees and grows its heap all the time: each hand-back is an munmap, a TLB flush on every core
 * its threads ran on. On the worktree bench's history pack that was 0.83 of its 1.97 CPU-s (1.77 s);
 * with a 256 MB threshold, 0.24 of 1.18 (0.95 s). A git we run is short-lived and keeps what it
 * freed until it exits. Added to the user's own tunables; a trim threshold they set wins.
 */
const MALLOC_TUNABLE = 'glibc.malloc.trim_threshold=268435456';

export function gitTunables(own: string | undefined): string {
  if (!own) return MALLOC_TUNABLE;
  return /(^|:)glibc\.malloc\.trim_threshold=/.test(own) ? own : `${own}:${MALLOC_TUNABLE}`;
}

/** The daemon's environment, cleaned for git. */
function gitEnv(extra: Record<string, string> | undefined): Record<string, string> {
  if (!baseEnvCache) {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !DROPPED_ENV.test(k)) env[k] = v;
    Object.assign(env, {
      GIT_TERMINAL_PROMPT: '0',
      GIT_PAGER: 'cat',
      PAGER: 'cat',
      GIT_EDITOR: 'true',
      GIT_ASKPASS: '',
      SSH_ASKPASS: '',
      // No opportunistic index refresh on reads: status never writes an agent's index.
      GIT_OPTIONAL_LOCKS: '0',
      // Paths are paths, never globs or magic.
      GIT_LITERAL_PATHSPECS: '1',
      LC_ALL: 'C',
      LANGUAGE: 'C',
      GLIBC_TUNABLES: gitTunables(process.env.GLIBC_TUNABLES),
    });
    baseEnvCache = env;
  }
  return extra ? { ...baseEnvCache, ...extra } : baseEnvCache;
}

/** Always on the command line: no hooks, no fsmonitor daemon, no pager, no editor. */
const ALWAYS = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'core.pager=cat', '-c', 'core.editor=true', '-c', 'sequence.editor=true', '--no-pager'];

/**
 * Config keys that name a program git would run. Names as `git config` prints them: section and
 * key lower case, the subsection as written.
 */
const PROGRAM_KEY = /^(filter\..+\.(clean|smudge|process|required)|diff\..+\.(textconv|command)|diff\.external|merge\..+\.driver|core\.(sshcommand|askpass|gitproxy|alternaterefscommand)|gpg\.program|gpg\..+\.program|credential\.helper|credential\..+\.helper|uploadpack\.packobjectshook|protocol\.ext\.allow|remote\..+\.(uploadpack|receivepack)|receive\.procreceiverefs)$/;

/** What each key falls back to when the global and system config say nothing. */
function neutralValue(key: string): string {
  if (key.endsWith('.required')) return 'false';
  if (key === 'protocol.ext.allow') return 'never';
  return '';
}

interface ConfigEntry {
  scope: string;
  key: string;
  value: string;
}

function parseConfigZ(out: string): ConfigEntry[] {
  // `--show-scope -z --get-regexp`: scope NUL key LF value NUL (value absent for a bare key).
  const parts = out.split('\0');
  const res: ConfigEntry[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const scope = parts[i]!;
    const kv = parts[i + 1]!;
    const nl = kv.indexOf('\n');
    res.push({ scope, key: nl < 0 ? kv : kv.slice(0, nl), value: nl < 0 ? 'true' : kv.slice(nl + 1) });
  }
  return res;
}

/** The `-c` pairs that undo every program the repository's own config names (pure, for tests). */
export function neutralisingArgs(entries: ConfigEntry[]): string[] {
  const trusted = new Map<string, string[]>();
  const repoKeys = new Set<string>();
  for (const e of entries) {
    if (!PROGRAM_KEY.test(e.key)) continue;
    if (e.scope === 'system' || e.scope === 'global') {
      const list = trusted.get(e.key) ?? [];
      list.push(e.value);
      trusted.set(e.key, list);
    } else repoKeys.add(e.key);
  }
  const args: string[] = [];
  for (const key of [...repoKeys].sort()) {
    const mine = trusted.get(key);
    if (key.endsWith('.helper')) {
      // A list: an empty value resets it, then the trusted helpers come back in order.
      args.push('-c', `${key}=`);
      for (const v of mine ?? []) args.push('-c', `${key}=${v}`);
    } else args.push('-c', `${key}=${mine ? mine[mine.length - 1]! : neutralValue(key)}`);
  }
  return args;
}

const safetyCache = new Map<string, { at: number; args: string[] }>();

/** The neutralising `-c` pairs for the repository holding `cwd` (cached briefly). */
export async function safetyArgs(cwd: string, signal?: AbortSignal): Promise<string[]> {
  const hit = safetyCache.get(cwd);
  if (hit && Date.now() - hit.at < GIT_SAFETY_CACHE_MS) return hit.args;
  // Reading config runs no program; --includes follows the repository's include.path too.
  const r = await spawnGit([...ALWAYS, 'config', '--show-scope', '--includes', '-z', '--get-regexp', '^(filter|diff|merge|core|gpg|credential|uploadpack|protocol|remote|receive)\\.'], { cwd, signal, okCodes: [0, 1], timeoutMs: GIT_TIMEOUT_MS });
  const args = neutralisingArgs(parseConfigZ(r.stdout.toString('utf8')));
  if (safetyCache.size >= GIT_SAFETY_CACHE_ENTRIES) safetyCache.delete(safetyCache.keys().next().value!);
  safetyCache.set(cwd, { at: Date.now(), args });
  return args;
}

/** Forgets what was read about a repository's config (after tuios changed the repository). */
export function forgetSafety(cwd?: string): void {
  if (cwd === undefined) safetyCache.clear();
  else safetyCache.delete(cwd);
}

/** Runs git with the repository's programs neutralised. Rejects with git_failed (or timeout). */
export async function git(args: string[], opts: GitOptions): Promise<GitResult> {
  if (opts.asPerson) return spawnGit(['--no-pager', '-c', 'core.pager=cat', ...args], opts);
  const safety = opts.noRepo ? [] : await safetyArgs(opts.cwd, opts.signal);
  return spawnGit([...ALWAYS, ...safety, ...args], opts);
}

/**
 * Starts git now and gives it its input later (`end(text)`): its start-up and its reading of the
 * repository overlap what the caller still waits for. `end` must be called on every path; ending
 * with nothing gives git no input.
 */
export function gitFed(args: string[], opts: Omit<GitOptions, 'input'>): { end(text?: string): void; result: Promise<GitResult> } {
  const input = new PassThrough();
  const result = git(args, { ...opts, input });
  let ended = false;
  return {
    end(text = '') {
      if (ended) return;
      ended = true;
      input.end(text);
    },
    result,
  };
}

/** git's stdout as trimmed text. */
export async function gitText(args: string[], opts: GitOptions): Promise<string> {
  return (await git(args, opts)).stdout.toString('utf8').replace(/\n$/, '');
}

function spawnGit(argv: string[], opts: GitOptions): Promise<GitResult> {
  const timeoutMs = opts.timeoutMs ?? GIT_TIMEOUT_MS;
  const max = opts.maxOutputBytes ?? GIT_MAX_OUTPUT_BYTES;
  const okCodes = opts.okCodes ?? [0];
  const sub = argv.find((a, i) => !a.startsWith('-') && argv[i - 1] !== '-c') ?? 'git';
  return new Promise<GitResult>((resolve, reject) => {
    if (opts.signal?.aborted) {
      reject(new TuiosError('timeout', `git ${sub} was not started: the call was cancelled.`));
      return;
    }
    // Its own process group, so a deadline ends git and every helper it started.
    const child = spawn('git', argv, { cwd: opts.cwd, env: gitEnv(opts.env), stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    if (child.pid) opts.onSpawn?.(child.pid);
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let truncated = false;
    let failure: TuiosError | null = null;
    let settled = false;
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const timer = setTimeout(() => {
      failure = new TuiosError('timeout', `git ${sub} ran past ${Math.round(timeoutMs / 1000)} s and was stopped.`, 'The repository may be very large, on a slow disk, or locked by another git.');
      killGroup();
    }, timeoutMs);
    const onAbort = () => {
      failure = new TuiosError('timeout', `git ${sub} was stopped: the call was cancelled.`);
      killGroup();
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });

    child.on('error', (e) => {
      failure = new TuiosError('git_failed', `git could not be started: ${e.message}.`, 'Install git and put it on the daemon\'s PATH.');
    });
    if (opts.stdout) {
      const out = opts.stdout;
      child.stdout.on('data', (d: Buffer) => {
        if (!out.write(d)) {
          child.stdout.pause();
          out.once('drain', () => child.stdout.resume());
        }
      });
      out.once('error', (e) => {
        failure = new TuiosError('git_failed', `git ${sub}: the output stream failed: ${e.message}.`);
        killGroup();
      });
    } else {
      child.stdout.on('data', (d: Buffer) => {
        if (truncated) return;
        if (size + d.length > max) {
          if (opts.cut) {
            chunks.push(d.subarray(0, max - size));
            size = max;
            truncated = true;
            killGroup();
            return;
          }
          failure = new TuiosError('git_failed', `git ${sub} printed more than ${Math.round(max / 1024 / 1024)} MB.`);
          killGroup();
          return;
        }
        chunks.push(d);
        size += d.length;
      });
    }
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < GIT_MAX_STDERR_BYTES) stderr += d.toString('utf8').slice(0, GIT_MAX_STDERR_BYTES - stderr.length);
    });
    child.stdin.on('error', () => {
      // git may exit before reading all its input (a failure it reports itself).
    });
    if (opts.input === undefined) child.stdin.end();
    else if (typeof opts.input === 'string' || Buffer.isBuffer(opts.input)) child.stdin.end(opts.input);
    else {
      const input = opts.input;
      input.once('error', (e) => {
        failure = new TuiosError('git_failed', `git ${sub}: its input failed: ${e.message}.`);
        killGroup();
      });
      // An input that failed before git started has told its error already: git gets no end of
      // its input, so it is stopped here.
      if (input.errored) {
        failure = new TuiosError('git_failed', `git ${sub}: its input failed before it started.`);
        killGroup();
      }
      input.pipe(child.stdin);
    }

    const startedAt = Date.now();
    child.on('close', (code, signal) => {
      // TUIOS_GIT_PROFILE=1: each call's wall time on stderr, for finding where a slow verb waits.
      if (process.env.TUIOS_GIT_PROFILE) process.stderr.write(`git ${sub} ${Date.now() - startedAt} ms\n`);
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      if (settled) return;
      settled = true;
      const result: GitResult = { code: code ?? -1, stdout: Buffer.concat(chunks, size), stderr, truncated };
      if (truncated) return resolve(result);
      if (failure) return reject(failure);
      if (code === null || !okCodes.includes(code)) {
        const why = stderr.trim().split('\n').slice(-3).join(' ').slice(0, 500) || (signal ? `killed by ${signal}` : `exit ${code}`);
        return reject(new TuiosError('git_failed', `git ${sub} failed: ${why}`, undefined, { exit_code: code, stderr: stderr.slice(0, 4000) }));
      }
      resolve(result);
    });
  });
}
