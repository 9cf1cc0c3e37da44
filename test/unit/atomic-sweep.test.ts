// sweepTempFiles: the temp files of writers that died mid-write (`.NAME.PID.HEX.tmp`) are removed,
// two folders deep; a running writer's, and every other file, are left alone.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, mkdirSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { sweepTempFiles, writeFileAtomic } from '../../core/store/atomic.js';

test('a dead writer\'s temp files go, two folders deep; a live one\'s and real files stay', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-sweep-'));
  try {
    mkdirSync(join(dir, 'outbox', 'deep'), { recursive: true });
    const dead = [join(dir, '.snapshot.json.111.0badf00d.tmp'), join(dir, 'outbox', '.peer.json.111.deadbeef.tmp'), join(dir, 'outbox', 'deep', '.x.json.111.00000000.tmp')];
    const kept = [join(dir, '.snapshot.json.222.0badf00d.tmp'), join(dir, 'snapshot.json'), join(dir, '.snapshot.json.111.nothex!.tmp'), join(dir, 'outbox', 'peer.json')];
    for (const f of [...dead, ...kept]) writeFileSync(f, 'x');
    const removed = sweepTempFiles(dir, (pid) => pid === 222);
    assert.equal(removed.sort(), dead.sort());
    for (const f of dead) assert.not.ok(existsSync(f), f);
    for (const f of kept) assert.ok(existsSync(f), f);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('writeFileAtomic\'s own temp names are what the sweep reads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tuios-sweep-'));
  try {
    writeFileAtomic(join(dir, 'a.json'), '{}');
    // A finished write leaves none; a planted one in this process's name is a running writer's.
    writeFileSync(join(dir, `.a.json.${process.pid}.12345678.tmp`), 'x');
    assert.equal(sweepTempFiles(dir, (pid) => pid === process.pid), []);
    assert.is(sweepTempFiles(dir, () => false).length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
