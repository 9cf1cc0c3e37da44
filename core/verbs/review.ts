// The review verbs (spec: Reviewing an agent's changes): review-diff (what the agent in a pane
// changed against its base, per file, or what one turn changed, with the notes under their lines),
// review-note (notes on FILE:LINE kept per pane) and send-review (the notes typed into the agent as
// one message when it rests, through the delivery queue). `tuios review [SESSION]`,
// `tuios review note FILE:LINE 'TEXT'`, `tuios review notes`, `tuios review send`.
import { z } from 'zod';
import { defineVerb } from '../rpc/verb.js';
import { TuiosError } from '../errors.js';
import { enforce, paneOf } from '../security/access.js';
import { grantsOf } from '../security/grants.js';
import { isReady } from '../agent-state/state.js';
import type { Services } from '../daemon/services.js';
import type { Caller } from '../rpc/caller.js';
import type { Window } from '../model/window.js';
import { baseFor, paneRepo, reviewPane, sameFan, agentPaneOf } from '../review/target.js';
import { diffAgainstBase, diffAttempts, perFile, placeNotes, sideLines, type ReviewDiff } from '../review/diff.js';
import { parsePlace } from '../review/place.js';
import { composeReview, quoteLine, type MessageNote } from '../review/message.js';
import { hunkKey, hunkRange, parseHunks } from '../review/patch.js';
import { worktreeOf } from '../git/fleet.js';
import type { Note } from '../review/notes.js';
import { git } from '../git/run.js';

const refParams = {
  session: z.string().min(1).max(300).optional().describe('The session: its agent pane is reviewed (-s)'),
  window: z.string().min(1).max(300).optional().describe('The pane (-w); default: your own pane, else the session\'s agent pane'),
};
const nonceParam = z.string().max(128).optional().describe('The attach nonce (acting as the person)');

const noteSchema = z.object({
  id: z.string(),
  window_id: z.string(),
  file: z.string(),
  side: z.enum(['new', 'old']),
  line: z.number().int().nullable(),
  hunk: z.string().nullable(),
  quote: z.string(),
  text: z.string(),
  author: z.string(),
  author_name: z.string(),
  outdated: z.boolean(),
  sent_at: z.number().nullable(),
  created_at: z.number(),
  updated_at: z.number(),
});
/** A note as the review verbs answer it (the client's overlay reads this type). */
export type NoteJson = z.infer<typeof noteSchema>;

const fileSchema = z.object({
  path: z.string(),
  status: z.string(),
  added: z.number().int().nullable(),
  deleted: z.number().int().nullable(),
  binary: z.boolean(),
  changed: z.boolean(),
  patch: z.string().nullable(),
  why: z.enum(['binary', 'too_long', 'past_limit', 'stat']).nullable(),
});

function noteJson(n: Note, placed?: { line: number | null; outdated: boolean; hunk: string | null }): NoteJson {
  return {
    id: n.id,
    window_id: n.window_id,
    file: n.file,
    side: n.side,
    line: placed ? placed.line : n.line,
    hunk: placed?.hunk ?? n.hunk,
    quote: n.quote,
    text: n.text,
    author: n.author,
    author_name: n.author_name,
    outdated: placed?.outdated ?? false,
    sent_at: n.sent_at,
    created_at: n.created_at,
    updated_at: n.updated_at,
  };
}

/** Who writes or sends, as the connection proves it: human, a pane's id, link:HOST, or shell. */
function whoReviews(svc: Services, caller: Caller, nonce: string | undefined): { by: string; name: string } {
  if (caller.channel === 'link') return { by: `link:${caller.host ?? '?'}`, name: `a caller on ${caller.host ?? 'a linked host'}` };
  const p = svc.placement(caller);
  if (p.kind === 'outside') return svc.person.verifies(caller, p, nonce) ? { by: 'human', name: 'the person' } : { by: 'shell', name: 'a script' };
  const w = paneOf(svc, caller).window;
  return { by: w?.id ?? 'pane', name: `pane ${w?.name || w?.id.slice(0, 12) || '?'}` };
}

/** You any note; a pane or a linked machine only its own; a shell every note but yours. */
function mayChange(by: string, n: Note): boolean {
  if (by === 'human') return true;
  if (by === 'shell') return n.author !== 'human';
  return n.author === by;
}

