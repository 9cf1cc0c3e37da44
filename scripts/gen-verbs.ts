// Prints the CLI's verb table (JSON), generated from the verbs' own schemas at build time.
import { allVerbs } from '../core/verbs/index.js';
import { extensions } from '../app/extensions.js';
import { describeVerb } from '../core/rpc/describe.js';

const table = [...allVerbs, ...extensions().flatMap((e) => e.verbs ?? [])].map((v) => {
  const d = describeVerb(v);
  return { name: d.name, summary: d.summary, help: d.help, stream: d.stream, params: d.params, cli: d.cli };
});
process.stdout.write(JSON.stringify(table));
