// The shell splitter the risk rules read calls through: what runs, under what, and in which folder.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { splitShell, type SplitOptions } from '../../core/security/risk/shell.js';
import { HOME, VAR, type SimpleCommand } from '../../core/security/risk/words.js';

const at = { cwd: '/home/u/proj', home: '/home/u' };
const split = (line: string, o: SplitOptions = at) => splitShell(line, o);
const argvs = (line: string, o: SplitOptions = at) => split(line, o).commands.map((c) => c.words.map((w) => w.value));
const find = (line: string, program: string, o: SplitOptions = at): SimpleCommand => {
  const c = split(line, o).commands.find((x) => x.program === program);
  assert.ok(c, `${program} in ${line}`);
  return c!;
};
const cwdOf = (line: string, program: string, o: SplitOptions = at) => find(line, program, o).cwd;

test('splits on ; && || | & and newlines', () => {
  assert.equal(argvs('a 1; b 2 && c || d | e & f\ng'), [['a', '1'], ['b', '2'], ['c'], ['d'], ['e'], ['f'], ['g']]);
});

test('quotes are removed and expansions kept as a marker', () => {
  assert.equal(argvs(`echo 'a b' "c $X d" e\\ f $'g\\th'`), [['echo', 'a b', `c ${VAR} d`, 'e f', 'g\th']]);
  assert.equal(argvs('echo $HOME/x ${HOME}/y ~/z ~ ~bob/w'), [['echo', `${HOME}/x`, `${HOME}/y`, `${HOME}/z`, HOME, `${VAR}/w`]]);
  assert.equal(argvs('echo "~/x" a=~/b'), [['echo', '~/x', `a=${HOME}/b`]], 'a quoted tilde is literal; one after = is the home folder');
});

test('the words before a command are skipped: if true; then rm -rf x; fi reads as rm', () => {
  assert.equal(argvs('if true; then rm -rf x; fi'), [['true'], ['rm', '-rf', 'x']]);
  assert.equal(argvs('while ! false; do { rm -rf y; }; done'), [['false'], ['rm', '-rf', 'y']]);
  assert.equal(argvs('for f in a b; do rm "$f"; done'), [['rm', VAR]], 'the for line itself runs nothing');
  assert.is(find('then rm -rf x', 'rm').text, 'rm -rf x', 'the text starts at the command');
});

test('(cd build && rm -rf out) reads as rm, in build', () => {
  assert.equal(argvs('(cd build && rm -rf out)'), [['cd', 'build'], ['rm', '-rf', 'out']]);
  assert.is(cwdOf('(cd build && rm -rf out)', 'rm'), '/home/u/proj/build');
});

test('substitutions are followed: $( ), backticks, <( ) and >( )', () => {
  assert.equal(
    split('echo $(rm -rf a) `rm -rf b` <(rm -rf c) >(rm -rf d) "$(rm -rf e)"')
      .commands.filter((c) => c.program === 'rm')
      .map((c) => c.words[2]!.value),
    ['a', 'b', 'c', 'd', 'e'],
  );
  const bash = find('bash <(curl https://x)', 'bash');
  assert.is(bash.words[1]!.subs[0]!.kind, '<(');
  assert.is(bash.words[1]!.subs[0]!.commands[0]!.program, 'curl');
  assert.equal(argvs('echo `echo \\`rm -rf z\\``').find((a) => a[0] === 'rm'), ['rm', '-rf', 'z'], 'nested backticks');
  assert.equal(argvs('x=${Y:-$(rm -rf q)}').find((a) => a[0] === 'rm'), ['rm', '-rf', 'q'], 'inside ${ }');
});

test('arithmetic is not a command, and ((a); b) is two subshells', () => {
  assert.equal(argvs('echo $(( 1 << 2 )); ls'), [['echo', VAR], ['ls']], 'the << in arithmetic is no here-document');
  assert.equal(argvs('(( i++ )); ls'), [['ls']]);
  assert.equal(argvs('((cd a); rm b)'), [['cd', 'a'], ['rm', 'b']]);
});

