// issue 26, config.toml and agent manifests under attack. In-process, seeded: TOML broken at
// random (characters inserted, removed, lines doubled or cut) and every key of the config schema
// given a value of the wrong type: parseConfig and compileManifest never throw anything but their
// refusal, a parse error names its line and column, a refused key its name and line. Against a
// daemon: bad TOML, a wrong type, a file past MAX_CONFIG_BYTES and a file replaced by rename over
// and over while the daemon reloads it; each time the refusal names config.toml and the line, the
// last good config stays in force (a setting's value read back with get-config), the daemon stays
// up, and the last good file written is the one applied. `npm run soak` (TUIOS_SOAK=1) tries more.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renameSync, writeFileSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { TestDaemon, ROOT } from '../helpers/daemon.js';
import { waitFor } from '../helpers/wait.js';
import { logLines } from '../helpers/ssh.js';
import { parseConfig } from '../../core/config/config.js';
import { defaultConfig } from '../../core/config/schema.js';
import { compileManifest } from '../../core/detection/manifest.js';
import { MAX_CONFIG_BYTES } from '../../core/limits.js';

const SOAK = process.env.TUIOS_SOAK === '1';
const MUTATIONS = SOAK ? 20_000 : 2_000;
const RENAMES = SOAK ? 2_000 : 200;

/** A seeded generator (xorshift32), so a failure is the same on the next run. */
function rng(seed: number): () => number {
  let s = seed | 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 0x100000000;
  };
}

const GOOD_CONFIG = `# a person's config
[daemon]
respond_from_shell = false

[notifications.agent]
settle_ms = 1234
quiet_hours = "22:00-07:00"

[ssh]
listen = "127.0.0.1:0"
max_sessions = 8
`;

/** One random change to a TOML text: a character in or out, a line doubled, the text cut. */
function mutate(text: string, r: () => number): string {
  const at = Math.floor(r() * text.length);
  const noise = '[]{}="\'\\#.,\n\t=0x\u0000\u001b\u00ff\ud83d';
  switch (Math.floor(r() * 5)) {
    case 0:
      return text.slice(0, at) + noise[Math.floor(r() * noise.length)] + text.slice(at);
    case 1:
      return text.slice(0, at) + text.slice(at + 1 + Math.floor(r() * 8));
    case 2: {
      const lines = text.split('\n');
      const i = Math.floor(r() * lines.length);
      lines.splice(i, 0, lines[i]!);
      return lines.join('\n');
    }
    case 3:
      return text.slice(0, at);
    default:
      return text.slice(0, at) + String.fromCharCode(Math.floor(r() * 0x80)) + text.slice(at);
  }
}

/** Every leaf of the default config, with its path. */
function leaves(o: unknown, path: string[] = []): Array<{ path: string[]; value: unknown }> {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return [{ path, value: o }];
  return Object.entries(o as Record<string, unknown>).flatMap(([k, v]) => leaves(v, [...path, k]));
}

/** A TOML literal of another type than `value`'s. */
function wrongTypeFor(value: unknown): string {
  if (typeof value === 'string') return '12345';
  if (typeof value === 'number') return '"not a number"';
  if (typeof value === 'boolean') return '"yes"';
  if (Array.isArray(value)) return '{ a = 1 }';
  return '[1, "mixed"]';
}

test(`${MUTATIONS} random breaks of config.toml: a refusal or a config, never a throw; a parse error names its line`, () => {
  const r = rng(26);
  let refused = 0;
  let parseErrors = 0;
  let text = GOOD_CONFIG;
  for (let i = 0; i < MUTATIONS; i++) {
    // Half the time build on the last break, so breaks pile up; else start from the good file.
    text = mutate(r() < 0.5 ? text : GOOD_CONFIG, r);
    const out = parseConfig(text);
    assert.ok(out.config !== null || out.error !== null, 'a config or a reason');
    if (!out.error) continue;
    refused++;
    assert.ok(out.error.startsWith('config.toml'), `the refusal names the file: ${out.error}`);
    assert.not.match(out.error, /[\u0000-\u0008\u000b-\u001f\u007f]/, 'no control character in the refusal');
    if (/does not parse/.test(out.error)) {
      parseErrors++;
      assert.match(out.error, /^config\.toml does not parse \(line \d+(, column \d+)?\): /, out.error);
    }
  }
  assert.ok(refused > MUTATIONS / 4 && parseErrors > 0, `enough of the breaks were refused (${refused}, ${parseErrors} parse errors)`);
  console.log(`[tuios-test-note] config.toml: ${MUTATIONS} random breaks, ${refused} refused (${parseErrors} did not parse), none threw`);
});