/** Read access in the pane's reach (its own session and fan group for a pane without admin). */
function checkRead(svc: Services, caller: Caller, verb: string, w: Window): void {
  enforce(svc, caller, { verb, access: 'read', target: null, sessionId: w.sessionId });
}

/** Write, in reach, into a pane the caller could type into (it holds nothing the caller does not). */
function checkWrite(svc: Services, caller: Caller, verb: string, w: Window, blocked: boolean): void {
  enforce(svc, caller, { verb, access: 'write', target: w, sessionId: w.sessionId, types: true, blockedCheck: blocked });
}

const diffResult = z.object({
  window_id: z.string(),
  pane: z.string(),
  session: z.string(),
  repo: z.string(),
  base: z.string(),
  base_commit: z.string().nullable(),
  from: z.string().nullable(),
  /** A turn's slice: the checkpoint it is. */
  turn: z.number().int().nullable(),
  against: z.string().nullable(),
  files: z.array(fileSchema),
  added: z.number().int(),
  deleted: z.number().int(),
  truncated: z.boolean(),
  skipped: z.array(z.object({ path: z.string(), bytes: z.number().int().nullable() })),
  commits: z.number().int(),
  notes: z.array(noteSchema),
  untrusted: z.literal(true),
});
/** review-diff's answer (the client's overlay reads this type). */
export type DiffResult = z.infer<typeof diffResult>;
export type DiffFileJson = z.infer<typeof fileSchema>;

function printDiff(r: DiffResult): string {
  const head = `${r.session} (${r.pane}): ${r.files.filter((f) => f.changed).length} files, +${r.added} -${r.deleted} against ${r.against ?? (r.turn !== null ? `turn ${r.turn - 1 || 'HEAD'}` : r.base)}${r.truncated ? ' (truncated)' : ''}; ${r.notes.length} note${r.notes.length === 1 ? '' : 's'}`;
  const out = [head];
  for (const f of r.files) {
    out.push('', `${f.status || ' '} ${f.path}  ${f.added === null ? 'binary' : `+${f.added} -${f.deleted}`}${f.why && f.why !== 'stat' ? ` (${f.why === 'binary' ? 'binary: counts only' : 'past the diff\'s limits: counts only'})` : ''}`);
    const notes = r.notes.filter((n) => n.file === f.path);
    for (const n of notes.filter((x) => x.outdated)) out.push(`  [outdated note ${n.id}] on "${quoteLine(n.quote)}": ${quoteLine(n.text, 400)}`);
    if (!f.patch) {
      for (const n of notes.filter((x) => !x.outdated)) out.push(`  [note ${n.id}] line ${n.line}: ${quoteLine(n.text, 400)}`);
      continue;
    }
    const placed = notes.filter((x) => !x.outdated);
    for (const h of parseHunks(f.patch)) {
      out.push(quoteLine(h.header, 400));
      const last = h.lines[h.lines.length - 1];
      for (const l of h.lines) {
        out.push(`${l.kind}${quoteLine(l.text, 2000)}`);
        for (const n of placed) {
          const on = n.hunk ? l === last && hunkKey(n.hunk) === hunkKey(h.header) : n.side === 'old' ? l.old === n.line && l.kind === '-' : l.new === n.line;
          if (on) out.push(`    >> [note ${n.id}${n.author === 'human' ? '' : ` by ${n.author_name}`}] ${quoteLine(n.text, 400)}`);
        }
      }
    }
  }
  return out.join('\n');
}

