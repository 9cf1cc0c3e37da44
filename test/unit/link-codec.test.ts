// The link codec: length-prefixed Avro frames read against the writer's own schema, one branch at
// a time, so a newer peer's frames read here and a branch this build lacks is reported, not fatal.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import avro from 'avsc';
import { encodeFrame, FrameDecoder, WriterSchema, FrameTooLarge } from '../../link/codec/frames.js';
import { BRANCH_SCHEMAS, FRAME_SCHEMA_JSON, FRAME_FINGERPRINT, NAMESPACE, type Frame } from '../../link/codec/schema.js';
import { LINK_SCHEMAS_KEPT } from '../../link/limits.js';
import { LINK_STREAM_CHUNK_BYTES } from '../../core/limits.js';

const MAX = 1024 * 1024;

function hello(schema = FRAME_SCHEMA_JSON): Frame {
  return { kind: 'Hello', body: { host: 'a', version: 'dev', protocol_min: 1, protocol_max: 1, boot_id: 'b', capabilities: [], schema, fingerprint: '' } };
}

function collect() {
  const frames: Frame[] = [];
  const unknown: string[] = [];
  const errors: string[] = [];
  const dec = new FrameDecoder(MAX, { frame: (f) => frames.push(f), unknown: (b) => unknown.push(b), error: (r) => errors.push(r) });
  return { dec, frames, unknown, errors };
}

/** A schema like ours, changed by `edit` (a newer build's). */
function newerSchema(edit: (branches: Array<Record<string, unknown>>) => void): { json: string; type: avro.Type } {
  const branches = JSON.parse(JSON.stringify(BRANCH_SCHEMAS)) as Array<Record<string, unknown>>;
  edit(branches);
  const type = avro.Type.forSchema(branches as never, { namespace: NAMESPACE });
  return { json: JSON.stringify(type.schema()), type };
}

