// The `worktree-pack` link stream: a linked host that runs `worktree pull HOST:SESSION` opens it
// here with the session and the commits its clone has, and this side packs that session's
// worktree into the stream (core/git/transfer.ts). Nothing of the worktree or its index is
// touched. Opening it needs `files` in this machine's [hosts.NAME] table for that host.
import { Writable } from 'node:stream';
import type { StreamKind, StreamSink } from '../hosts/streams.js';
import type { Services } from '../daemon/services.js';
import { TuiosError } from '../errors.js';
import { packWorktree } from './transfer.js';
import { worktreeOf } from './fleet.js';
import { PULL_CHUNK_BYTES, PULL_MAX_HAVES } from '../limits.js';

export const WORKTREE_PACK_STREAM = 'worktree-pack';

/** A Writable over a link stream's sink: each write waits for the link's room. Never ends the sink. */
export function writableOver(sink: StreamSink): Writable {
  return new Writable({
    highWaterMark: PULL_CHUNK_BYTES,
    write(chunk: Buffer, _enc, cb) {
      if (sink.signal.aborted) return cb(new TuiosError('host_down', 'The stream was closed by the other side.'));
      sink.write(chunk).then(() => cb(), (e: Error) => cb(e));
    },
  });
}

export const worktreePackStream: StreamKind<Services> = {
  right: 'files',
  async open(svc: Services, params, sink) {
    const ref = typeof params.session === 'string' ? params.session : '';
    if (!ref) throw new TuiosError('invalid_params', 'A worktree-pack stream names its session.');
    const s = svc.model.findSession(ref);
    const wt = worktreeOf(s);
    const top = wt?.path ?? s.cwd;
    const haves = Array.isArray(params.haves) ? params.haves.filter((h): h is string => typeof h === 'string').slice(0, PULL_MAX_HAVES) : [];
    // early_base: the opener reads a BASE frame (a build that does not ask never gets one).
    await packWorktree(top, writableOver(sink), { haves, base: wt ? { name: wt.base, commit: wt.base_commit } : undefined, signal: sink.signal, earlyBase: params.early_base === true });
    sink.end();
  },
};

/** Registers the stream at daemon start; the returned function takes it out again. */
export function installPackStream(svc: Services): () => void {
  return svc.linkStreams.register(WORKTREE_PACK_STREAM, worktreePackStream);
}