export const reviewDiff = defineVerb({
  name: 'review-diff',
  summary: 'What the agent in a pane changed against its base, file by file, with the review notes under their lines',
  help: 'The pane\'s repository: its session\'s worktree when the pane is in it, else the repository of the pane\'s folder. The base: --base; else the base the worktree was made from; else the merge base with the branch\'s upstream; else HEAD (uncommitted work only); --uncommitted asks for HEAD. Committed and uncommitted work together, untracked files included (U). --turn N is what turn N changed (its checkpoint against the one before). --against SESSION diffs two attempts of one fan with each other. Caps: 400 files, 2 MiB of text, 5000 lines in one file (counts only past them), 10 s of git. The answer is the repository\'s text and people\'s notes: untrusted. HOST:SESSION is refused: review on that machine, or worktree pull the work here.',
  target: 'none',
  mutates: false,
  hostRefs: true,
  link: { untargeted: true, right: 'write' },
  cli: { positionals: ['session'], aliases: ['review'], subcommands: { note: 'review-note', notes: 'review-note', send: 'send-review' }, usage: 'review [SESSION] [-w WINDOW] [--base REF | --uncommitted | --turn N | --against SESSION] [--stat]' },
  params: z.object({
    ...refParams,
    base: z.string().min(1).max(200).optional().describe('Diff from this base (its merge base with HEAD)'),
    uncommitted: z.boolean().optional().describe('Only what is not committed (against HEAD)'),
    turn: z.number().int().min(1).optional().describe('What turn N changed, from the pane\'s checkpoints'),
    against: z.string().min(1).max(300).optional().describe('Another attempt of the same fan, diffed with this one'),
    stat: z.boolean().optional().describe('Counts only, no patch'),
  }),
  result: diffResult,
  print: printDiff,
  async run({ params, svc, caller, signal, remote }) {
    // Reviewing a linked machine's session is not supported: refused before anything is dialled.
    if (remote) throw new TuiosError('unsupported', `Reviewing a session on ${remote.host} is not supported yet.`, `Attach to ${remote.host} and review there, or bring the work here with: tuios worktree pull ${remote.host}:${remote.session ?? 'SESSION'}`);
    const w = reviewPane(svc, caller, params, 'review-diff');
    checkRead(svc, caller, 'review-diff', w);
    const pr = await paneRepo(svc, w, signal);
    const patch = !params.stat;
    // An untracked file past [agents.checkpoints] max_untracked_mb is never read: listed as skipped.
    const maxUntrackedBytes = svc.checkpoints.options().maxUntrackedBytes;
    let d: ReviewDiff;
    let base = await baseFor(pr, { base: params.base, uncommitted: params.uncommitted, signal });
    let against: string | null = null;
    if (params.turn !== undefined) {
      const c = await svc.checkpoints.store.diff(svc.checkpoints.dirOf(w), w.id, params.turn, null, { signal });
      const pf = perFile(c.files, c.patch, c.truncated, patch);
      d = { from: c.from, files: pf.files, added: c.added, deleted: c.deleted, truncated: pf.truncated, skipped: [], commits: 0 };
      base = { label: c.from_n === null ? 'HEAD then' : `checkpoint ${c.from_n}`, commit: c.from, source: 'named' };
    } else if (params.against !== undefined) {
      const other = svc.model.findSession(params.against);
      if (!sameFan(pr.session, other)) throw new TuiosError('invalid_params', `${other.name} is not another attempt of ${pr.session.name}'s fan.`, 'Name a session of the same fan group (tuios worktree ls --group GROUP).', { field: 'against' });
      checkRead(svc, caller, 'review-diff', agentPaneOf(svc, other) ?? w);
      const owt = worktreeOf(other);
      if (!owt) throw new TuiosError('not_repo', `${other.name} is not in a worktree tuios made.`);
      d = await diffAttempts(pr.top, owt.path, { signal, patch, maxUntrackedBytes });
      against = other.name;
    } else {
      d = await diffAgainstBase(pr.top, base.commit, { signal, patch, maxUntrackedBytes });
    }
    // Notes are offered on the pane's own changes, not on a comparison of two attempts.
    const mine = against ? [] : svc.reviews.ofWindow(w.id);
    const placed = await placeNotes(pr.top, d.from, mine, d.files, signal);
    for (const p of placed) if (!p.outdated) svc.reviews.place(p.note.id, p.line, p.note.hunk ? p.hunk : null);
    // A file no longer changed that still has notes is listed, so its notes can be read and resolved.
    const files = [...d.files];
    for (const n of mine) if (!files.some((f) => f.path === n.file)) files.push({ path: n.file, status: '', added: 0, deleted: 0, binary: false, changed: false, patch: null, why: null });
    return {
      window_id: w.id,
      pane: w.name || w.id.slice(0, 12),
      session: pr.session.name,
      repo: pr.top,
      base: base.label,
      base_commit: base.commit,
      from: d.from,
      turn: params.turn ?? null,
      against,
      files,
      added: d.added,
      deleted: d.deleted,
      truncated: d.truncated,
      skipped: d.skipped,
      commits: d.commits,
      notes: placed.map((p) => noteJson(p.note, p)),
      untrusted: true as const,
    };
  },
});

