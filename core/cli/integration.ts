// `tuios integration install|uninstall|status HARNESS|--all [--command PATH] [--json]` and
// `tuios doctor agents`: the CLI side of core/agent/integrations. They edit files of the user's
// harnesses, in this process, and ask the daemon only for the panes doctor reports on.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { out, err } from './out.js';
import { INTEGRATIONS, NO_INTEGRATION, integrationFor, type Integration } from '../integrations/setup/table.js';
import { install, uninstall, status, IntegrationError, type StatusRow } from '../integrations/setup/install.js';
import { RpcClient } from '../rpc/client.js';
import { resolveSocket } from '../config/paths.js';
import { DOCTOR_VERSION_PANES } from '../limits.js';
import { installMcp, uninstallMcp, isMcpHarness, mcpStatus, MCP_HARNESSES } from '../integrations/setup/mcp-servers.js';
import { quoted } from '../integrations/setup/status-line.js';
import { installSkill, uninstallSkill, isSkillHarness, skillStatus } from '../integrations/setup/skill-files.js';

const USAGE = 'usage: tuios integration install|uninstall|status [HARNESS|--all] [--command PATH] [--mcp|--mcp-write] [--statusline [--then CMD]] [--json]';

function onPath(bin: string, env: NodeJS.ProcessEnv): string | null {
  for (const d of (env.PATH ?? '').split(delimiter)) {
    if (!d) continue;
    const p = join(d, bin);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}

/** A status row with the harness's skill file and MCP server entry, where it has them. */
type Row = StatusRow & { on_path?: string | null; skill?: { file: string; state: string }; mcp?: { file: string; state: string } };

function fullStatus(i: Integration, env: NodeJS.ProcessEnv): Row {
  const h = i.harness;
  return {
    ...status(i, env),
    on_path: onPath(i.bin, env),
    ...(isSkillHarness(h) ? { skill: skillStatus(h, env) } : {}),
    ...(isMcpHarness(h) ? { mcp: mcpStatus(h, env) } : {}),
  };
}

function statusLine(r: Row): string {
  const v = r.version !== null ? ` (version ${r.version}${r.state === 'out of date' ? `, current ${r.current}` : ''})` : '';
  const lines = [`${r.name.padEnd(20)} ${r.state}${v}  reports ${r.reports}  ${r.file}`];
  if (r.program && r.program !== 'tuios') lines.push(`${''.padEnd(20)} hooks run ${r.program}`);
  if (r.skill && r.skill.state !== 'not installed') lines.push(`${''.padEnd(20)} skill ${r.skill.state}  ${r.skill.file}`);
  if (r.mcp && r.mcp.state !== 'not installed') lines.push(`${''.padEnd(20)} MCP server ${r.mcp.state}  ${r.mcp.file}`);
  if (r.status_line && r.status_line.state !== 'not installed') lines.push(`${''.padEnd(20)} ${statusLineText(r.status_line)}`);
  if (r.note) lines.push(`${''.padEnd(20)} ${r.note}`);
  return lines.join('\n');
}

function statusLineText(s: NonNullable<Row['status_line']>): string {
  if (s.state === 'other') return 'status line: your own (tuios integration install claude-code --statusline says how to keep it)';
  return `status line ${s.state} (version ${s.version})${s.then !== null ? `, then runs ${quoted(s.then)}` : ''}`;
}

export async function integrationCommand(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  let all = false;
  let json = false;
  let mcp: 'read' | 'write' | null = null;
  let program: string | undefined;
  let statusLineFlag = false;
  let then: string | null = null;
  const names: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a === '--all') all = true;
    else if (a === '--json') json = true;
    // A `tuios` MCP server entry too (tuios mcp; --mcp-write: with --write).
    else if (a === '--mcp' || a === '--mcp-write') mcp = a === '--mcp-write' ? 'write' : 'read';
    // Claude Code's status line feed, chained to the person's own command with --then.
    else if (a === '--statusline') statusLineFlag = true;
    else if (a === '--then') then = rest[++i] ?? null;
    else if (a.startsWith('--then=')) then = a.slice(7);
    else if (a === '--command') program = rest[++i];
    else if (a.startsWith('--command=')) program = a.slice(10);
    else if (a === '-h' || a === '--help') {
      out(USAGE + '\n');
      return 0;
    } else if (!a.startsWith('-')) names.push(a);
    else {
      err(`tuios integration: unknown flag ${a}\n${USAGE}\n`);
      return 2;
    }
  }
  if (action !== 'install' && action !== 'uninstall' && action !== 'status') {
    err(`${USAGE}\n`);
    return 2;
  }
  const env = process.env;
  let targets: Integration[];
  if (names.length) {
    targets = [];
    for (const n of names) {
      const i = integrationFor(n);
      if (!i) {
        const why = NO_INTEGRATION[n];
        err(`tuios integration: ${why ? `${n} has no integration here: ${why}` : `tuios knows no harness ${n}; known: ${INTEGRATIONS.map((x) => x.harness).join(', ')}`}\n`);
        return 1;
      }
      targets.push(i);
    }
  } else if (all || action === 'status') targets = INTEGRATIONS;
  else {
    err(`tuios integration ${action}: name a harness, or --all\n${USAGE}\n`);
    return 2;
  }
  if (then !== null && (!statusLineFlag || action !== 'install')) {
    err(`tuios integration: --then goes with install --statusline: the command your status line runs after tuios\n`);
    return 2;
  }
  if (statusLineFlag && action !== 'status' && (all || targets.some((t) => t.harness !== 'claude-code'))) {
    err(`tuios integration: --statusline is Claude Code's status line feed: tuios integration ${action === 'uninstall' ? 'uninstall' : 'install'} claude-code --statusline\n`);
    return 2;
  }
  if (mcp && action !== 'install') {
    err(`tuios integration: --mcp and --mcp-write go with install; uninstall removes the MCP server with the hooks\n`);
    return 2;
  }
  const noMcp = mcp ? targets.filter((i) => !isMcpHarness(i.harness)) : [];
  if (noMcp.length && !all) {
    err(`tuios integration install: ${noMcp.map((i) => i.harness).join(', ')} reads no MCP server file tuios edits; --mcp is for ${MCP_HARNESSES.join(', ')}\n`);
    return 1;
  }
  if (action === 'status') {
    const rows = targets.map((i) => fullStatus(i, env));
    const none = names.length ? [] : Object.entries(NO_INTEGRATION).map(([harness, why]) => ({ harness, state: 'no integration', note: why }));
    if (json) out(JSON.stringify({ integrations: rows, no_integration: none }, null, 2) + '\n');
    else {
      out(rows.map(statusLine).join('\n') + '\n');
      if (none.length) out(none.map((n) => `${n.harness.padEnd(20)} no integration: ${n.note}`).join('\n') + '\n');
    }
    return 0;
  }
  let failed = 0;
  const results: Array<Record<string, unknown>> = [];
  for (const i of targets) {
    const skip = all && action === 'install' ? i.skipInAll?.(env) : null;
    if (skip) {
      results.push({ harness: i.harness, skipped: skip });
      if (!json) out(`${i.name}: skipped: ${skip}\n`);
      continue;
    }
    try {
      const prog = program ?? status(i, env).program ?? 'tuios';
      const c = action === 'install' ? install(i, env, prog, statusLineFlag ? { statusLine: { then } } : {}) : uninstall(i, env, { statusLineOnly: statusLineFlag });
      results.push({ harness: i.harness, file: c.file, action: c.action });
      if (!json) out(`${i.name}: ${c.action === 'unchanged' ? 'nothing to change in' : c.action === 'removed' ? 'removed' : 'wrote'} ${c.file}\n`);
      if (statusLineFlag) {
        const sl = status(i, env).status_line;
        results.push({ harness: i.harness, status_line: sl });
        if (!json && sl) out(`${i.name}: ${statusLineText(sl)}\n`);
        // --statusline with uninstall takes the status line alone: the hooks, skill and MCP server stay.
        if (action === 'uninstall') continue;
      }
      const h = i.harness;
      // The skill that points the agent at `tuios --skill`: written and removed with the hooks.
      if (isSkillHarness(h)) {
        const sk = action === 'install' ? installSkill(h, env, prog) : uninstallSkill(h, env);
        results.push({ harness: h, skill_file: sk.file, action: sk.action });
        if (!json && sk.action !== 'unchanged') out(`${i.name}: ${sk.action === 'removed' ? 'removed the tuios skill' : 'wrote the tuios skill'} ${sk.file}\n`);
      }
      // The MCP server entry: written with --mcp, and removed (ours only) with the hooks.
      if (isMcpHarness(h) && (action === 'uninstall' || mcp)) {
        const m = action === 'install' ? installMcp(h, env, prog, mcp === 'write') : uninstallMcp(h, env);
        results.push({ harness: h, mcp_file: m.file, action: m.action });
        if (!json && (action === 'install' || m.action !== 'unchanged')) out(`${i.name}: ${m.action === 'unchanged' ? 'nothing to change in' : action === 'uninstall' ? 'removed the tuios MCP server from' : 'wrote the tuios MCP server to'} ${m.file}\n`);
      }
    } catch (e) {
      if (!(e instanceof IntegrationError)) throw e;
      // With --all, a harness that has not run here is skipped; a named one is an error.
      if (all && /does not exist yet/.test(e.message)) {
        results.push({ harness: i.harness, skipped: e.message });
        if (!json) out(`${i.name}: skipped: ${e.message}\n`);
        continue;
      }
      failed++;
      results.push({ harness: i.harness, error: e.message });
      err(`tuios integration ${action} ${i.harness}: ${e.message}\n`);
    }
  }
  if (json) out(JSON.stringify({ results }, null, 2) + '\n');
  return failed ? 1 : 0;
}

