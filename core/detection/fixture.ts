// Screen fixtures: a pane's live screen, title and last OSC 9;4 report, with a header saying where
// it came from and what the rules must decide for it. Every bundled screen or title rule is pinned
// to at least one of these (ADR-0046, Tradeoffs). Format:
//
//   harness = "claude-code"            # TOML header
//   program_version = "2.1.197"
//   provenance = "measured"            # measured on a live pane | derived from documented chrome
//   obtained = "how it was captured"
//   cols = 120
//   rows = 40
//   title = "✳ Claude Code"
//   progress = "4;3"                   # optional
//   [expect]
//   state = "needs_input"              # or "none": no rule decides
//   kind = "approval"                  # optional
//   message = "approve Bash: touch hello.txt"   # optional, exact
//   freeze = false                     # optional: a skip-state rule must match
//   --- screen ---
//   <one line per screen row>
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';

export const SCREEN_MARK = '--- screen ---';

export interface FixtureExpect {
  state: string;
  kind?: string;
  message?: string;
  freeze?: boolean;
}

export interface Fixture {
  harness: string;
  program_version: string;
  provenance: 'measured' | 'derived';
  obtained: string;
  cols: number;
  rows: number;
  title: string;
  progress?: string;
  expect: FixtureExpect;
  lines: string[];
  /** Anything else the header holds (process identity, notes). */
  extra: Record<string, unknown>;
}

export function formatFixture(f: Fixture): string {
  const header: Record<string, unknown> = {
    harness: f.harness,
    program_version: f.program_version,
    provenance: f.provenance,
    obtained: f.obtained,
    cols: f.cols,
    rows: f.rows,
    title: f.title,
    ...(f.progress ? { progress: f.progress } : {}),
    ...f.extra,
    expect: Object.fromEntries(Object.entries(f.expect).filter(([, v]) => v !== undefined)),
  };
  return `${stringifyToml(header)}\n${SCREEN_MARK}\n${f.lines.map((l) => l.replace(/\s+$/, '')).join('\n')}\n`;
}

export function parseFixture(text: string, name = 'fixture'): Fixture {
  const at = text.indexOf(`\n${SCREEN_MARK}\n`);
  if (at < 0) throw new Error(`${name}: no "${SCREEN_MARK}" line`);
  const head = parseToml(text.slice(0, at)) as Record<string, unknown>;
  const body = text.slice(at + SCREEN_MARK.length + 2);
  const lines = body.endsWith('\n') ? body.slice(0, -1).split('\n') : body.split('\n');
  const need = (k: string, t: string) => {
    if (typeof head[k] !== t) throw new Error(`${name}: header needs ${k} (${t})`);
    return head[k];
  };
  const expect = head.expect as FixtureExpect | undefined;
  if (!expect || typeof expect.state !== 'string') throw new Error(`${name}: header needs [expect] state`);
  const prov = need('provenance', 'string');
  if (prov !== 'measured' && prov !== 'derived') throw new Error(`${name}: provenance is measured or derived`);
  const known = new Set(['harness', 'program_version', 'provenance', 'obtained', 'cols', 'rows', 'title', 'progress', 'expect']);
  const extra = Object.fromEntries(Object.entries(head).filter(([k]) => !known.has(k)));
  return {
    harness: need('harness', 'string') as string,
    program_version: need('program_version', 'string') as string,
    provenance: prov,
    obtained: need('obtained', 'string') as string,
    cols: Number(head.cols ?? 0),
    rows: Number(head.rows ?? lines.length),
    title: typeof head.title === 'string' ? head.title : '',
    progress: typeof head.progress === 'string' ? head.progress : undefined,
    expect,
    lines,
    extra,
  };
}

/** Every file under `dir` whose name `want` takes (default: .screen fixtures), at any depth, sorted. A missing folder has none. */
export function fixtureFiles(dir: string, want: (name: string) => boolean = (n) => n.endsWith('.screen')): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .flatMap((n) => {
      const p = join(dir, n);
      return statSync(p).isDirectory() ? fixtureFiles(p, want) : want(n) ? [p] : [];
    })
    .sort();
}
