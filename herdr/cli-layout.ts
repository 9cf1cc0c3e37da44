// herdr's command line for the pane layout (spec: herdr tools in tuios): pane split, neighbor,
// edges, focus --direction, resize, zoom, swap, and terminal title, read as herdr 0.9.5 reads
// them. A command with no --pane acts on the caller's own pane, which the daemon finds from the
// kernel (herdr reads HERDR_PANE_ID, which names the same pane).
// cli.ts hands in its flag reader and its usage error (imported, they would make a cycle).
import { resolve } from 'node:path';

export interface LayoutPlan {
  method: string;
  params: Record<string, unknown>;
  print: 'json';
}

/** What cli.ts lends: its flag reader, and the error that prints the usage (exit 2). */
export interface CliTools {
  parseFlags(args: string[], known: string[], bool?: string[]): { pos: string[]; flags: Record<string, string | true> };
  usage(message: string): Error;
}

let tools: CliTools;
const usage = (message: string): Error => tools.usage(message);
const parseFlags = (args: string[], known: string[], bool?: string[]) => tools.parseFlags(args, known, bool);

function one(pos: string[], what: string): string {
  if (pos.length !== 1) throw usage(`${what} is required`);
  return pos[0]!;
}

export const LAYOUT_USAGE = `  herdr pane split [PANE] [--pane ID] --direction right|down|left|up [--focus] [--cwd PATH] [--env KEY=VALUE]...
  herdr pane neighbor --direction left|right|up|down [--pane ID] | edges [--pane ID]
  herdr pane focus --direction left|right|up|down [--pane ID]
  herdr pane resize --direction left|right|up|down [--amount SHARE] [--pane ID]
  herdr pane zoom [PANE] [--pane ID] [--toggle|--on|--off]
  herdr pane swap (--direction D [--pane ID] | --source-pane ID --target-pane ID)
  herdr terminal title set TITLE | clear
`;

const DIRECTIONS = ['left', 'right', 'up', 'down'];

/** `--env KEY=VALUE`, repeatable: the rest of the words, and the map. */
function envOf(args: string[]): { rest: string[]; env: Record<string, string> } {
  const rest: string[] = [];
  const env: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const inline = a.startsWith('--env=') ? a.slice(6) : null;
    if (a !== '--env' && inline === null) {
      rest.push(a);
      continue;
    }
    const v = inline ?? args[++i];
    if (v === undefined) throw usage("a value is required for '--env'");
    const eq = v.indexOf('=');
    if (eq <= 0) throw usage(`invalid value '${v.slice(0, 32)}' for '--env': expected KEY=VALUE`);
    env[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return { rest, env };
}

function direction(v: string | true | undefined, required: boolean, allowed = DIRECTIONS): string | undefined {
  if (v === undefined) {
    if (required) throw usage("the following required arguments were not provided: --direction <DIRECTION>");
    return undefined;
  }
  if (v === true || !allowed.includes(v)) throw usage(`invalid value '${String(v).slice(0, 32)}' for '--direction <DIRECTION>'`);
  return v;
}

function float(v: string | true | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && /^-?\d{1,6}(\.\d{1,9})?$/.test(v) ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw usage(`invalid value '${String(v).slice(0, 32)}' for '--${name}'`);
  return n;
}

/** --pane ID, else the one positional when the command takes one. */
function paneParam(flags: Record<string, string | true>, pos: string[], name = 'pane_id', positional = false): Record<string, string> {
  if (typeof flags.pane === 'string') return { [name]: flags.pane };
  if (positional && pos.length === 1) return { [name]: pos[0]! };
  if (pos.length > 0) throw usage(`unexpected argument '${pos[0]!.slice(0, 32)}'`);
  return {};
}

/** The plan of a layout command, or null for another command. */
export function planLayout(cmd: string, rest: string[], lent: CliTools): LayoutPlan | null {
  tools = lent;
  const json = (method: string, params: Record<string, unknown>): LayoutPlan => ({ method, params, print: 'json' });
  switch (cmd) {
    case 'pane split': {
      const { rest: words, env } = envOf(rest);
      const { pos, flags } = parseFlags(words, ['pane', 'direction', 'ratio', 'cwd', 'right-click'], ['focus', 'no-focus', 'current']);
      return json('pane.split', {
        ...paneParam(flags, pos, 'target_pane_id', true),
        direction: direction(flags.direction, true),
        ...(flags.ratio !== undefined ? { ratio: float(flags.ratio, 'ratio') } : {}),
        ...(typeof flags.cwd === 'string' ? { cwd: resolve(flags.cwd) } : {}),
        ...(Object.keys(env).length > 0 ? { env } : {}),
        focus: flags.focus === true && flags['no-focus'] !== true,
      });
    }
    case 'pane neighbor': {
      const { pos, flags } = parseFlags(rest, ['pane', 'direction'], ['current']);
      return json('pane.neighbor', { ...paneParam(flags, pos), direction: direction(flags.direction, true) });
    }
    case 'pane edges': {
      const { pos, flags } = parseFlags(rest, ['pane'], ['current']);
      return json('pane.edges', paneParam(flags, pos));
    }
    case 'pane resize': {
      const { pos, flags } = parseFlags(rest, ['pane', 'direction', 'amount'], ['current']);
      return json('pane.resize', { ...paneParam(flags, pos), direction: direction(flags.direction, true), ...(flags.amount !== undefined ? { amount: float(flags.amount, 'amount') } : {}) });
    }
    case 'pane zoom': {
      const { pos, flags } = parseFlags(rest, ['pane'], ['current', 'toggle', 'on', 'off']);
      const modes = ['toggle', 'on', 'off'].filter((m) => flags[m] === true);
      if (modes.length > 1) throw usage('--toggle, --on and --off cannot be used together');
      return json('pane.zoom', { ...paneParam(flags, pos, 'pane_id', true), mode: modes[0] ?? 'toggle' });
    }
    case 'pane swap': {
      const { pos, flags } = parseFlags(rest, ['pane', 'direction', 'source-pane', 'target-pane'], ['current']);
      const d = direction(flags.direction, false);
      if (d) return json('pane.swap', { ...paneParam(flags, pos), direction: d });
      if (pos.length > 0) throw usage(`unexpected argument '${pos[0]!.slice(0, 32)}'`);
      return json('pane.swap', {
        ...(typeof flags['source-pane'] === 'string' ? { source_pane_id: flags['source-pane'] } : typeof flags.pane === 'string' ? { source_pane_id: flags.pane } : {}),
        ...(typeof flags['target-pane'] === 'string' ? { target_pane_id: flags['target-pane'] } : {}),
      });
    }
    case 'terminal title': {
      const [what, ...args] = rest;
      if (what === 'set') return json('client.window_title.set', { title: one(args, 'TITLE') });
      if (what === 'clear' && args.length === 0) return json('client.window_title.clear', {});
      throw usage('usage: herdr terminal title set TITLE | clear');
    }
  }
  return null;
}

/** `pane focus --direction D [--pane ID]`: the neighbour's focus (pane.focus_direction); null without --direction. */
export function planFocusDirection(rest: string[], lent: CliTools): LayoutPlan | null {
  tools = lent;
  if (!rest.some((a) => a === '--direction' || a.startsWith('--direction='))) return null;
  const { pos, flags } = parseFlags(rest, ['pane', 'direction'], ['current']);
  return { method: 'pane.focus_direction', params: { ...paneParam(flags, pos), direction: direction(flags.direction, true) }, print: 'json' };
}
