// The link's wire types: one Avro union of records, `Frame`. Branch order and names are permanent
// (a changed shape is a new record); a field is added only at the end of a record, with a default,
// so an older peer reading through a resolver skips it and a newer one fills it in. Hello is
// branch 0 forever and only ever grows at its end: it is read before the writer's schema is known.
import avro from 'avsc';

export const NAMESPACE = 'tuios.link';
/** The link protocols this build speaks; a peer must overlap (spec: upgraded one at a time). */
export const PROTOCOL_MIN = 1;
export const PROTOCOL_MAX = 1;
/** What this build can do over a link, told in the Hello. */
export const CAPABILITIES = ['follow', 'mail', 'call', 'stream', 'hold', 'hosted-pane'] as const;

const opt = (type: unknown) => ({ type: ['null', type], default: null });
const str = (name: string, def = '') => ({ name, type: 'string', default: def });
const long = (name: string) => ({ name, type: 'long', default: 0 });
const bool = (name: string, def = false) => ({ name, type: 'boolean', default: def });

const AgentRow = {
  type: 'record',
  name: 'AgentRow',
  fields: [
    str('window_id'),
    str('short_id'),
    str('name'),
    str('session'),
    str('session_id'),
    { name: 'workspace', type: 'int', default: 1 },
    { name: 'harness', ...opt('string') },
    str('state', 'none'),
    str('kind'),
    str('message'),
    { name: 'source', ...opt('string') },
    bool('needs_you'),
    long('state_since'),
    long('completion_seq'),
    bool('finished_unread'),
    { name: 'group', ...opt('string') },
    { name: 'cwd', ...opt('string') },
  ],
};

const ItemRow = {
  type: 'record',
  name: 'ItemRow',
  fields: [
    long('id'),
    str('kind'),
    { name: 'window_id', ...opt('string') },
    { name: 'session_id', ...opt('string') },
    { name: 'session', ...opt('string') },
    { name: 'name', ...opt('string') },
    { name: 'harness', ...opt('string') },
    str('summary'),
    long('opened_at'),
    long('updated_at'),
    { name: 'options', type: { type: 'array', items: 'string' }, default: [] },
    bool('held'),
    bool('unread', true),
  ],
};

/** The branches, in their permanent order. */
export const BRANCH_SCHEMAS = [
  {
    type: 'record',
    name: 'Hello',
    fields: [
      str('host'),
      str('version'),
      { name: 'protocol_min', type: 'int', default: 1 },
      { name: 'protocol_max', type: 'int', default: 1 },
      str('boot_id'),
      { name: 'capabilities', type: { type: 'array', items: 'string' }, default: [] },
      /** The writer's Frame schema (JSON): the reader resolves every later frame against it. */
      str('schema'),
      str('fingerprint'),
    ],
  },
  /** The dialer asks to follow from the last sequence it applied (0 and any boot: a snapshot). */
  { type: 'record', name: 'Follow', fields: [str('boot_id'), long('seq')] },
  { type: 'record', name: 'AgentSnapshot', fields: [str('boot_id'), long('seq'), { name: 'rows', type: { type: 'array', items: AgentRow }, default: [] }, bool('last', true)] },
  { type: 'record', name: 'AgentDelta', fields: [long('seq'), str('window_id'), { name: 'row', ...opt('AgentRow') }] },
  { type: 'record', name: 'InboxSnapshot', fields: [str('boot_id'), long('seq'), { name: 'items', type: { type: 'array', items: ItemRow }, default: [] }, bool('last', true)] },
  { type: 'record', name: 'InboxDelta', fields: [long('seq'), long('item_id'), { name: 'item', ...opt('ItemRow') }] },
  {
    type: 'record',
    name: 'Mail',
    fields: [
      /** The outbox id: a resend after a lost answer is recognised and not delivered twice. */
      str('id'),
      str('to_session'),
      { name: 'to_window', ...opt('string') },
      str('from'),
      str('from_kind'),
      str('subject'),
      str('body'),
      long('sent_at'),
      /** Set by a machine running a hosted pane: the window (on the receiver) it reports as. */
      { name: 'as_window', ...opt('string') },
    ],
  },
  {
    type: 'record',
    name: 'MailAck',
    fields: [str('id'), bool('ok'), str('code'), str('message'), long('message_id'), long('thread'), bool('held'), { name: 'held_for', ...opt('string') }],
  },
  {
    type: 'record',
    name: 'Call',
    fields: [
      long('id'),
      str('verb'),
      /** The verb's params as JSON: the verb's own zod schema validates them on arrival. */
      str('params', '{}'),
      /** The caller on the sending side runs outside every pane there (the sender vouches). */
      bool('outside'),
      /** A hosted pane's report: runs as this window of the receiver, and as nothing else. */
      { name: 'as_window', ...opt('string') },
    ],
  },
  { type: 'record', name: 'Result', fields: [long('id'), bool('ok'), str('result', 'null'), str('error', 'null')] },
  /**
   * window: the bytes the opener takes before it grants more with StreamCredit (0, an older
   * opener's default: it grants none, and the server sends as its link takes them).
   */
  { type: 'record', name: 'StreamOpen', fields: [long('stream'), str('kind'), str('params', '{}'), long('window')] },
  { type: 'record', name: 'StreamData', fields: [long('stream'), { name: 'data', type: 'bytes', default: '' }] },
  { type: 'record', name: 'StreamClose', fields: [long('stream'), str('reason')] },
  { type: 'record', name: 'Ping', fields: [long('t')] },
  { type: 'record', name: 'Pong', fields: [long('t')] },
  /** The answer to a frame whose branch the reader does not know: the link goes on. */
  { type: 'record', name: 'Unsupported', fields: [str('branch'), str('reason')] },
  { type: 'record', name: 'Bye', fields: [str('reason')] },
  /**
   * A word about an open stream besides its bytes, either way: a hosted pane's resize, pause,
   * resume and kill from the opener; its start and exit from the server. Params are JSON.
   */
  { type: 'record', name: 'StreamControl', fields: [long('stream'), str('op'), str('params', '{}')] },
  /**
   * The opener read `bytes` more of a stream it opened with a window: the server may send that
   * many more. Only sent to a peer whose schema has it, which also reads StreamOpen's window.
   */
  { type: 'record', name: 'StreamCredit', fields: [long('stream'), long('bytes')] },
] as const;