test('sh -c, bash -lc, sh -ec and eval are followed into their command line', () => {
  assert.equal(argvs(`sh -c 'rm -rf a'`)[1], ['rm', '-rf', 'a']);
  assert.equal(argvs(`bash -lc "rm -rf b"`)[1], ['rm', '-rf', 'b']);
  assert.equal(argvs(`sh -ec 'rm -rf c'`)[1], ['rm', '-rf', 'c']);
  assert.equal(argvs(`bash -e -o pipefail -c 'rm -rf d'`)[1], ['rm', '-rf', 'd']);
  assert.equal(argvs(`eval 'rm -rf e'`)[1], ['rm', '-rf', 'e']);
  assert.equal(argvs(`sh -c 'sh -c "rm -rf f"'`)[2], ['rm', '-rf', 'f']);
  assert.equal(argvs('bash script.sh -c x').length, 1, 'a script file is not a command line');
  assert.equal(argvs(`bash <<< 'rm -rf g'`)[1], ['rm', '-rf', 'g'], 'a here-string fed to a shell');
  assert.equal(argvs('bash <<EOF\nrm -rf h\nEOF\nls'), [['bash'], ['rm', '-rf', 'h'], ['ls']], 'a here-document fed to a shell');
  assert.equal(argvs(`env -S 'rm -rf i'`), [['rm', '-rf', 'i']]);
  assert.equal(argvs('find . -name x -exec rm -rf {} +')[1], ['rm', '-rf', '.']);
});

test('a here-document is text, not commands, unless a shell reads it; its substitutions run', () => {
  assert.equal(argvs("cat <<'EOF' > out\nrm -rf /\nEOF\nls"), [['cat'], ['ls']]);
  const cat = find('cat <<EOF\nDROP TABLE x\nEOF', 'cat');
  assert.is(cat.redirects[0]!.body, 'DROP TABLE x');
  assert.ok(argvs('cat <<EOF\n$(rm -rf j)\nEOF').some((a) => a[0] === 'rm'));
  assert.not.ok(argvs("cat <<'EOF'\n$(rm -rf k)\nEOF").some((a) => a[0] === 'rm'), 'a quoted delimiter: no expansion');
  assert.equal(argvs('cat <<-EOF\n\tx\n\tEOF\nls'), [['cat'], ['ls']], '<<- strips tabs, the delimiter too');
});

test('wrappers are looked through, and sudo is remembered', () => {
  const rm = find('sudo -u root env A=1 nice -n 5 nohup timeout -s KILL 5 command rm -rf /', 'rm');
  assert.equal(
    rm.words.map((w) => w.value),
    ['rm', '-rf', '/'],
  );
  assert.ok(rm.sudo);
  assert.ok(find('doas rm x', 'rm').sudo);
  assert.ok(find(`sudo sh -c 'rm -rf x'`, 'rm').sudo, 'a shell line started under sudo runs under it');
  assert.not.ok(find('sudo ls $(rm x)', 'rm').sudo, 'a substitution runs in the calling shell');
  assert.equal(argvs('A=1 B=2 time -p xargs -0 -I{} builtin exec stdbuf -oL rm -rf {}'), [['rm', '-rf', '{}']]);
  assert.equal(argvs('command -v rm'), [['command', '-v', 'rm']], 'command -v runs nothing');
  assert.equal(argvs('/bin/rm -rf x').map((a) => a[0]), ['/bin/rm']);
  assert.is(split('/bin/rm -rf x').commands[0]!.program, 'rm');
});

test('redirects: target, fd, whether it writes', () => {
  const c = split('cmd < in > out 2>> log &> both 2>&1 >&- 3<> rw >| clob').commands[0]!;
  assert.equal(
    c.redirects.map((r) => [r.op, r.fd, r.target?.value ?? null, r.writes]),
    [
      ['<', null, 'in', false],
      ['>', null, 'out', true],
      ['>>', '2', 'log', true],
      ['&>', null, 'both', true],
      ['>&', '2', null, false],
      ['>&', null, null, false],
      ['<>', '3', 'rw', true],
      ['>|', null, 'clob', true],
    ],
  );
  assert.equal(split('( rm x ) > out').commands.at(-1)!.redirects[0]!.target!.value, 'out', 'a subshell redirect');
  assert.equal(split('{ a; } 2> err').commands.at(-1)!.redirects[0]!.target!.value, 'err');
  assert.equal(argvs('echo a#b # c d'), [['echo', 'a#b']], 'a comment starts a word');
});

test('a cd earlier in the sequence moves the folder', () => {
  assert.is(cwdOf('cd sub && touch x', 'touch'), '/home/u/proj/sub');
  assert.is(cwdOf('cd /tmp; cd ../etc; touch x', 'touch'), '/etc');
  assert.is(cwdOf('cd; touch x', 'touch'), '/home/u');
  assert.is(cwdOf('cd ~/other && touch x', 'touch'), '/home/u/other');
  assert.is(cwdOf('pushd /srv && touch x', 'touch'), '/srv');
  assert.is(cwdOf('eval "cd /opt"; touch x', 'touch'), '/opt', 'eval runs in this shell');
  assert.is(cwdOf('if cd /var; then touch x; fi', 'touch'), '/var');
  assert.is(cwdOf('cd -P /tmp && touch x', 'touch'), '/tmp');
});