/** `tuios doctor agents`: each harness on PATH or not, its install state, and the panes running one without it. */
export async function doctorAgentsCommand(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const env = process.env;
  const rows = INTEGRATIONS.map((i) => fullStatus(i, env));
  let panes: Array<{ window_id: string; name: string; session: string | null; harness_id: string | null; harness_version?: string | null; version_covered?: boolean | null }> = [];
  let daemon = 'not running';
  /** Panes running a release outside the ones their manifest's rules were captured from. */
  const uncovered: Array<{ window_id: string; name: string; session: string | null; harness: string | null; harness_version: string | null; note: string }> = [];
  try {
    const c = await RpcClient.connect(resolveSocket(env).socket, { timeoutMs: 1000 });
    try {
      panes = (await c.call<{ agents: typeof panes }>('list-agents', {})).agents;
      daemon = 'running';
      for (const p of panes.filter((x) => x.version_covered === false).slice(0, DOCTOR_VERSION_PANES)) {
        let note = `${p.harness_id} ${p.harness_version} is outside the releases its rules were captured from.`;
        try {
          note = (await c.call<{ version: { note: string } | null }>('explain-agent-detect', { window: p.window_id })).version?.note ?? note;
        } catch {
          // the pane closed in between: the plain note stands
        }
        uncovered.push({ window_id: p.window_id, name: p.name, session: p.session, harness: p.harness_id, harness_version: p.harness_version ?? null, note });
      }
    } finally {
      c.close();
    }
  } catch {
    // no daemon: no panes to check
  }
  const missing = panes
    .map((p) => ({ p, r: rows.find((r) => r.harness === p.harness_id) }))
    .filter(({ r }) => r && r.state !== 'installed')
    .map(({ p, r }) => ({ window_id: p.window_id, name: p.name, session: p.session, harness: r!.harness, state: r!.state }));
  if (json) {
    out(JSON.stringify({ integrations: rows, no_integration: NO_INTEGRATION, daemon, panes_missing: missing, panes_uncovered: uncovered }, null, 2) + '\n');
    return 0;
  }
  for (const r of rows) out(`${statusLine(r)}\n${''.padEnd(20)} ${r.on_path ? `on PATH: ${r.on_path}` : 'not on PATH'}\n`);
  for (const [h, why] of Object.entries(NO_INTEGRATION)) out(`${h.padEnd(20)} no integration: ${why}\n`);
  if (daemon !== 'running') out('panes: the daemon is not running; no pane was checked\n');
  else if (missing.length === 0) out('panes: every pane running a harness has its integration\n');
  else for (const m of missing) out(`pane ${m.name} (${m.session ?? '-'}) runs ${m.harness}, whose integration is ${m.state}: tuios integration install ${m.harness}\n`);
  if (daemon === 'running') {
    // version_covered (tuios help list-agents): a release outside the captured ones may draw screens its rules miss.
    const known = panes.filter((p) => p.version_covered === true).length;
    const unread = panes.filter((p) => p.harness_id && (p.version_covered === null || p.version_covered === undefined)).length;
    if (uncovered.length === 0) out(`versions: ${known ? `${known} pane${known === 1 ? ' runs a release its rules were' : 's run releases their rules were'} captured from` : 'no pane runs a release tuios could read and compare'}${unread ? `; ${unread} with no release read or none captured to compare` : ''}\n`);
    else for (const u of uncovered) out(`pane ${u.name} (${u.session ?? '-'}): ${u.note}${u.harness && integrationFor(u.harness) ? ` Its hooks (tuios integration install ${u.harness}) report the state whatever the screen draws.` : ''}\n`);
  }
  return 0;
}
