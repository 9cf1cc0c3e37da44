// The one mark function (tui/marks.ts) over every row of the Indicator table in both modes, the
// glyph sets (ascii, one of the person's own, and --ascii-only over it), and the client's own
// terminal title (tui/title.ts) that carries the focused pane's mark.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stateMark, glyphsFor, ASCII_GLYPHS, UNICODE_GLYPHS, type Glyphs } from '../../tui/marks.js';
import { TerminalTitle, clientTitle, TITLE_PUSH, TITLE_POP } from '../../tui/title.js';
import { textWidth } from '../../tui/text.js';
import { configSchema } from '../../core/config/schema.js';
import { parseConfig } from '../../core/config/config.js';

// state, done not yet looked at, mark, colour, --ascii-only (spec: Indicator)
const TABLE: Array<[string, boolean, string | null, string | null, string | null]> = [
  ['working', false, '●', 'info', '*'],
  ['needs_input', false, '▲', 'warning', '!'],
  ['done', true, '■', 'success', '#'],
  ['done', false, '○', 'muted', 'o'],
  ['idle', false, '○', 'muted', 'o'],
  ['errored', false, '×', 'error', 'x'],
  ['unknown', false, '□', 'muted', '?'],
  ['none', false, null, null, null],
];

test('every row of the Indicator table, in both modes, as booleans and as the built-in sets', () => {
  for (const [state, unread, glyph, role, ascii] of TABLE) {
    for (const [g, want] of [[false, glyph], [UNICODE_GLYPHS, glyph], [true, ascii], [ASCII_GLYPHS, ascii]] as Array<[Glyphs | boolean, string | null]>) {
      const m = stateMark(state, unread, g);
      if (want === null) assert.is(m, null, `${state} draws nothing`);
      else assert.equal(m, { glyph: want, role }, `${state}${unread ? ' unread' : ''} with ${JSON.stringify(g)}`);
    }
    if (glyph) {
      assert.is(textWidth(glyph), 1, `${glyph} is one cell`);
      assert.ok(/^[\x21-\x7e]$/.test(ascii!), `${ascii} is 7-bit`);
    }
  }
  // A state this build does not know draws as unknown.
  assert.equal(stateMark('from-the-future', false, false), { glyph: '□', role: 'muted' });
  assert.equal(stateMark('from-the-future', false, true), { glyph: '?', role: 'muted' });
  // The ASCII forms keep one meaning per character: none is mail's @ or the others' ~ > ^.
  const forms = TABLE.map((r) => r[4]).filter(Boolean);
  for (const c of ['@', '~', '>', '^']) assert.not.ok(forms.includes(c), c);
});

const parse = (toml: object) => configSchema.parse({ appearance: toml }).appearance;

test('appearance.glyphs = "ascii" draws the ASCII forms, as --ascii-only does; unset or unicode keeps the marks', () => {
  for (const [state, unread, glyph, , ascii] of TABLE) {
    if (!glyph) continue;
    assert.is(stateMark(state, unread, glyphsFor(parse({ glyphs: 'ascii' }), false))!.glyph, ascii);
    assert.is(stateMark(state, unread, glyphsFor(parse({}), true))!.glyph, ascii);
    assert.is(stateMark(state, unread, glyphsFor(parse({}), false))!.glyph, glyph);
    assert.is(stateMark(state, unread, glyphsFor(parse({ glyphs: 'unicode' }), false))!.glyph, glyph);
  }
  assert.is(glyphsFor(parse({ glyphs: 'ascii' }), false).ascii, true);
  assert.is(glyphsFor(parse({}), false).ascii, false);
});

