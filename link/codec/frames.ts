// Link framing: a 4-byte big-endian length, then one Avro-encoded Frame. Reading resolves each
// frame against the schema the writer sent in its Hello, one branch at a time: avsc cannot
// resolve a union whose writer has a branch the reader lacks (it fails at createResolver), so
// the union index is read here, the writer's branch found by it, and only a branch this build
// knows is resolved; any other is reported as unknown, for the owner to answer `unsupported`.
// Every failure is a reason string for the owner's log; nothing here throws at its caller.
import avro from 'avsc';
import { FRAME_TYPE, FRAME_FINGERPRINT, NAMESPACE, type Frame, type BranchName } from './schema.js';
import { LINK_MAX_SCHEMA_BYTES } from '../../core/limits.js';
import { LINK_SCHEMAS_KEPT } from '../limits.js';
import { ByteQueue } from '../../core/byte-queue.js';

const LONG = avro.Type.forSchema('long');
const HEADER = 4;
/**
 * What comes before a StreamData frame's bytes, in Avro's own encoding: the union's branch index,
 * the stream, and the bytes' length (a record is its fields in order, a union its index then the
 * value, bytes its length then the bytes). A stream's megabytes are written after it and read back
 * as a view: through avsc, each frame's bytes were zero-filled into a new buffer and copied, on
 * both sides, which was most of what a worktree pull's bytes cost the link.
 */
const STREAM_DATA_HEAD = avro.Type.forSchema({
  type: 'record',
  name: 'StreamDataHead',
  fields: [
    { name: 'branch', type: 'long' },
    { name: 'stream', type: 'long' },
    { name: 'length', type: 'long' },
  ],
});

interface UnionLike {
  types: avro.Type[];
}

function shortName(full: string | undefined): string {
  if (!full) return '';
  const i = full.lastIndexOf('.');
  return i >= 0 ? full.slice(i + 1) : full;
}

const ours = new Map<string, avro.Type>();
for (const t of (FRAME_TYPE as unknown as UnionLike).types) ours.set(shortName(t.name), t);
const HELLO = ours.get('Hello')!;
const STREAM_DATA_BRANCH = (FRAME_TYPE as unknown as UnionLike).types.findIndex((t) => shortName(t.name) === 'StreamData');

export class FrameTooLarge extends Error {
  constructor(readonly bytes: number, readonly max: number) {
    super(`a frame of ${bytes} bytes is over the ${max}-byte limit`);
  }
}

/** One frame, length prefix included. Throws FrameTooLarge past `max`. */
export function encodeFrame(f: Frame, max: number): Buffer {
  if (f.kind === 'StreamData') return encodeStreamData(f.body.stream, f.body.data, max);
  const body = FRAME_TYPE.toBuffer({ [`${NAMESPACE}.${f.kind}`]: f.body });
  if (body.length > max) throw new FrameTooLarge(body.length, max);
  const out = Buffer.allocUnsafe(HEADER + body.length);
  out.writeUInt32BE(body.length, 0);
  body.copy(out, HEADER);
  return out;
}

/** The same bytes avsc writes for a StreamData frame, with the data copied once, into the frame. */
function encodeStreamData(stream: number, data: Buffer, max: number): Buffer {
  const head = STREAM_DATA_HEAD.toBuffer({ branch: STREAM_DATA_BRANCH, stream, length: data.length });
  const bytes = head.length + data.length;
  if (bytes > max) throw new FrameTooLarge(bytes, max);
  const out = Buffer.allocUnsafe(HEADER + bytes);
  out.writeUInt32BE(bytes, 0);
  head.copy(out, HEADER);
  data.copy(out, HEADER + head.length);
  return out;
}

interface Branch {
  name: string;
  reader: avro.Type | null;
  resolver: unknown;
  /** Why a branch of ours could not be resolved (a changed shape): answered as unsupported. */
  why?: string;
}

/** Schemas parsed from Hellos, by their text (a WriterSchema is never changed once made). */
const parsedSchemas = new Map<string, WriterSchema>();

/** How a peer's frames are read: its union's branches, each resolved to ours by name. */
export class WriterSchema {
  private constructor(
    private readonly branches: Branch[],
    readonly fingerprint: string,
  ) {}

  /**
   * The schema a Hello carries, parsed, or an Error whose message is the reason. Every peer of one
   * build sends the same text, so it is parsed once: building avsc's types and the fingerprint was
   * most of what a link coming up cost this side's event loop (44 ms each, measured on a hub whose
   * 4 cut hosts came back at once, and the hub's other hosts' events waited behind it).
   */
  static fromJson(json: string): WriterSchema {
    const known = parsedSchemas.get(json);
    if (known) {
      // The newest use last, so the one dropped past the limit is the least recently seen.
      parsedSchemas.delete(json);
      parsedSchemas.set(json, known);
      return known;
    }
    const w = WriterSchema.parse(json);
    parsedSchemas.set(json, w);
    if (parsedSchemas.size > LINK_SCHEMAS_KEPT) parsedSchemas.delete(parsedSchemas.keys().next().value!);
    return w;
  }