export type BranchName = (typeof BRANCH_SCHEMAS)[number]['name'];

export function frameTypeOf(schemas: readonly unknown[]): avro.Type {
  return avro.Type.forSchema(schemas as unknown as avro.Schema, { namespace: NAMESPACE });
}

export const FRAME_TYPE = frameTypeOf(BRANCH_SCHEMAS);
export const FRAME_SCHEMA_JSON = JSON.stringify(FRAME_TYPE.schema());
export const FRAME_FINGERPRINT = FRAME_TYPE.fingerprint('sha256').toString('hex');

// ---- the TypeScript shape of each branch ----

export interface AgentRow {
  window_id: string;
  short_id: string;
  name: string;
  session: string;
  session_id: string;
  workspace: number;
  harness: string | null;
  state: string;
  kind: string;
  message: string;
  source: string | null;
  needs_you: boolean;
  state_since: number;
  completion_seq: number;
  finished_unread: boolean;
  group: string | null;
  cwd: string | null;
}

export interface ItemRow {
  id: number;
  kind: string;
  window_id: string | null;
  session_id: string | null;
  session: string | null;
  name: string | null;
  harness: string | null;
  summary: string;
  opened_at: number;
  updated_at: number;
  options: string[];
  held: boolean;
  unread: boolean;
}

export interface Bodies {
  Hello: { host: string; version: string; protocol_min: number; protocol_max: number; boot_id: string; capabilities: string[]; schema: string; fingerprint: string };
  Follow: { boot_id: string; seq: number };
  AgentSnapshot: { boot_id: string; seq: number; rows: AgentRow[]; last: boolean };
  AgentDelta: { seq: number; window_id: string; row: AgentRow | null };
  InboxSnapshot: { boot_id: string; seq: number; items: ItemRow[]; last: boolean };
  InboxDelta: { seq: number; item_id: number; item: ItemRow | null };
  Mail: { id: string; to_session: string; to_window: string | null; from: string; from_kind: string; subject: string; body: string; sent_at: number; as_window: string | null };
  MailAck: { id: string; ok: boolean; code: string; message: string; message_id: number; thread: number; held: boolean; held_for: string | null };
  Call: { id: number; verb: string; params: string; outside: boolean; as_window: string | null };
  Result: { id: number; ok: boolean; result: string; error: string };
  /** window: 0 when the opener grants no credit; a frame read here always has it (its default). */
  StreamOpen: { stream: number; kind: string; params: string; window?: number };
  StreamData: { stream: number; data: Buffer };
  StreamClose: { stream: number; reason: string };
  Ping: { t: number };
  Pong: { t: number };
  Unsupported: { branch: string; reason: string };
  Bye: { reason: string };
  StreamControl: { stream: number; op: string; params: string };
  StreamCredit: { stream: number; bytes: number };
}

export type Frame = { [K in BranchName]: { kind: K; body: Bodies[K] } }[BranchName];