const noteResult = z.object({
  window_id: z.string(),
  /** The note added or edited. */
  note: noteSchema.nullable(),
  notes: z.array(noteSchema),
  removed: z.number().int(),
  /** clear: the notes kept because the caller may not remove them. */
  kept: z.number().int(),
});

export const reviewNote = defineVerb({
  name: 'review-note',
  summary: 'A review note on FILE:LINE of a pane\'s changes (or on a hunk); with no place, the pane\'s notes',
  help: 'A note sits on a line of the new side (FILE:LINE), on a removed line with --side old (numbered as in the base), or on a whole hunk (FILE with --hunk HEADER). It keeps the text of its line (--quote, else read from the file), so each review finds the line again. At most 200 notes on a worktree and 1000 bytes each. --id N with TEXT edits a note, --id N --remove removes it, --clear removes every note you may remove and says how many it kept. You change any note; a pane or a linked machine only its own; a shell every note but yours. From a pane it needs write, in its reach, on a pane it could type into.',
  target: 'window',
  mutates: true,
  // Listing needs read; adding, editing and removing check write in the handler.
  access: 'read',
  cli: { positionals: ['at', 'text'], usage: "review note [-s SESSION|-w WINDOW] FILE:LINE 'TEXT' [--side old] [--hunk HEADER] | review note --id N ['TEXT'|--remove] | review note --clear | review notes" },
  params: z.object({
    ...refParams,
    at: z.string().min(1).max(4200).optional().describe('FILE:LINE, or FILE with --hunk'),
    text: z.string().max(4000).optional().describe('The note'),
    side: z.enum(['new', 'old']).optional().describe('old: a removed line, numbered as in the base'),
    hunk: z.string().max(500).optional().describe('A hunk header (@@ -a,b +c,d @@): a note on the whole hunk'),
    quote: z.string().max(2000).optional().describe('The text of the line (default: read from the file)'),
    id: z.string().max(32).optional().describe('The note to edit or remove'),
    remove: z.boolean().optional().describe('Remove the note --id names'),
    clear: z.boolean().optional().describe('Remove every note of the pane you may remove'),
    nonce: nonceParam,
  }),
  result: noteResult,
  print: (r) => {
    if (r.note) return `${r.note.id} ${r.note.file}:${r.note.line ?? r.note.hunk}`;
    if (r.removed || r.kept) return `removed ${r.removed}${r.kept ? `, kept ${r.kept} you may not remove` : ''}`;
    if (!r.notes.length) return 'no notes';
    return r.notes.map((n) => `${n.id} ${n.file}:${n.line ?? n.hunk}${n.sent_at ? ' (sent)' : ''}  ${quoteLine(n.text, 200)}${n.author === 'human' ? '' : `  (by ${n.author_name})`}`).join('\n');
  },
  async run({ params, svc, caller, window, signal }) {
    // -s alone names the session's agent pane, not whichever window is focused there.
    const w = params.window === undefined && params.session !== undefined ? reviewPane(svc, caller, params, 'review-note') : window!;
    if (w.host) reviewPane(svc, caller, { window: w.id }, 'review-note');
    const who = whoReviews(svc, caller, params.nonce);
    const list = () => svc.reviews.ofWindow(w.id).map((n) => noteJson(n));
    if (params.clear) {
      checkWrite(svc, caller, 'review-note', w, false);
      const all = svc.reviews.ofWindow(w.id);
      const mine = all.filter((n) => mayChange(who.by, n));
      const removed = svc.reviews.remove(mine.map((n) => n.id));
      return { window_id: w.id, note: null, notes: list(), removed, kept: all.length - mine.length };
    }
    if (params.id !== undefined) {
      const n = svc.reviews.get(params.id);
      if (n.window_id !== w.id) throw new TuiosError('not_found', `The note ${params.id} is not on ${w.name}.`, 'List its notes with: tuios review notes -w ' + w.shortId);
      if (!mayChange(who.by, n)) throw new TuiosError('forbidden', `The note ${n.id} was written by ${n.author_name}; you may change only the notes you wrote.`, 'The person may change any note.');
      if (params.remove) checkWrite(svc, caller, 'review-note', w, false);
      if (params.remove) return { window_id: w.id, note: null, notes: (svc.reviews.remove([n.id]), list()), removed: 1, kept: 0 };
      if (params.text === undefined) throw new TuiosError('invalid_params', 'Editing a note needs its new TEXT (or --remove).', undefined, { field: 'text' });
      checkWrite(svc, caller, 'review-note', w, false);
      return { window_id: w.id, note: noteJson(svc.reviews.edit(n.id, params.text, who.by, who.name)), notes: list(), removed: 0, kept: 0 };
    }
    if (params.at === undefined) {
      checkRead(svc, caller, 'review-note', w);
      return { window_id: w.id, note: null, notes: list(), removed: 0, kept: 0 };
    }
    if (params.text === undefined) throw new TuiosError('invalid_params', 'A note needs its TEXT.', "tuios review note FILE:LINE 'TEXT'", { field: 'text' });
    checkWrite(svc, caller, 'review-note', w, false);
    const place = parsePlace(params.at, params.hunk);
    const side = params.side ?? 'new';
    const pr = await paneRepo(svc, w, signal);
    let quote = params.quote;
    if (quote === undefined && place.line !== null) {
      const from = side === 'old' ? (await diffBaseFrom(pr, signal)) : null;
      const lines = await sideLines(pr.top, place.file, side, from, signal);
      if (!lines) throw new TuiosError('not_found', `${place.file} cannot be read on the ${side} side.`, side === 'new' ? 'Is the file still there? A removed line takes --side old.' : 'The base has no such file.', { field: 'at' });
      if (place.line > lines.length) throw new TuiosError('invalid_params', `${place.file} has ${lines.length} lines on the ${side} side.`, undefined, { field: 'at' });
      quote = lines[place.line - 1]!;
    }
    const n = svc.reviews.add({ window_id: w.id, top: pr.top, file: place.file, side, line: place.line, hunk: place.line === null ? params.hunk! : null, quote: quote ?? params.hunk ?? '', text: params.text, author: who.by, author_name: who.name });
    return { window_id: w.id, note: noteJson(n), notes: list(), removed: 0, kept: 0 };
  },
});