  private static parse(json: string): WriterSchema {
    if (Buffer.byteLength(json) > LINK_MAX_SCHEMA_BYTES) throw new Error(`the peer's schema is over ${LINK_MAX_SCHEMA_BYTES} bytes`);
    let type: avro.Type;
    try {
      type = avro.Type.forSchema(JSON.parse(json) as avro.Schema, { namespace: NAMESPACE });
    } catch (e) {
      throw new Error(`the peer's schema does not parse: ${e instanceof Error ? e.message : String(e)}`);
    }
    const fp = type.fingerprint('sha256').toString('hex');
    const types = (type as unknown as Partial<UnionLike>).types;
    if (!Array.isArray(types) || types.length === 0) throw new Error("the peer's schema is not a union of records");
    if (shortName(types[0]!.name) !== 'Hello') throw new Error("the peer's schema does not start with Hello");
    const branches = types.map((w): Branch => {
      const name = shortName(w.name);
      const reader = ours.get(name) ?? null;
      if (!reader) return { name, reader: null, resolver: null };
      if (fp === FRAME_FINGERPRINT) return { name, reader, resolver: undefined };
      try {
        return { name, reader, resolver: reader.createResolver(w) };
      } catch (e) {
        return { name, reader: null, resolver: null, why: e instanceof Error ? e.message : String(e) };
      }
    });
    return new WriterSchema(branches, fp);
  }

  branch(index: number): Branch | undefined {
    return this.branches[index];
  }

  /** True when the peer reads this branch (a frame it does not know is not sent to it). */
  knows(name: BranchName): boolean {
    return this.branches.some((b) => b.name === name && b.reader !== null);
  }
}

export interface DecoderSink {
  frame(f: Frame): void;
  /** A frame of a branch this build does not read: the owner answers unsupported and goes on. */
  unknown(branch: string, why: string): void;
  /** A frame that cannot be read: the owner closes the link with this reason. */
  error(reason: string): void;
}

/** Bytes in, frames out. After the first error it reads nothing more. */
export class FrameDecoder {
  private readonly held = new ByteQueue();
  private need = -1;
  private failed = false;
  writer: WriterSchema | null = null;

  constructor(
    private readonly max: number,
    private readonly sink: DecoderSink,
  ) {}

  push(chunk: Buffer): void {
    if (this.failed || chunk.length === 0) return;
    this.held.push(chunk);
    for (;;) {
      if (this.failed) return;
      if (this.need < 0) {
        if (this.held.size < HEADER) return;
        const len = this.held.take(HEADER).readUInt32BE(0);
        if (len === 0) return this.fail('an empty frame');
        if (len > this.max) return this.fail(`a frame of ${len} bytes is over the ${this.max}-byte limit`);
        this.need = len;
      }
      if (this.held.size < this.need) return;
      const body = this.held.take(this.need);
      this.need = -1;
      this.decode(body);
    }
  }

  /** The stream ended: a frame cut short is an error (truncated), a clean end is not. */
  end(): void {
    if (this.failed) return;
    if (this.need >= 0 || this.held.size > 0) this.fail(`the stream ended inside a frame (${this.held.size} of ${this.need < 0 ? HEADER : this.need} bytes)`);
  }

  private fail(reason: string): void {
    this.failed = true;
    this.held.clear();
    this.sink.error(reason);
  }

  private decode(buf: Buffer): void {
    let index: number;
    let pos: number;
    try {
      const r = LONG.decode(buf, 0) as { value: number; offset: number };
      if (r.offset < 0) return this.fail('a frame too short for its union index');
      index = r.value;
      pos = r.offset;
    } catch (e) {
      return this.fail(`a frame whose union index does not read: ${(e as Error).message}`);
    }
    if (!this.writer) {
      // Before the Hello, only a Hello; it is read with our own Hello, which only grows at its end.
      if (index !== 0) return this.fail(`the first frame is branch ${index}, not Hello`);
      try {
        const r = HELLO.decode(buf, pos) as { value: Frame['body']; offset: number };
        if (r.offset < 0) return this.fail('a truncated Hello');
        this.sink.frame({ kind: 'Hello', body: r.value } as Frame);
      } catch (e) {
        this.fail(`a Hello that does not decode: ${(e as Error).message}`);
      }
      return;
    }
    const b = this.writer.branch(index);
    if (!b) return this.fail(`a frame of branch ${index}, which the peer's own schema does not have`);
    if (!b.reader) return this.sink.unknown(b.name, b.why ?? 'this build does not know that frame');
    // A peer of this schema: its bytes are a view of the frame, which nothing else holds or reuses.
    if (index === STREAM_DATA_BRANCH && b.resolver === undefined) return this.streamData(buf);
    let r: { value: unknown; offset: number };
    try {
      r = b.reader.decode(buf, pos, b.resolver as never) as { value: unknown; offset: number };
    } catch (e) {
      return this.fail(`a ${b.name} frame that does not decode: ${(e as Error).message}`);
    }
    if (r.offset < 0) return this.fail(`a truncated ${b.name} frame`);
    if (r.offset !== buf.length) return this.fail(`a ${b.name} frame with ${buf.length - r.offset} bytes past its end`);
    this.sink.frame({ kind: b.name, body: r.value } as Frame);
  }

  private streamData(buf: Buffer): void {
    let r: { value: { stream: number; length: number }; offset: number };
    try {
      r = STREAM_DATA_HEAD.decode(buf, 0) as typeof r;
    } catch (e) {
      return this.fail(`a StreamData frame that does not decode: ${(e as Error).message}`);
    }
    if (r.offset < 0 || r.value.length < 0 || r.offset + r.value.length > buf.length) return this.fail('a truncated StreamData frame');
    if (r.offset + r.value.length !== buf.length) return this.fail(`a StreamData frame with ${buf.length - r.offset - r.value.length} bytes past its end`);
    this.sink.frame({ kind: 'StreamData', body: { stream: r.value.stream, data: buf.subarray(r.offset) } });
  }
}