test('a glyph set of one\'s own names marks per state; the ones it leaves alone keep the table; --ascii-only drops its non-7-bit marks', () => {
  const a = parse({ glyphs: 'mine', glyph_sets: { mine: { state_needs_input: '✋', state_working: '~~', state_idle: '-', state_done: '漢' } } });
  const g = glyphsFor(a, false);
  assert.is(stateMark('needs_input', false, g)!.glyph, '✋', 'two cells is allowed');
  assert.is(stateMark('working', false, g)!.glyph, '~~');
  assert.is(stateMark('idle', false, g)!.glyph, '-');
  assert.is(stateMark('done', false, g)!.glyph, '-', 'a finished pane looked at draws idle\'s mark');
  assert.is(stateMark('done', true, g)!.glyph, '漢');
  assert.is(stateMark('errored', false, g)!.glyph, '×', 'left alone: the table');
  assert.equal(stateMark('needs_input', false, g)!.role, 'warning', 'the colour stays the state\'s');
  const only = glyphsFor(a, true);
  assert.is(stateMark('needs_input', false, only)!.glyph, '!', '✋ gives way to the ASCII form');
  assert.is(stateMark('done', true, only)!.glyph, '#');
  assert.is(stateMark('working', false, only)!.glyph, '~~', 'a 7-bit mark of the set stays');
  assert.is(stateMark('errored', false, only)!.glyph, 'x');
  // A mark wider than two cells is not drawn; the table's stands.
  assert.is(stateMark('working', false, glyphsFor(parse({ glyphs: 'w', glyph_sets: { w: { state_working: 'abc' } } }), false))!.glyph, '●');
  // A set named but not defined is the table.
  assert.is(stateMark('working', false, glyphsFor(parse({ glyphs: 'nowhere' }), false))!.glyph, '●');
});

test('the glyph sets are validated: no space or control character, a bounded length and count, not a built-in name', () => {
  const bad = (x: object) => assert.not.ok(configSchema.safeParse({ appearance: x }).success, JSON.stringify(x));
  bad({ glyph_sets: { mine: { state_working: ' ' } } });
  bad({ glyph_sets: { mine: { state_working: '\x1b]2;x' } } });
  bad({ glyph_sets: { mine: { state_working: 'x'.repeat(9) } } });
  bad({ glyph_sets: { mine: { state_wrking: '*' } } });
  bad({ glyph_sets: { ascii: { state_working: '*' } } });
  bad({ glyph_sets: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`s${i}`, {}])) });
  assert.ok(configSchema.safeParse({ appearance: { glyph_sets: Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`s${i}`, { state_working: '+' }])) } }).success);
});

test('config.toml: a set of one\'s own read from TOML; the validator warns when appearance.glyphs names no set', () => {
  const r = parseConfig('[appearance]\nglyphs = "mine"\n\n[appearance.glyph_sets.mine]\nstate_needs_input = "✋"\n');
  assert.is(r.error, null);
  assert.equal(r.warnings, []);
  assert.is(stateMark('needs_input', false, glyphsFor(r.config!.appearance, false))!.glyph, '✋');
  for (const name of ['ascii', 'unicode']) assert.equal(parseConfig(`[appearance]\nglyphs = "${name}"\n`).warnings, [], name);
  const w = parseConfig('[appearance]\nglyphs = "nowhere"\n').warnings;
  assert.equal(w, ['appearance.glyphs = "nowhere" names no glyph set: the built-in marks are drawn (sets: unicode, ascii)']);
  assert.match(parseConfig('[appearance]\nglyph_sets.mine.state_working = " "\n').error ?? '', /no space or control character/);
});

test('the client\'s own title carries the focused pane\'s mark; a tool\'s title wins until cleared; the terminal\'s own comes back at the end', () => {
  assert.is(clientTitle(stateMark('needs_input', false, true), 'api', 'claude'), '! api: claude');
  assert.is(clientTitle(stateMark('needs_input', false, false), 'api', null), '▲ api', 'the mark shows for a window with no name');
  assert.is(clientTitle(null, 'api', 'bash'), 'api: bash');
  const t = new TerminalTitle();
  assert.is(t.frame('* api: claude'), `${TITLE_PUSH}\x1b]2;* api: claude\x07`, 'the terminal\'s own title is saved first');
  assert.is(t.frame('* api: claude'), '', 'unchanged: nothing written');
  assert.is(t.frame('! api: claude'), '\x1b]2;! api: claude\x07');
  assert.is(t.setByTool('build\x07done'), '\x1b]2;build done\x07', 'control characters out');
  assert.is(t.frame('o api: claude'), '', 'the tool\'s title wins');
  assert.is(t.setByTool(null), '\x1b]2;o api: claude\x07', 'cleared: the client\'s own comes back');
  assert.is(t.frame('x'.repeat(300)), `\x1b]2;${'x'.repeat(256)}\x07`, 'cut to 256');
  assert.is(t.leave(), TITLE_POP);
  assert.is(t.leave(), '');
  assert.is(new TerminalTitle().leave(), '', 'nothing pushed, nothing popped');
});

test.run();
