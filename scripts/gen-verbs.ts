// Prints the CLI's verb table (JSON), generated from the verbs' own schemas at build time.
import { allVerbs } from '../core/verbs/index.js';
import { extensions } from '../app/extensions.js';
import { verbTableRow } from '../core/rpc/describe.js';

const table = [...allVerbs, ...extensions().flatMap((e) => e.verbs ?? [])].map(verbTableRow);
process.stdout.write(JSON.stringify(table));
