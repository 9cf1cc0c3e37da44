// Where a short run of printable ASCII would land if the emulator parsed it now: at the cursor, on
// its row, in the default attributes, changing nothing else. A typed key's echo is most often such
// a run, and a client that knows this ahead of the parse can send it as the floor would (the bytes
// as they came) and draw the frame after. Everything that could make the run do anything else is
// checked: the parser inside a sequence, a G0 charset, insert mode, an attribute or a link in
// effect, another Unicode version (joins), the cursor in its pending wrap or the run reaching the
// margin.
//
// Written against xterm 6.0.0's InputHandler, as fast-print.ts (the version is pinned); if the
// fields are not there, no run is predicted.
import type { Terminal } from '@xterm/headless';

interface CoreInputHandler {
  _activeBuffer: { x: number; y: number };
  _bufferService: { cols: number; rows: number };
  _charsetService: { charset: unknown };
  _coreService: { modes: { insertMode: boolean } };
  _unicodeService: { activeVersion: string };
  _curAttrData: { fg: number; bg: number; extended?: { urlId?: number } };
  _parser: { currentState: number };
}

/** xterm's ParserState.GROUND: not inside an escape sequence or a string. */
const GROUND = 0;

/** Every byte of `b` is printable ASCII (0x20-0x7e). */
export function printableAscii(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) if (b[i]! < 0x20 || b[i]! > 0x7e) return false;
  return true;
}

/**
 * The cell where a run of `n` printable ASCII characters parsed now would start, when it would be
 * printed there in plain cells on that row and change nothing else; null otherwise.
 */
export function plainRunAt(term: Terminal, n: number): { x: number; y: number } | null {
  const ih = (term as unknown as { _core?: { _inputHandler?: Partial<CoreInputHandler> } })._core?._inputHandler;
  if (!ih?._activeBuffer || !ih._bufferService || !ih._charsetService || !ih._coreService?.modes || !ih._unicodeService || !ih._curAttrData || !ih._parser) return null;
  if (ih._parser.currentState !== GROUND || ih._charsetService.charset || ih._coreService.modes.insertMode || ih._unicodeService.activeVersion !== '6') return null;
  const a = ih._curAttrData;
  if (a.fg !== 0 || a.bg !== 0 || a.extended?.urlId) return null;
  const { x, y } = ih._activeBuffer;
  // x === cols is xterm's pending wrap; the run must also leave the cursor short of it.
  if (n <= 0 || x < 0 || y < 0 || y >= ih._bufferService.rows || x + n >= ih._bufferService.cols) return null;
  return { x, y };
}
