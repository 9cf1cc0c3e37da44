// The garbage the risk rules are fed in test/unit/risk.test.ts (never throws, input past a bound
// read only up to it) and in risk.bench.ts (how long the slowest of it takes): random bytes,
// unbalanced quotes, and 100 KB lines of one repeated piece. Deterministic.

/** The pieces a 100 KB line is made of: openers, quotes, separators, nested shells, `rm -rf`. */
export const LONG_UNITS = ['(', ')', '$(', '$((', '"', "'", '`', '${', 'a;', 'a|', 'x ', 'cat <<a\n', 'sh -c "', 'eval ', '>a ', '~', '/a', '"$(', 'cd a/../b && ', 'find . -exec rm {} \\; ', '(`$("\'{', 'rm -rf x && '];

/** Each unit repeated to 100 KB, past the 64 KB a shell line is read to. */
export function longLines(): string[] {
  return LONG_UNITS.map((unit) => unit.repeat(Math.ceil((100 * 1024) / unit.length)));
}

/** 150 random lines up to 4000 characters, then short unbalanced ones. */
export function shortGarbage(): string[] {
  let seed = 42;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const alphabet = ` ;&|<>()$\`"'\\{}~=\n#*!-/.rm-rf`;
  const inputs: string[] = [];
  for (let n = 0; n < 150; n++) {
    const len = 1 + Math.floor(rand() * 4000);
    let s = '';
    for (let i = 0; i < len; i++) s += rand() < 0.6 ? alphabet[Math.floor(rand() * alphabet.length)] : String.fromCharCode(Math.floor(rand() * 0x3000));
    inputs.push(s);
  }
  inputs.push(`echo "unclosed ${'x '.repeat(10)}`, "it's", '$(', '`', '${', '<<', "$'", '"$("', ')))', '(((', '\\', '');
  return inputs;
}

/** Each input as a held Bash call, a reported line, a Write and an apply_patch. */
export function asCalls(s: string): Array<{ tool: string; command: string } | { line: string }> {
  return [{ tool: 'Bash', command: s }, { line: s }, { tool: 'Write', command: s }, { tool: 'apply_patch', command: s }];
}