/** The commit the old side of the pane's default diff reads (its merge base with HEAD). */
async function diffBaseFrom(pr: Awaited<ReturnType<typeof paneRepo>>, signal?: AbortSignal): Promise<string | null> {
  const b = await baseFor(pr, { signal });
  if (!b.commit) return (await git(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { cwd: pr.top, signal, okCodes: [0, 1] })).stdout.toString().trim() || null;
  return (await git(['merge-base', b.commit, 'HEAD'], { cwd: pr.top, signal, okCodes: [0, 1] })).stdout.toString().trim() || b.commit;
}

/** Why a note is withheld now (its author's authority as it is), or null when it may be sent. */
function withheldWhy(svc: Services, n: Note, target: Window): string | null {
  if (n.author === 'human' || n.author === 'shell' || n.author.startsWith('link:')) return null;
  const author = svc.model.windows.get(n.author);
  if (!author) return `its author, ${n.author_name}, is gone`;
  if (author.id === target.id) return null;
  const mine = grantsOf(author, svc.permissions.current).grants;
  if (mine.has('admin')) return null;
  const more = [...grantsOf(target, svc.permissions.current).grants].filter((g) => !mine.has(g));
  return more.length ? `its author, ${n.author_name}, may not type into ${target.name} now (it holds ${more.join(', ')})` : null;
}

