// How deep a request's JSON nests, read before it is parsed. V8 parses any depth that fits a
// line (a 1 MB line nests 400k arrays), but the native memory such a parse takes is not given
// back to the system afterwards: each deep line left the daemon 20-40 MB larger (issue 26's
// attack suite, test/fuzz/verb-socket). No verb takes more than a few levels, so a line nested
// past MAX_JSON_DEPTH is refused before the parser sees it.

/** True when `text`, read as JSON, nests arrays and objects deeper than `limit`. */
export function jsonNestsDeeper(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      if (++depth > limit) return true;
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return false;
}
