// A stand-in agent for the worktree and fan e2e tests: a harness manifest (`standin`) and a small
// script on the daemon's PATH that reads one prompt per line and writes each to prompt-N.txt in its
// folder. It reports nothing at start, so a test makes it ready with `tuios set-agent-state idle`
// (or the script's OSC 7501 after a prompt), and tuios must wait for that before typing.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon } from './daemon.js';
import { tempDir } from './worktree-repos.js';

export const STANDIN_SCRIPT = `#!/bin/sh
# tuios test stand-in agent: one file per prompt.
n=0
while IFS= read -r line; do
  n=$((n+1))
  printf '%s\\n' "$line" > "prompt-$n.txt"
  printf '\\033]7501;state=done;message=wrote%%20prompt-%s.txt\\007' "$n"
done
`;

export const STANDIN_MANIFEST = `# A stand-in agent for tests: the program is a shell script named standin.
id = "standin"
name = "Stand-in agent"
source = "test/helpers/worktree-standin.ts"

[detect]
comm = ["standin"]
argv0 = ["standin"]
`;

/** Writes the stand-in under `tools` (bin/standin, harnesses/standin.toml); the env a daemon needs to run and know it. */
export function installStandin(tools: string): Record<string, string> {
  const bin = join(tools, 'bin');
  const harnesses = join(tools, 'harnesses');
  mkdirSync(bin, { recursive: true });
  mkdirSync(harnesses, { recursive: true });
  writeFileSync(join(bin, 'standin'), STANDIN_SCRIPT);
  chmodSync(join(bin, 'standin'), 0o755);
  writeFileSync(join(harnesses, 'standin.toml'), STANDIN_MANIFEST);
  return { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, TUIOS_HARNESS_DIR: harnesses, TUIOS_AGENT_STALL_SECONDS: '0' };
}

/** A daemon whose PATH and harness folder carry the stand-in. */
export async function daemonWithStandin(env: Record<string, string> = {}): Promise<{ d: TestDaemon; tools: string }> {
  const tools = tempDir('tuios-standin-');
  const standinEnv = installStandin(tools);
  const bin = join(tools, 'bin');
  const harnesses = join(tools, 'harnesses');
  // One that never takes a prompt: no echo, no output, nothing read.
  writeFileSync(join(bin, 'sleepy-agent'), '#!/bin/sh\nstty -echo\nexec sleep 600\n');
  chmodSync(join(bin, 'sleepy-agent'), 0o755);
  writeFileSync(join(harnesses, 'sleepy.toml'), 'id = "sleepy"\nname = "Sleepy"\n[detect]\ncomm = ["sleepy-agent"]\nargv0 = ["sleepy-agent"]\n');
  const d = await TestDaemon.start({ env: { ...standinEnv, ...env } });
  return { d, tools };
}