export const sendReview = defineVerb({
  name: 'send-review',
  summary: 'Send a pane\'s review notes to its agent as one message, typed when it comes to rest',
  help: 'The unsent notes (or those --ids names) go as one message through the delivery queue: typed now if the agent is at rest, else when it next is, never over a prompt. --now sends only when the agent is at rest with nothing queued (else not_ready or agent_blocked). A note by someone who may not type into the pane now (a pane holding less, or gone) is withheld, not sent. Past 16 KiB the message is refused: send fewer with --ids. The message says who sent it: the person only with the attach nonce of a client attached now.',
  target: 'window',
  mutates: true,
  types: true,
  cli: { comma: ['ids'], usage: 'review send [-s SESSION|-w WINDOW] [--ids n1,n2] [--now]' },
  params: z.object({
    ...refParams,
    ids: z.array(z.string().max(32)).max(200).optional().describe('These notes, sent before or not'),
    now: z.boolean().optional().describe('Only when the agent is at rest with nothing queued'),
    nonce: nonceParam,
  }),
  result: z.object({
    window_id: z.string(),
    queued: z.string(),
    position: z.number().int(),
    sent: z.array(z.string()),
    withheld: z.array(z.object({ id: z.string(), why: z.string() })),
    by: z.string(),
    bytes: z.number().int(),
  }),
  print: (r) => `queued ${r.queued} for the agent (${r.sent.length} note${r.sent.length === 1 ? '' : 's'}${r.withheld.length ? `; withheld ${r.withheld.map((x) => `${x.id}: ${x.why}`).join('; ')}` : ''})`,
  async run({ params, svc, caller, window, signal }) {
    const w = params.window === undefined && params.session !== undefined ? reviewPane(svc, caller, params, 'send-review') : window!;
    if (w.host) reviewPane(svc, caller, { window: w.id }, 'send-review');
    checkWrite(svc, caller, 'send-review', w, true);
    const who = whoReviews(svc, caller, params.nonce);
    const all = svc.reviews.ofWindow(w.id);
    const chosen = params.ids ? params.ids.map((id) => all.find((n) => n.id === id) ?? svc.reviews.get(id)) : all.filter((n) => n.sent_at === null);
    for (const n of chosen) if (n.window_id !== w.id) throw new TuiosError('not_found', `The note ${n.id} is not on ${w.name}.`, undefined, { field: 'ids' });
    const withheld: Array<{ id: string; why: string }> = [];
    const go = chosen.filter((n) => {
      const why = withheldWhy(svc, n, w);
      if (why) withheld.push({ id: n.id, why });
      return !why;
    });
    if (!go.length) throw new TuiosError('not_found', withheld.length ? `Every note chosen is withheld: ${withheld.map((x) => `${x.id}: ${x.why}`).join('; ')}.` : `${w.name} has no unsent review notes.`, withheld.length ? 'Edit a withheld note to make it yours, or remove it.' : "Add one with: tuios review note FILE:LINE 'TEXT'", { withheld });
    if (params.now) {
      const state = svc.agents.stateOf(w);
      if (state === 'needs_input') throw new TuiosError('agent_blocked', `${w.name} is waiting on a prompt; the notes were not sent.`, 'Answer it first, or send without --now to have them typed at its next rest.');
      if (!isReady(state) || svc.queue.count(w) > 0) throw new TuiosError('not_ready', `${w.name} is ${state}${svc.queue.count(w) ? ' with messages queued' : ''}; --now sends only to an agent at rest.`, 'Send without --now to have them typed at its next rest.');
    }
    const pr = await paneRepo(svc, w, signal).catch(() => null);
    const base = pr ? await baseFor(pr, { signal }).catch(() => null) : null;
    // Notes placed where their lines are now, so the message names today's line numbers.
    const placed = pr ? await placeNotes(pr.top, null, go.filter((n) => !n.hunk), [], signal) : [];
    const lineOf = new Map(placed.map((p) => [p.note.id, p.line]));
    const notes: MessageNote[] = go.map((n) => {
      const h = n.hunk ? parseHunks(n.hunk + '\n') : [];
      return {
        file: n.file,
        line: n.hunk ? null : (lineOf.get(n.id) ?? n.line),
        side: n.side,
        hunk: n.hunk,
        range: h[0] ? hunkRange(h[0]) : null,
        quote: n.quote,
        text: n.text,
        otherAuthor: n.author === who.by ? null : n.author_name,
      };
    });
    const text = composeReview({ base: base?.label ?? 'HEAD', sender: who.name, notes });
    const m = svc.queue.add(w, text, who.by, who.by === 'human' ? null : caller);
    svc.reviews.markSent(go.map((n) => n.id));
    return { window_id: w.id, queued: m.id, position: svc.queue.list(w).indexOf(m) + 1, sent: go.map((n) => n.id), withheld, by: who.by, bytes: Buffer.byteLength(text) };
  },
});
