// `tuios --skill [TOPIC]`: the short text an agent in a pane reads to drive tuios, and the topics
// it names. The texts are skills/*.md in the package, read at run time beside the bundle, so they
// match the build and cost the CLI bundle nothing. core.md is what `tuios --skill` prints.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { out, err } from './out.js';

const CORE = 'core';
const TOPIC_NAME = /^[a-z][a-z0-9-]{0,31}$/;

/** The package's skills folder: beside dist/ in a build (dist/cli.cjs), two up from core/cli/ in source. Never a folder outside the package. */
export function skillDir(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  return fileURLToPath(new URL(here.endsWith('/core/cli/') ? '../../skills/' : '../skills/', import.meta.url));
}

/** Every topic `tuios --skill TOPIC` takes, in order (core.md is not one). */
export function skillTopics(dir = skillDir()): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.md'))
    .map((f) => f.slice(0, -3))
    .filter((t) => t !== CORE && TOPIC_NAME.test(t))
    .sort();
}

/** The text of a topic, or of the core when topic is undefined; null for a topic there is not. */
export function skillText(topic: string | undefined, dir = skillDir()): string | null {
  const name = topic ?? CORE;
  if (topic !== undefined && (!TOPIC_NAME.test(topic) || !skillTopics(dir).includes(topic))) return null;
  return readFileSync(dir + name + '.md', 'utf8');
}

const USAGE = 'usage: tuios --skill [TOPIC]';

export function skillCommand(args: string[], dir = skillDir()): number {
  let topics: string[];
  try {
    topics = skillTopics(dir);
  } catch (e) {
    err(`tuios --skill: the skill texts are missing from this install (${dir}: ${(e as NodeJS.ErrnoException).code ?? String(e)})\n`);
    return 1;
  }
  if (args[0] === '-h' || args[0] === '--help') {
    out(`${USAGE}\n  without TOPIC: the core; topics: ${topics.join(', ')}\n`);
    return 0;
  }
  if (args.length > 1) {
    err(`tuios --skill: one topic at most\n${USAGE}\n`);
    return 2;
  }
  const text = skillText(args[0], dir);
  if (text === null) {
    err(`tuios --skill: no topic ${JSON.stringify(args[0])}; topics: ${topics.join(', ')}\n${USAGE}\n`);
    return 2;
  }
  out(text.endsWith('\n') ? text : text + '\n');
  return 0;
}
