#!/usr/bin/env node
// The `tuios` command. Everything lives in the bundle; this file only loads it.
import('../dist/cli.js').catch((e) => {
  process.stderr.write(`tuios: cannot load dist/cli.js (${e && e.message}); run npm install or npm run build\n`);
  process.exit(1);
});
