// A reply draft taking images (spec: Replying to an agent, Images): a paste of an image file's
// path, an empty paste and ctrl+v attach one at the cursor once it is read (the keys do not wait
// for it); a refusal (the limits, the same image twice, a file that is no image) goes to the dock.
import type { Editor } from './editor.js';
import { imagePathOf } from '../core/delivery/images.js';
import { readClipboardText } from './clipboard.js';
import { clipboardImage, imageFromPaste, makeLarge, makeThumb, type Attached } from './editor-images.js';
import { ImageViewer } from './image-viewer.js';
import { readImageInfo } from '../core/delivery/image-read.js';
import { EDITOR_MAX_ROWS } from './limits.js';

/** What wiring a draft's images needs of its view. */
export interface ImageHost {
  say(text: string): void;
  redraw(): void;
  /** The client runs on the person's machine (`tuios attach`): its clipboard is theirs. */
  readonly local: boolean;
}

/**
 * Makes `ed` take images: a paste of an image file's path, an empty paste and ctrl+v (on the
 * person's machine) attach one at the cursor, its thumbnail made after; a refusal goes to the dock.
 */
export function wireImages(ed: Editor, h: ImageHost): void {
  if (ed.imagePaste) return;
  const attach = (text: string, found: Promise<Attached>, none = '') =>
    found.then(
      (a) => {
        if (!a) return text ? ed.pasteText(text) : none ? h.say(none) : undefined;
        if ('refused' in a) {
          // A path to no file is text after all (a path typed in a message).
          if (text && /ENOENT|ENOTDIR|not a file/.test(a.refused)) ed.pasteText(text);
          else h.say(a.refused);
          return h.redraw();
        }
        const why = ed.attachImage(a.image);
        if (why) h.say(why);
        h.redraw();
        if (!why) void makeThumb(a.image).then(() => h.redraw(), () => undefined);
      },
      (e: unknown) => h.say(`The image could not be read: ${String(e)}`),
    );
  ed.imagePaste = (text) => {
    if (text === '' ? !h.local : !imagePathOf(text)) return false;
    void attach(text, imageFromPaste(text, h.local));
    return true;
  };
  // An image brought back from the history: its size read again, then its thumbnail.
  ed.restored = (img) =>
    void readImageInfo(img.data)
      .then((info) => {
        if (info) img.info = info;
        h.redraw();
        return makeThumb(img);
      })
      .then(() => h.redraw(), () => undefined);
  // ctrl+o: the image larger in place of the draft; o: the desktop's viewer, from a private copy.
  const viewer = new ImageViewer();
  ed.imageView = {
    shown: (img) => void makeLarge(img, EDITOR_MAX_ROWS).then(() => h.redraw(), () => undefined),
    open: (img) => {
      if (!h.local) return h.say('This client runs on another machine: its image viewer is not yours.');
      const n = ed.viewedImage()?.n ?? 1;
      const why = viewer.open(img, n);
      h.say(why ?? `Image #${n} opened in your image viewer; esc removes its copy.`);
    },
    close: () => viewer.close(),
  };
  ed.clipboard = () => {
    if (!h.local) return h.say('This client runs on another machine and cannot read your clipboard: paste with your terminal.');
    void readClipboardText().then((text) => {
      if (text) {
        ed.key({ t: 'paste', raw: text, text });
        return h.redraw();
      }
      void attach('', clipboardImage(), 'The clipboard holds no text and no image.');
    });
  };
}
