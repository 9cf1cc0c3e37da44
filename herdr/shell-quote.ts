// The command line agent.start types at a pane's shell prompt (spec: herdr compatibility, the
// paragraph on agent.start): each argument quoted for the pane's shell, sh, bash, zsh and the
// other POSIX shells, or fish. In any other shell an argument that needs quoting cannot be typed
// safely, and the answer is null. A control character is never typed, in any shell.

const POSIX = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'busybox', 'rbash', 'yash', 'posh']);

/** An argument every shell reads as itself. */
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

function posixQuote(a: string): string {
  return `'${a.replaceAll("'", `'\\''`)}'`;
}

function fishQuote(a: string): string {
  // Inside fish's single quotes only \\ and \' are escapes.
  return `'${a.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/** The shell's name from its program or argv[0]: the base name, a login shell's `-` taken off. */
export function shellName(program: string): string {
  return (program.split('/').pop() ?? '').replace(/^-/, '');
}

/** The line to type for argv in the named shell, or null when it cannot be quoted there. */
export function commandLine(argv: string[], shell: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (argv.some((a) => /[\x00-\x1f\x7f]/.test(a))) return null;
  const quote = POSIX.has(shell) ? posixQuote : shell === 'fish' ? fishQuote : null;
  const out: string[] = [];
  for (const a of argv) {
    if (a !== '' && PLAIN.test(a)) out.push(a);
    else if (quote) out.push(quote(a));
    else return null;
  }
  return out.join(' ');
}
