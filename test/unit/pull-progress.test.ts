// The line `worktree pull` draws at a terminal, from its progress events.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { progressLine } from '../../core/cli/progress.js';

test('the line names the phase, the bytes, the objects and files when there are any, the rate once known, and the time', () => {
  assert.is(progressLine({ phase: 'receive', bytes: 23.4 * 1024 * 1024, objects: 5012, files: 2048 }, 3200, 8.1 * 1024 * 1024), 'worktree pull: receive 23.4 MB, 5,012 objects, 2,048 files, 8.1 MB/s, 3 s');
  assert.is(progressLine({ phase: 'scan', bytes: 0, objects: 0, files: 0 }, 400, null), 'worktree pull: scan 0 B, 0 s');
  assert.is(progressLine({ phase: 'done', bytes: 2048, objects: 1, files: 0 }, 0, null), 'worktree pull: done 2.0 KB, 1 objects, 0 s');
});

test.run();
