// herdr's command line for tabs, workspace focus and pane move (spec: herdr's command line), as
// herdr 0.9.5 reads them: `tab create|rename|focus|close`, `workspace focus`, `pane move`. herdr
// has no `tab move` command; tuios adds `tab move TAB INDEX` for tab.move's insert_index. cli.ts
// sends the method and prints the answer. A wrong command is a Usage error (the usage, exit 2).

/** What cli.ts sends: a method and its params, its answer printed as one JSON line. */
export interface TabPlan {
  method: string;
  params: Record<string, unknown>;
  print: 'json';
}

export const TABS_USAGE = `  herdr tab create [--workspace WORKSPACE] [--cwd PATH] [--label TEXT] [--env KEY=VALUE]... [--focus|--no-focus]
  herdr tab rename TAB LABEL... | focus TAB | close TAB | move TAB INDEX
  herdr workspace focus WORKSPACE
  herdr pane move PANE --tab TAB --split right|down [--target-pane PANE] [--ratio FLOAT] [--focus|--no-focus]
  herdr pane move PANE --new-tab [--workspace WORKSPACE] [--label TEXT] [--focus|--no-focus]
`;

interface Tools {
  usage(message: string): Error;
}

/** Reads `--name value` options (repeatable ones into lists) and `--flag`s; the rest are positionals. */
function read(args: string[], values: string[], flags: string[], tools: Tools, repeat: string[] = []) {
  const pos: string[] = [];
  const opt: Record<string, string> = {};
  const many: Record<string, string[]> = {};
  const on = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--')) {
      pos.push(a);
      continue;
    }
    const name = a.slice(2);
    if (flags.includes(name)) {
      on.add(name);
      continue;
    }
    if (!values.includes(name) && !repeat.includes(name)) throw tools.usage(`unknown option: ${a.slice(0, 64)}`);
    const v = args[++i];
    if (v === undefined) throw tools.usage(`missing value for ${a}`);
    if (repeat.includes(name)) (many[name] ??= []).push(v);
    else opt[name] = v;
  }
  return { pos, opt, many, on };
}

function exactlyOne(pos: string[], usage: string, tools: Tools): string {
  if (pos.length !== 1) throw tools.usage(`usage: herdr ${usage}`);
  return pos[0]!;
}

/** The last of --focus / --no-focus given wins; none: `dflt`. */
function focusOf(args: string[], dflt: boolean): boolean {
  let focus = dflt;
  for (const a of args) {
    if (a === '--focus') focus = true;
    if (a === '--no-focus') focus = false;
  }
  return focus;
}

export function planTabs(cmd: string, rest: string[], tools: Tools): TabPlan | null {
  const json = (method: string, params: Record<string, unknown>): TabPlan => ({ method, params, print: 'json' });
  switch (cmd) {
    case 'tab create': {
      const r = read(rest, ['workspace', 'cwd', 'label'], ['focus', 'no-focus'], tools, ['env']);
      if (r.pos.length) throw tools.usage(`unknown option: ${r.pos[0]!.slice(0, 64)}`);
      const env: Record<string, string> = {};
      for (const kv of r.many.env ?? []) {
        const eq = kv.indexOf('=');
        if (eq <= 0) throw tools.usage(`invalid --env ${kv.slice(0, 64)}: expected KEY=VALUE`);
        env[kv.slice(0, eq)] = kv.slice(eq + 1);
      }
      return json('tab.create', {
        ...(r.opt.workspace ? { workspace_id: r.opt.workspace } : {}),
        ...(r.opt.cwd ? { cwd: r.opt.cwd } : {}),
        ...(r.opt.label ? { label: r.opt.label } : {}),
        ...(Object.keys(env).length ? { env } : {}),
        focus: focusOf(rest, false),
      });
    }
    case 'tab rename':
      if (rest.length < 2) throw tools.usage('usage: herdr tab rename <tab_id> <label>');
      return json('tab.rename', { tab_id: rest[0], label: rest.slice(1).join(' ') });
    case 'tab focus':
      return json('tab.focus', { tab_id: exactlyOne(rest, 'tab focus <tab_id>', tools) });
    case 'tab close':
      return json('tab.close', { tab_id: exactlyOne(rest, 'tab close <tab_id>', tools) });
    case 'tab move': {
      if (rest.length !== 2 || !/^\d{1,9}$/.test(rest[1]!)) throw tools.usage('usage: herdr tab move <tab_id> <index>');
      return json('tab.move', { tab_id: rest[0], insert_index: Number(rest[1]) });
    }
    case 'workspace focus':
      return json('workspace.focus', { workspace_id: exactlyOne(rest, 'workspace focus <workspace_id>', tools) });
    case 'pane move': {
      const r = read(rest, ['tab', 'split', 'target-pane', 'ratio', 'workspace', 'label', 'tab-label'], ['new-tab', 'new-workspace', 'focus', 'no-focus'], tools);
      const pane = exactlyOne(r.pos, 'pane move <pane_id> --tab <tab_id> --split right|down | --new-tab', tools);
      const focus = focusOf(rest, false);
      const kinds = [r.opt.tab !== undefined, r.on.has('new-tab'), r.on.has('new-workspace')].filter(Boolean).length;
      if (kinds !== 1) throw tools.usage('give one of --tab, --new-tab, --new-workspace');
      if (r.on.has('new-workspace')) return json('pane.move', { pane_id: pane, destination: { type: 'new_workspace', ...(r.opt.label ? { label: r.opt.label } : {}) }, focus });
      if (r.on.has('new-tab')) return json('pane.move', { pane_id: pane, destination: { type: 'new_tab', ...(r.opt.workspace ? { workspace_id: r.opt.workspace } : {}), ...(r.opt.label ? { label: r.opt.label } : {}) }, focus });
      if (r.opt.split !== 'right' && r.opt.split !== 'down') throw tools.usage('--split right|down is required with --tab');
      let ratio: number | undefined;
      if (r.opt.ratio !== undefined) {
        ratio = Number(r.opt.ratio);
        if (!Number.isFinite(ratio)) throw tools.usage(`invalid value '${r.opt.ratio.slice(0, 32)}' for '--ratio'`);
      }
      return json('pane.move', {
        pane_id: pane,
        destination: { type: 'tab', tab_id: r.opt.tab, split: r.opt.split, ...(r.opt['target-pane'] ? { target_pane_id: r.opt['target-pane'] } : {}), ...(ratio !== undefined ? { ratio } : {}) },
        focus,
      });
    }
  }
  return null;
}
