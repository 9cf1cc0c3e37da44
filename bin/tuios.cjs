#!/usr/bin/env node
'use strict';
// The `tuios` command. Everything lives in the bundle; this file only loads it.
try {
  // Claude Code's status line command runs on every refresh: its own small bundle.
  require(process.argv[2] === 'agent-statusline' ? '../dist/statusline.cjs' : '../dist/cli.cjs');
} catch (e) {
  if (e && e.code === 'MODULE_NOT_FOUND' && /(cli|statusline)\.cjs/.test(String(e.message))) {
    process.stderr.write('tuios: dist/cli.cjs or dist/statusline.cjs is missing; run npm install or npm run build\n');
    process.exit(1);
  }
  throw e;
}
