// Builds the CLI and the daemon with esbuild. The CLI bundle carries only what a verb call needs
// (argv parsing, the socket client, printing) so `tuios VERB` starts in tens of milliseconds; the
// daemon bundle carries everything else. Native and dynamically-loading packages stay external.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync, chmodSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
mkdirSync(dist, { recursive: true });

const external = [
  'node-pty',
  're2',
  'ssh2',
  'cpu-features',
  'terminal-kit',
  '@xterm/headless',
  '@xterm/addon-serialize',
  'avsc',
  'pidusage',
  'tuios-peercred',
  'tuios-fd',
  'sharp',
];

// Bundled CommonJS code calls require(); give the ESM bundle a real one.
const banner = {
  js: "import { createRequire as __tuiosCreateRequire } from 'node:module'; const require = __tuiosCreateRequire(import.meta.url);",
};

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const common = {
  define: { __TUIOS_VERSION__: JSON.stringify(pkg.version) },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: 'linked',
  external,
  banner,
  logLevel: 'warning',
  legalComments: 'none',
};

await Promise.all([
  // CommonJS loads a few ms faster than ESM, which every hook call pays.
  build({
    ...common,
    format: 'cjs',
    banner: { js: "const __tuiosUrl = require('node:url').pathToFileURL(__filename).href;" },
    define: { ...common.define, 'import.meta.url': '__tuiosUrl' },
    entryPoints: [join(root, 'core/cli/main.ts')],
    outfile: join(dist, 'cli.cjs'),
  }),
  // `tuios agent-statusline`: Claude Code runs it on every status line refresh, so it starts from
  // a bundle of its own (bin/tuios.cjs loads it for that command alone).
  build({
    ...common,
    format: 'cjs',
    banner: {},
    entryPoints: [join(root, 'core/cli/statusline-main.ts')],
    outfile: join(dist, 'statusline.cjs'),
  }),
  build({ ...common, entryPoints: [join(root, 'app/daemon.ts')], outfile: join(dist, 'daemon.js') }),
  // `tuios mcp`: the MCP SDK and the verb records, loaded by the CLI only for that command.
  build({ ...common, entryPoints: [join(root, 'core/cli/mcp.ts')], outfile: join(dist, 'mcp.js') }),
  // `tuios agent-proto`: a protocol pane's process and the ACP SDK, loaded by the CLI for it alone.
  build({ ...common, entryPoints: [join(root, 'proto/main.ts')], outfile: join(dist, 'agent-proto.js') }),
  // herdr's command line, loaded by the CLI only when it runs under the name `herdr`.
  build({ ...common, entryPoints: [join(root, 'herdr/cli.ts')], outfile: join(dist, 'herdr-cli.js') }),
  // The PTY reader thread runs from its own file (core/pty/pty-reader.ts starts it).
  build({ ...common, format: 'cjs', banner: {}, entryPoints: [join(root, 'core/pty/pty-reader.worker.ts')], outfile: join(dist, 'pty-reader.cjs') }),
  build({ ...common, entryPoints: [join(root, 'scripts/gen-verbs.ts')], outfile: join(dist, 'gen-verbs.js') }),
]);

// The CLI reads verb flags from a table generated from the one zod schema per verb.
const table = execFileSync(process.execPath, [join(dist, 'gen-verbs.js')], { encoding: 'utf8' });
writeFileSync(join(dist, 'verbs.json'), table);

try {
  chmodSync(join(root, 'bin/tuios.cjs'), 0o755);
} catch {
  // bin is committed executable; a checkout that lost the bit still runs through `node`.
}
