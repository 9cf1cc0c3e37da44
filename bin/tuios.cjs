#!/usr/bin/env node
'use strict';
// The `tuios` command. Everything lives in the bundle; this file only loads it.
try {
  require('../dist/cli.cjs');
} catch (e) {
  if (e && e.code === 'MODULE_NOT_FOUND' && String(e.message).includes('cli.cjs')) {
    process.stderr.write('tuios: dist/cli.cjs is missing; run npm install or npm run build\n');
    process.exit(1);
  }
  throw e;
}
