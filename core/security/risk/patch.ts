// The files a Codex apply_patch names (`*** Add File: p`, `*** Update File: p`, `*** Delete File: p`,
// `*** Move to: p`), for "outside the worktree". On a reported line, newlines are gone, so a path
// ends at a blank or at the next `***`, and one that runs into the cut is only a beginning.

const HEADER = /\*\*\* (?:Add File|Update File|Delete File|Move to): ?/g;

export interface PatchPath {
  value: string;
  partial: boolean;
}

/**
 * `text` is the patch; `line` says it is a one-line report, where `tailCut` means its end is
 * the cut.
 */
export function patchPaths(text: string, line: boolean, tailCut: boolean): PatchPath[] {
  const out: PatchPath[] = [];
  for (const m of text.matchAll(HEADER)) {
    const from = m.index + m[0].length;
    const rest = text.slice(from);
    const stop = line ? /\s|\*\*\*/.exec(rest) : /\n|\*\*\*/.exec(rest);
    const value = (stop ? rest.slice(0, stop.index) : rest).trim();
    if (value === '') continue;
    out.push({ value, partial: stop?.[0] === '***' || (stop === null && tailCut) });
  }
  return out;
}
