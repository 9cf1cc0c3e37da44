// A pass-through in front of `codex app-server`, for timing what agent-proto does with Codex's
// messages: `node codex-tee.mjs LOG CODEX [args...]` runs CODEX with the args, passes stdin and
// stdout through unchanged, and appends to LOG one JSON line per turn/completed it forwards:
// { turnId, emittedAtMs (Codex's own stamp), forwardedAt (Date.now() as it is written on) }.
// Plain Node, no imports from the project: it runs as the pane's agent command.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const [log, cmd, ...args] = process.argv.slice(2);
const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdin.on('error', () => {});
let partial = '';
child.stdout.on('data', (chunk) => {
  // Stamped before the bytes go on: stamped after, a tee put off the core between the two could
  // stamp a time later than the daemon's done event it caused.
  const at = Date.now();
  process.stdout.write(chunk);
  partial += chunk.toString('utf8');
  let nl;
  while ((nl = partial.indexOf('\n')) >= 0) {
    const line = partial.slice(0, nl);
    partial = partial.slice(nl + 1);
    if (!line.includes('"turn/completed"')) continue;
    try {
      const m = JSON.parse(line);
      if (m.method === 'turn/completed') appendFileSync(log, `${JSON.stringify({ turnId: m.params?.turn?.id, status: m.params?.turn?.status, emittedAtMs: m.emittedAtMs, forwardedAt: at })}\n`);
    } catch {
      // not ours to judge
    }
  }
});
child.on('exit', (code, sig) => process.exit(sig ? 1 : (code ?? 1)));
for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(s, () => child.kill(s));
