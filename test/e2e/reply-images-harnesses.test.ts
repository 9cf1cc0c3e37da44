// An image in a reply to a real Codex and a real OpenCode (spec: Typing a prompt, `[input]
// images`: both take `path_paste`): the path of a PNG pasted into the reply editor through the
// real TUI in tmux is pasted to the agent on its own, and the agent sends the fake OpenAI API the
// image itself, as a data URL in the request, with the words typed around it. Each harness in a
// suite of its own, one after the other. The fake model answers with text only.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { RealAgent } from '../helpers/real-agent.js';
import { Terminal, openReply } from '../helpers/terminal.js';
import { BIN } from '../helpers/daemon.js';

/** Every image a request carries as a base64 data URL, as its bytes. */
function imagesIn(body: unknown): Buffer[] {
  const out: Buffer[] = [];
  const walk = (x: unknown): void => {
    if (typeof x === 'string') {
      const m = /^data:image\/[a-z]+;base64,(.*)$/s.exec(x);
      if (m) out.push(Buffer.from(m[1]!, 'base64'));
      return;
    }
    if (Array.isArray(x)) return x.forEach(walk);
    if (x && typeof x === 'object') Object.values(x).forEach(walk);
  };
  walk(body);
  return out;
}

/** One harness's suite: its agent, its fake API, a PNG of `colour` pasted into a reply to it. */
function harness(id: string, colour: string, rgb: number[]): void {
  const a = new RealAgent(id, { fake: { command: null, finalText: 'A square.' } });
  const test = suite(id);
  const it = a.gate(test);
  let term: Terminal | null = null;
  test.before(() => a.start());
  test.after(async () => {
    term?.kill();
    await a.stop();
  });
  it(`a pasted PNG path reaches ${id}, and ${id} sends the image itself`, async () => {
    await a.waitState(['idle', 'unknown']);
    const data = await sharp({ create: { width: 160, height: 90, channels: 3, background: colour } }).png().toBuffer();
    const shot = join(a.d.dir, 'shot.png');
    writeFileSync(shot, data);
    const pasted = join(a.d.dir, 'paste.txt');
    writeFileSync(pasted, shot);
    const t = await openReply(a.d.env, BIN, 'agents', new RegExp(id, 'i'));
    term = t;
    t.type('what colour is ');
    await t.wait(/› what colour is/, 'the typed words');
    t.pasteFile(pasted);
    await t.wait(/\[Image #1 · 160×90 png\]/, 'the image block');
    t.type(' here?');
    await t.wait(/png\] here\?/, 'the words after it');
    t.keys('Enter');
    await t.wait(/Queued for /, 'the queued line', 30_000);
    const req = await a.fake.waitRequest((r) => r.role === 'main' && imagesIn(r.body).length > 0, 120_000);
    const img = imagesIn(req.body)[0]!;
    const meta = await sharp(img).metadata();
    assert.equal([meta.width, meta.height], [160, 90], 'the image itself, at its size');
    const px = await sharp(img).removeAlpha().raw().toBuffer();
    assert.equal([...px.subarray(0, 3)], rgb, 'its colour');
    const sent = JSON.stringify(req.body);
    assert.match(sent, /what colour is/);
    assert.match(sent, /here\?/);
  });

  test.run();
}

harness('codex', '#f08020', [0xf0, 0x80, 0x20]);
harness('opencode', '#20c060', [0x20, 0xc0, 0x60]);
