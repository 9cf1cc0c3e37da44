// A verb described as data, from its one schema: what list-verbs answers and what the CLI's flag
// table is generated from at build time.
import { z } from 'zod';
import { fullSchema, type VerbInfo, type CliSpec } from './verb-info.js';

export interface ParamDescription {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'string[]' | 'record' | 'object';
  required: boolean;
  description?: string;
  enum?: string[];
  default?: unknown;
}

export interface VerbDescription {
  name: string;
  summary: string;
  help?: string;
  target: VerbInfo['target'];
  mutates: boolean;
  stream: boolean;
  params: ParamDescription[];
  /** The JSON schema of the params, for tools (MCP) that want it whole. */
  schema: unknown;
  cli: CliSpec;
}

function paramType(js: Record<string, unknown>): ParamDescription['type'] {
  const t = js.type;
  if (t === 'array') return 'string[]';
  if (t === 'object') return js.additionalProperties ? 'record' : 'object';
  if (t === 'string' || t === 'integer' || t === 'number' || t === 'boolean') return t;
  if (Array.isArray(js.anyOf)) return 'string';
  return 'string';
}

export function describeVerb(v: VerbInfo): VerbDescription {
  const schema = z.toJSONSchema(fullSchema(v), { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const required = new Set(schema.required ?? []);
  const params: ParamDescription[] = Object.entries(schema.properties ?? {}).map(([name, js]) => {
    const items = js.items as Record<string, unknown> | undefined;
    const p: ParamDescription = { name, type: paramType(js), required: required.has(name) };
    if (typeof js.description === 'string') p.description = js.description;
    const en = (js.enum ?? items?.enum) as string[] | undefined;
    if (en) p.enum = en;
    if (js.default !== undefined) p.default = js.default;
    return p;
  });
  return {
    name: v.name,
    summary: v.summary,
    ...(v.help ? { help: v.help } : {}),
    target: v.target,
    mutates: v.mutates,
    stream: !!v.stream,
    params,
    schema,
    cli: v.cli ?? {},
  };
}

/** The part of a description the CLI's flag table carries (dist/verbs.json, `ssh box VERB`). */
export type VerbTableRow = Pick<VerbDescription, 'name' | 'summary' | 'help' | 'stream' | 'mutates' | 'params' | 'cli'>;

export function verbTableRow(v: VerbInfo): VerbTableRow {
  const d = describeVerb(v);
  return { name: d.name, summary: d.summary, help: d.help, stream: d.stream, mutates: d.mutates, params: d.params, cli: d.cli };
}
