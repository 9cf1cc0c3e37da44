// Writing to stdout and stderr without process.stdout: for a pipe that getter builds a
// net.Socket, which loads Node's whole stream stack (~5 ms) for a one-line answer.
import { writeSync } from 'node:fs';

function writeAll(fd: number, text: string): void {
  let buf = Buffer.from(text);
  while (buf.length > 0) {
    try {
      const n = writeSync(fd, buf);
      buf = buf.subarray(n);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN') continue; // a non-blocking pipe that is full: try again
      if (code === 'EPIPE') return; // the reader went away
      throw e;
    }
  }
}

export const out = (text: string): void => writeAll(1, text);
export const err = (text: string): void => writeAll(2, text);