test('every key of the config schema, given a value of the wrong type: refused, naming the key and its line', () => {
  const keys = leaves(defaultConfig()).filter((l) => l.path.length >= 2);
  assert.ok(keys.length > 40, `the schema's keys were found (${keys.length})`);
  let named = 0;
  for (const { path, value } of keys) {
    const text = `# wrong type\n[${path.slice(0, -1).join('.')}]\n${path[path.length - 1]} = ${wrongTypeFor(value)}\n`;
    const out = parseConfig(text);
    // A key whose schema takes either type (a union) may take it; every refusal says where.
    if (!out.error) continue;
    named++;
    assert.ok(out.error.startsWith('config.toml line 3: '), `${path.join('.')}: ${out.error}`);
    assert.ok(out.error.includes(path.join('.')), `${path.join('.')} named: ${out.error}`);
  }
  assert.ok(named >= keys.length * 0.9, `nearly every key refused its wrong type (${named} of ${keys.length})`);
  console.log(`[tuios-test-note] config.toml: ${keys.length} keys given a wrong type, ${named} refused with the key and its line`);
});

test(`${MUTATIONS} random breaks of every bundled manifest: dropped with a reason, never another throw`, () => {
  const dir = join(ROOT, 'manifests');
  const files = readdirSync(dir).filter((f) => f.endsWith('.toml'));
  assert.ok(files.length > 5);
  const r = rng(7);
  let dropped = 0;
  for (let i = 0; i < MUTATIONS; i++) {
    const f = files[i % files.length]!;
    const text = mutate(mutate(readFileSync(join(dir, f), 'utf8'), r), r);
    try {
      compileManifest(text, join(dir, f), 'bundled');
    } catch (e) {
      dropped++;
      assert.instance(e, Error);
      const msg = (e as Error).message;
      if (msg.startsWith('does not parse')) assert.match(msg, /^does not parse \(line \d+(, column \d+)?\): /, msg);
    }
  }
  assert.ok(dropped > 0);
  console.log(`[tuios-test-note] manifests: ${MUTATIONS} random breaks over ${files.length} files, ${dropped} dropped with a reason, none threw otherwise`);
});

/** Tests never take the default SSH port: every file the daemon reads below keeps its server off. */
const SSH_OFF = '\n[ssh]\nenabled = false\n';
const GOOD_DAEMON_CONFIG = GOOD_CONFIG.replace('listen = "127.0.0.1:0"', 'enabled = false');

test('a daemon keeps its last good config through bad TOML, a wrong type, a huge file and renames over it', async () => {
  const d = await TestDaemon.start({ config: GOOD_DAEMON_CONFIG });
  try {
    const file = join(d.dir, 'config', 'tuios', 'config.toml');
    const settle = async () => (await d.call<{ value: unknown }>('get-config', { key: 'notifications.agent.settle_ms' })).value;
    const info = () => d.call<{ config_error: string | null }>('server-info');
    assert.is(await settle(), 1234);
    const refusedWith = async (text: string, re: RegExp) => {
      writeFileSync(file, text + SSH_OFF);
      const e = await waitFor(async () => (await info()).config_error, { what: `the refusal of ${JSON.stringify(text.slice(0, 40))}` });
      assert.match(e, re);
      assert.is(await settle(), 1234, 'the last good config is in force');
      writeFileSync(file, GOOD_DAEMON_CONFIG);
      await waitFor(async () => (await info()).config_error === null, { what: 'the good file applied again' });
    };
    await refusedWith('[notifications.agent]\nsettle_ms = 99\n[ssh\n', /^config\.toml does not parse \(line 3, column \d+\): /);
    await refusedWith('[notifications.agent]\nsettle_ms = "soon"\n', /^config\.toml line 2: notifications\.agent\.settle_ms: /);
    await refusedWith(`[notifications.agent]\nsettle_ms = 99\n# ${'x'.repeat(MAX_CONFIG_BYTES)}\n`, /larger than \d+ bytes/);
    // Replaced while being read: bad and good versions renamed over it as fast as they come, the
    // last one good.
    const tmp = `${file}.next`;
    for (let i = 0; i < RENAMES; i++) {
      writeFileSync(tmp, (i % 2 ? `[notifications.agent]\nsettle_ms = ${2000 + i}\n` : `[notifications.agent]\nsettle_ms = = ${i}\n`) + SSH_OFF);
      renameSync(tmp, file);
    }
    writeFileSync(tmp, `[notifications.agent]\nsettle_ms = 4321\n${SSH_OFF}`);
    renameSync(tmp, file);
    await waitFor(async () => (await settle()) === 4321, { what: 'the last good file applied', timeout: 30_000 });
    assert.is((await info()).config_error, null);
    const line = logLines(d).find((l) => l.msg === 'config not applied; keeping the last good config');
    assert.ok(line && line.file === file && /line \d+/.test(String(line.reason)), `the log names the file and the line: ${JSON.stringify(line)}`);
    assert.ok((await d.call<{ pid: number }>('server-info')).pid > 0, 'the daemon is up');
    console.log(`[tuios-test-note] config.toml on a daemon: bad TOML, a wrong type, ${MAX_CONFIG_BYTES + 1}+ bytes refused and the last good kept; ${RENAMES} renames over it, the last good applied`);
  } finally {
    await d.stop();
  }
});

test.run();
