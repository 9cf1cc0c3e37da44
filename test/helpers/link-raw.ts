// A link spoken by hand, for the tests that send it what a real peer never would: a frame decoder
// on any byte stream (the link socket, the SSH subsystem, `tuios link-serve --stdio`), Hello with
// a schema of the test's choosing, and frames from a schema edited to be newer.
import avro from 'avsc';
import type { Duplex } from 'node:stream';
import { FrameDecoder, WriterSchema } from '../../link/codec/frames.js';
import { BRANCH_SCHEMAS, FRAME_SCHEMA_JSON, NAMESPACE, type Frame } from '../../link/codec/schema.js';

/** The link's frame limit (LINK_MAX_FRAME_BYTES). */
export const MAX = 1024 * 1024;

export interface RawLink {
  s: Duplex;
  frames: Frame[];
  closed: Promise<void>;
  isClosed(): boolean;
}

export function rawLink(s: Duplex): RawLink {
  const frames: Frame[] = [];
  const dec = new FrameDecoder(MAX, {
    frame: (f) => {
      frames.push(f);
      if (f.kind === 'Hello') dec.writer = WriterSchema.fromJson(FRAME_SCHEMA_JSON);
    },
    unknown: () => undefined,
    error: () => undefined,
  });
  let closed = false;
  s.on('data', (d: Buffer) => dec.push(d));
  s.on('error', () => undefined);
  const done = new Promise<void>((r) => s.once('close', () => ((closed = true), r())));
  return { s, frames, closed: done, isClosed: () => closed };
}

export function schemaWith(edit: (bs: Array<Record<string, unknown>>) => void): { json: string; type: avro.Type } {
  const bs = JSON.parse(JSON.stringify(BRANCH_SCHEMAS)) as Array<Record<string, unknown>>;
  edit(bs);
  const type = avro.Type.forSchema(bs as never, { namespace: NAMESPACE });
  return { json: JSON.stringify(type.schema()), type };
}

export function framed(type: avro.Type, branch: string, body: unknown): Buffer {
  const b = type.toBuffer({ [`${NAMESPACE}.${branch}`]: body });
  const h = Buffer.alloc(4);
  h.writeUInt32BE(b.length);
  return Buffer.concat([h, b]);
}

export function hello(schema: string, host = 'prober') {
  return { host, version: 'test', protocol_min: 1, protocol_max: 1, boot_id: 'probe', capabilities: [], schema, fingerprint: '' };
}