function framed(type: avro.Type, value: unknown): Buffer {
  const body = type.toBuffer(value);
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

test('frames round-trip, fed one byte at a time', () => {
  const { dec, frames, errors } = collect();
  const bytes = Buffer.concat([
    encodeFrame(hello(), MAX),
    encodeFrame({ kind: 'Ping', body: { t: 42 } }, MAX),
    encodeFrame({ kind: 'AgentDelta', body: { seq: 7, window_id: 'w1', row: null } }, MAX),
    encodeFrame({ kind: 'StreamData', body: { stream: 3, data: Buffer.from([0, 1, 255]) } }, MAX),
  ]);
  let fed = 0;
  for (const b of bytes) {
    dec.push(Buffer.from([b]));
    fed++;
    if (frames.length === 1 && !dec.writer) dec.writer = WriterSchema.fromJson(FRAME_SCHEMA_JSON);
  }
  assert.is(fed, bytes.length);
  assert.equal(errors, []);
  assert.equal(frames.map((f) => f.kind), ['Hello', 'Ping', 'AgentDelta', 'StreamData']);
  assert.is((frames[1]!.body as { t: number }).t, 42);
  assert.equal([...(frames[3]!.body as { data: Buffer }).data], [0, 1, 255]);
});

test('the first frame must be a Hello', () => {
  const { dec, errors } = collect();
  dec.push(encodeFrame({ kind: 'Ping', body: { t: 1 } }, MAX));
  assert.is(errors.length, 1);
  assert.match(errors[0]!, /not Hello/);
});

test('an oversized length, an empty frame and random bytes are errors, and nothing is read after', () => {
  const a = collect();
  const big = Buffer.alloc(4);
  big.writeUInt32BE(0x7fffffff);
  a.dec.push(big);
  assert.match(a.errors[0]!, /over the 1048576-byte limit/);
  a.dec.push(encodeFrame(hello(), MAX));
  assert.is(a.frames.length, 0, 'nothing after an error');

  const b = collect();
  b.dec.push(Buffer.from([0, 0, 0, 0]));
  assert.match(b.errors[0]!, /empty frame/);

  // Random bytes: a length the limit refuses or a body that does not decode, never a throw.
  for (let seed = 1; seed < 200; seed++) {
    const c = collect();
    const junk = Buffer.alloc(64);
    let x = seed * 2654435761;
    for (let i = 0; i < junk.length; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      junk[i] = x >>> 24;
    }
    junk.writeUInt32BE(1 + (seed % 60), 0);
    c.dec.push(junk);
    c.dec.end();
    assert.ok(c.errors.length + c.frames.length >= 1);
  }
});

test('a truncated frame is an error at the end of the stream, and a short body inside its length is too', () => {
  const a = collect();
  const f = encodeFrame(hello(), MAX);
  a.dec.push(f.subarray(0, f.length - 3));
  assert.equal(a.errors, []);
  a.dec.end();
  assert.match(a.errors[0]!, /ended inside a frame/);

  const b = collect();
  b.dec.push(encodeFrame(hello(), MAX));
  b.dec.writer = WriterSchema.fromJson(FRAME_SCHEMA_JSON);
  const ping = encodeFrame({ kind: 'Follow', body: { boot_id: 'abcdef', seq: 9 } }, MAX);
  const cut = Buffer.concat([Buffer.from([0, 0, 0, 4]), ping.subarray(4, 8)]);
  b.dec.push(cut);
  assert.match(b.errors[0]!, /truncated Follow|does not decode/);
});

test('a branch this build does not know is reported by name; the frames after it still read', () => {
  const { json, type } = newerSchema((bs) => bs.push({ type: 'record', name: 'Shiny', fields: [{ name: 'a', type: 'string' }] }));
  const { dec, frames, unknown, errors } = collect();
  dec.push(framed(type, { [`${NAMESPACE}.Hello`]: { ...hello(json).body } }));
  dec.writer = WriterSchema.fromJson(json);
  dec.push(framed(type, { [`${NAMESPACE}.Shiny`]: { a: 'hi' } }));
  dec.push(framed(type, { [`${NAMESPACE}.Ping`]: { t: 3 } }));
  assert.equal(errors, []);
  assert.equal(unknown, ['Shiny']);
  assert.equal(frames.map((f) => f.kind), ['Hello', 'Ping']);
  assert.ok(dec.writer.knows('Ping'));
});

test('a newer field reads on this build; a field this build has and the writer lacks gets its default', () => {
  const newer = newerSchema((bs) => {
    const ping = bs.find((b) => b.name === 'Ping')!;
    (ping.fields as unknown[]).push({ name: 'sent_by', type: 'string', default: '' });
  });
  const a = collect();
  a.dec.push(framed(newer.type, { [`${NAMESPACE}.Hello`]: hello(newer.json).body }));
  a.dec.writer = WriterSchema.fromJson(newer.json);
  a.dec.push(framed(newer.type, { [`${NAMESPACE}.Ping`]: { t: 5, sent_by: 'x'.repeat(40) } }));
  assert.equal(a.errors, []);
  assert.is((a.frames[1]!.body as { t: number }).t, 5);

  const older = newerSchema((bs) => {
    const mail = bs.find((b) => b.name === 'MailAck')!;
    mail.fields = (mail.fields as Array<{ name: string }>).filter((f) => f.name !== 'held_for' && f.name !== 'held');
  });
  const b = collect();
  b.dec.push(framed(older.type, { [`${NAMESPACE}.Hello`]: hello(older.json).body }));
  b.dec.writer = WriterSchema.fromJson(older.json);
  b.dec.push(framed(older.type, { [`${NAMESPACE}.MailAck`]: { id: 'm1', ok: true, code: '', message: '', message_id: 4, thread: 4 } }));
  assert.equal(b.errors, []);
  const ack = b.frames[1]!.body as { held: boolean; held_for: string | null; message_id: number };
  assert.is(ack.held, false);
  assert.is(ack.held_for, null);
  assert.is(ack.message_id, 4);
});

test('a Hello from a newer build, with fields appended, reads', () => {
  const newer = newerSchema((bs) => {
    (bs[0]!.fields as unknown[]).push({ name: 'region', type: 'string', default: '' });
  });
  const { dec, frames, errors } = collect();
  dec.push(framed(newer.type, { [`${NAMESPACE}.Hello`]: { ...hello(newer.json).body, region: 'eu' } }));
  assert.equal(errors, []);
  assert.is((frames[0]!.body as { host: string }).host, 'a');
});

test('a schema that is not ours is refused with a reason', () => {
  assert.throws(() => WriterSchema.fromJson('{nope'), /does not parse/);
  assert.throws(() => WriterSchema.fromJson('"string"'), /not a union/);
  assert.throws(() => WriterSchema.fromJson(JSON.stringify([{ type: 'record', name: 'X', fields: [] }])), /start with Hello/);
  assert.is(WriterSchema.fromJson(FRAME_SCHEMA_JSON).fingerprint, FRAME_FINGERPRINT);
});

test('a schema is parsed once for every peer that sends the same text; past the limit the least recently seen goes', () => {
  const text = (i: number) => newerSchema((bs) => bs.push({ type: 'record', name: `Other${i}`, fields: [] })).json;
  const ours = WriterSchema.fromJson(FRAME_SCHEMA_JSON);
  assert.is(WriterSchema.fromJson(FRAME_SCHEMA_JSON), ours, 'the same text: the schema parsed before');
  // A refused text is refused every time, never kept.
  for (let i = 0; i < 2; i++) assert.throws(() => WriterSchema.fromJson('{nope'), /does not parse/);
  // Ours and LINK_SCHEMAS_KEPT - 1 others fill it, ours the least recently seen; seen again, it stays.
  const first = WriterSchema.fromJson(text(1));
  assert.is.not(first, ours, 'another text: its own');
  for (let i = 2; i < LINK_SCHEMAS_KEPT; i++) WriterSchema.fromJson(text(i));
  assert.is(WriterSchema.fromJson(FRAME_SCHEMA_JSON), ours);
  // One more drops the least recently seen, the first other: it is parsed anew.
  WriterSchema.fromJson(text(LINK_SCHEMAS_KEPT));
  assert.is.not(WriterSchema.fromJson(text(1)), first, 'dropped, parsed again');
  assert.is(WriterSchema.fromJson(FRAME_SCHEMA_JSON), ours, 'ours still kept');
});

test('encoding past the limit throws FrameTooLarge', () => {
  assert.throws(() => encodeFrame({ kind: 'StreamData', body: { stream: 1, data: Buffer.alloc(2048) } }, 1024), (e: unknown) => e instanceof FrameTooLarge);
});

test('a StreamData frame is the bytes avsc writes, and its data reads back as a view of the frame', () => {
  const FRAME = avro.Type.forSchema(BRANCH_SCHEMAS as never, { namespace: NAMESPACE });
  for (const [stream, len] of [[0, 0], [1, 1], [3, 127], [64, 128], [2 ** 31, 32 * 1024 - 32], [2 ** 40, 5]] as const) {
    const data = Buffer.alloc(len);
    for (let i = 0; i < len; i++) data[i] = (i * 7 + stream) & 0xff;
    const ours = encodeFrame({ kind: 'StreamData', body: { stream, data } }, MAX);
    assert.equal(ours, framed(FRAME, { [`${NAMESPACE}.StreamData`]: { stream, data } }), `stream ${stream}, ${len} bytes`);
  }
  const { dec, frames, errors } = collect();
  dec.push(encodeFrame(hello(), MAX));
  dec.writer = WriterSchema.fromJson(FRAME_SCHEMA_JSON);
  // One read holding the whole frame, as an SSH packet does: a fresh buffer, not Node's shared pool.
  const wire = Buffer.alloc(64);
  const frame = encodeFrame({ kind: 'StreamData', body: { stream: 9, data: Buffer.from('abcdef') } }, MAX);
  frame.copy(wire);
  dec.push(wire.subarray(0, frame.length));
  assert.equal(errors, []);
  const body = frames[1]!.body as { stream: number; data: Buffer };
  assert.is(body.stream, 9);
  assert.is(body.data.toString(), 'abcdef');
  wire[frame.length - 6] = 'X'.charCodeAt(0);
  assert.is(body.data.toString(), 'Xbcdef', 'the data is a view of the read, not a copy');
});

test('a full StreamData frame fits one SSH channel packet (32 KB), so a reader takes it from one read', () => {
  for (const stream of [1, 2 ** 31, 2 ** 52]) {
    const f = encodeFrame({ kind: 'StreamData', body: { stream, data: Buffer.alloc(LINK_STREAM_CHUNK_BYTES) } }, MAX);
    assert.ok(f.length <= 32 * 1024, `${f.length} bytes for stream ${stream}`);
  }
});

test('a StreamData frame whose length runs past the frame, or stops short of it, is an error', () => {
  const FRAME = avro.Type.forSchema(BRANCH_SCHEMAS as never, { namespace: NAMESPACE });
  const index = (FRAME as unknown as { types: avro.Type[] }).types.findIndex((t) => t.name === `${NAMESPACE}.StreamData`);
  const LONG = avro.Type.forSchema('long');
  const body = (claimed: number, actual: number) => {
    const b = Buffer.concat([LONG.toBuffer(index), LONG.toBuffer(1), LONG.toBuffer(claimed), Buffer.alloc(actual)]);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(b.length);
    return Buffer.concat([head, b]);
  };
  for (const [claimed, actual, why] of [[10, 4, /truncated StreamData/], [4, 10, /6 bytes past its end/], [-3, 4, /truncated StreamData/]] as const) {
    const { dec, frames, errors } = collect();
    dec.push(encodeFrame(hello(), MAX));
    dec.writer = WriterSchema.fromJson(FRAME_SCHEMA_JSON);
    dec.push(body(claimed, actual));
    assert.is(frames.length, 1, 'only the Hello');
    assert.match(errors[0] ?? '', why);
  }
});

test("a peer whose schema differs still has its StreamData read, through avsc's resolver", () => {
  const { json, type } = newerSchema((b) => b.push({ type: 'record', name: 'Later', fields: [{ name: 'x', type: 'long', default: 0 }] }));
  const { dec, frames, errors } = collect();
  dec.push(encodeFrame(hello(json), MAX));
  dec.writer = WriterSchema.fromJson(json);
  dec.push(framed(type, { [`${NAMESPACE}.StreamData`]: { stream: 4, data: Buffer.from('xyz') } }));
  assert.equal(errors, []);
  assert.is((frames[1]!.body as { data: Buffer }).data.toString(), 'xyz');
});

test.run();
