// The tuios program itself: bin/tuios.cjs, one folder up from this file in the source tree and from
// the bundles in dist/ alike (both sit one folder below the package root), so the path is right
// whether the daemon runs from source (tests) or from its bundle.
import { fileURLToPath } from 'node:url';

export const TUIOS_BIN = fileURLToPath(new URL('../bin/tuios.cjs', import.meta.url));
