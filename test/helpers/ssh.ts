// The real OpenSSH client against a test daemon's SSH server: keys made with ssh-keygen in the
// test's folder, a known_hosts line pinned to the daemon's host key under one alias (so a
// restart on another port still checks the same key), and nothing read from the user's ~/.ssh.
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import type { TestDaemon, CliResult } from './daemon.js';

const { Client } = ssh2;

/** The alias every known_hosts line and every connection uses. */
export const HOST_ALIAS = 'tuios-test-box';

export interface SshKey {
  file: string;
  pub: string;
  fingerprint: string;
}

export function hasSsh(): boolean {
  try {
    execFileSync('ssh', ['-V'], { stdio: 'ignore' });
    execFileSync('ssh-keygen', ['-?'], { stdio: 'ignore' });
    return true;
  } catch (e) {
    // ssh-keygen -? exits 1 after printing its usage: it is there.
    return (e as { status?: number }).status === 1;
  }
}

export function makeKey(dir: string, name: string, type: 'ed25519' | 'ecdsa' | 'rsa' = 'ed25519'): SshKey {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, name);
  if (!existsSync(file)) execFileSync('ssh-keygen', ['-q', '-t', type, ...(type === 'rsa' ? ['-b', '2048'] : []), '-N', '', '-C', `${name}@test`, '-f', file]);
  const pub = readFileSync(`${file}.pub`, 'utf8').trim();
  const fingerprint = execFileSync('ssh-keygen', ['-lf', `${file}.pub`], { encoding: 'utf8' }).split(' ')[1]!;
  return { file, pub, fingerprint };
}

/** The daemon's own authorized_keys file ($XDG_CONFIG_HOME/tuios/authorized_keys). */
export function authorizedKeysFile(d: TestDaemon): string {
  return join(d.dir, 'config', 'tuios', 'authorized_keys');
}

export function authorize(d: TestDaemon, line: string): void {
  const f = authorizedKeysFile(d);
  appendFileSync(f, line + '\n');
  chmodSync(f, 0o600);
}

export async function sshPort(d: TestDaemon): Promise<number> {
  const info = await d.call<{ endpoints: { ssh?: { port: number } } }>('server-info');
  if (!info.endpoints.ssh) throw new Error('the daemon runs no SSH server');
  return info.endpoints.ssh.port;
}

/** known_hosts with the daemon's host key under HOST_ALIAS. */
export function pinHostKey(d: TestDaemon, file = join(d.dir, 'known_hosts')): string {
  const pub = readFileSync(join(d.dir, 'state', 'tuios', 'ssh_host_ed25519_key.pub'), 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
  writeFileSync(file, `${HOST_ALIAS} ${pub}\n`);
  return file;
}

/** Options for `ssh`: this key only, no agent, no config, the pinned host key, never a prompt. */
export function sshOptions(d: TestDaemon, port: number, key: SshKey | null): string[] {
  const known = join(d.dir, 'known_hosts');
  if (!existsSync(known)) pinHostKey(d, known);
  return [
    '-F', '/dev/null',
    '-p', String(port),
    ...(key ? ['-i', key.file] : []),
    '-o', 'IdentitiesOnly=yes',
    '-o', 'IdentityAgent=none',
    '-o', 'BatchMode=yes',
    '-o', `UserKnownHostsFile=${known}`,
    '-o', 'GlobalKnownHostsFile=/dev/null',
    '-o', 'StrictHostKeyChecking=yes',
    '-o', `HostKeyAlias=${HOST_ALIAS}`,
    '-o', 'LogLevel=ERROR',
    '-o', 'ConnectTimeout=20',
  ];
}

/** The same options as one shell line, for a command typed into tmux or a pane. */
export function sshCommandLine(d: TestDaemon, port: number, key: SshKey | null, extra: string[] = [], remote: string[] = []): string {
  return ['ssh', ...sshOptions(d, port, key), ...extra, '127.0.0.1', ...remote].map(shq).join(' ');
}

function shq(w: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/** Runs ssh to completion (no tty) and returns its exit code and output. */
export function runSsh(d: TestDaemon, port: number, key: SshKey | null, extra: string[], remote: string[] = [], timeoutMs = 30_000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const p = spawn('ssh', [...sshOptions(d, port, key), ...extra, '127.0.0.1', ...remote], { env: { ...d.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (b) => (stdout += b));
    p.stderr.on('data', (b) => (stderr += b));
    const t = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`ssh ${remote.join(' ')} ran past ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    p.on('close', (code) => {
      clearTimeout(t);
      resolve({ code: code ?? -1, stdout, stderr });
    });
    p.stdin.end();
  });
}

/** The daemon log's lines, parsed. */
export function logLines(d: TestDaemon): Array<Record<string, unknown>> {
  const f = join(d.dir, 'state', 'tuios', 'daemon.log');
  if (!existsSync(f)) return [];
  return readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** An ssh2 client, for what OpenSSH will not send (a password to a publickey-only server). */
export function ssh2Connect(port: number, cfg: Record<string, unknown>): Promise<InstanceType<typeof Client>> {
  return new Promise((resolve, reject) => {
    const c = new Client();
    c.once('ready', () => resolve(c));
    c.once('error', reject);
    c.connect({ host: '127.0.0.1', port, username: 'tester', readyTimeout: 20_000, hostVerifier: () => true, ...cfg });
  });
}