test('a cd in a subshell, a pipeline stage, an sh -c line or the background ends with it', () => {
  assert.is(cwdOf('(cd /tmp); touch x', 'touch'), '/home/u/proj');
  assert.is(cwdOf('cd /tmp | cat; touch x', 'touch'), '/home/u/proj');
  assert.is(cwdOf('cat | cd /tmp; touch x', 'touch'), '/home/u/proj');
  assert.is(cwdOf(`sh -c 'cd /tmp'; touch x`, 'touch'), '/home/u/proj');
  assert.is(cwdOf('cd /tmp & touch x', 'touch'), '/home/u/proj');
  assert.is(cwdOf('echo $(cd /tmp); touch x', 'touch'), '/home/u/proj');
  assert.is(cwdOf(`sh -c 'cd /tmp && touch x'`, 'touch'), '/tmp', 'but moves the rest of that line');
});

test('cd -, popd, env -C, CDPATH and a cd to a variable make the folder unknown', () => {
  assert.is(cwdOf('cd sub; cd -; touch x', 'touch'), null);
  assert.is(cwdOf('pushd /a; popd; touch x', 'touch'), null);
  assert.is(cwdOf('env -C /tmp touch x', 'touch'), null);
  assert.is(cwdOf('env -C /tmp ls; touch x', 'touch'), '/home/u/proj', 'env -C moves only its own command');
  assert.is(cwdOf('CDPATH=/x; touch x', 'touch'), null);
  assert.is(cwdOf('export CDPATH=/x; touch x', 'touch'), null);
  assert.is(cwdOf('CDPATH= cd sub && touch x', 'touch'), null);
  assert.is(cwdOf('cd "$DIR" && touch x', 'touch'), null);
  assert.is(cwdOf('cd $(git rev-parse --show-toplevel) && touch x', 'touch'), null);
  assert.is(cwdOf('cd ~bob && touch x', 'touch'), null);
  assert.is(cwdOf('cd $HOME/y && touch x', 'touch'), null, 'a cd to a path with a variable, $HOME too');
  assert.is(cwdOf('cd sub && touch x', 'touch', { home: '/home/u' }), null, 'no folder given: a relative cd is unknown too');
  assert.is(cwdOf('cd /abs && touch x', 'touch', { home: '/home/u' }), '/abs');
});

test('bad input gives its best split and says it is incomplete', () => {
  const r = split(`echo 'unclosed && rm -rf x`);
  assert.ok(r.incomplete);
  assert.equal(r.commands.map((c) => c.words.map((w) => w.value)), [['echo', 'unclosed && rm -rf x']]);
  assert.ok(split('echo "a').incomplete);
  assert.ok(split('echo $(ls').incomplete);
  assert.ok(split('a )').incomplete);
  assert.ok(split('cat <<EOF\nno end').incomplete);
  assert.not.ok(split('case $x in a) rm y;; esac').incomplete, 'a case pattern is no stray )');
  assert.not.ok(split('ls -la; echo "ok"').incomplete);
});

test('bounds: a line past the limit, deep nesting and many commands are clipped, never thrown', () => {
  assert.ok(split('a'.repeat(70 * 1024)).clipped);
  assert.ok(split('('.repeat(5000)).clipped);
  assert.ok(split('$('.repeat(5000)).clipped);
  assert.ok(split('eval '.repeat(100) + 'x').clipped, 'eval in eval in eval...');
  assert.ok(split('a;'.repeat(1500)).clipped);
  assert.not.ok(split('a;'.repeat(100)).clipped);
});

test('a line shown cut marks its last word partial', () => {
  const c = split('cp a /etc/pa', { ...at, partialTail: true }).commands[0]!;
  assert.equal(
    c.words.map((w) => w.partial),
    [false, false, true],
  );
  const inner = split(`sh -c 'cp a /etc/pa`, { ...at, partialTail: true }).commands.find((x) => x.program === 'cp')!;
  assert.ok(inner.words[2]!.partial, 'also inside a shell line that runs to the cut');
  assert.not.ok(split('cp a b ', { ...at, partialTail: true }).commands[0]!.words[2]!.partial, 'a word before a blank is whole');
});

test.run();
