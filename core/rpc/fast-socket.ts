// A Unix-socket line transport for the short-lived CLI. Loading `node:net` and Node's stream
// machinery costs a CLI call ~8 ms before it sends a byte (measured: 6 ms of module load, 5 ms
// of connect), and every hook pays it on every event. libuv's pipe handle, which `net` wraps,
// does the same job without them. It is reached through process.binding, which Node keeps for
// compatibility; where it is missing or behaves unexpectedly the caller falls back to `net`.

export interface LineSocket {
  write(line: string): void;
  onData(fn: (chunk: string) => void): void;
  onClose(fn: (err: Error | null) => void): void;
  close(): void;
}

interface PipeHandle {
  connect(req: unknown, path: string): number;
  readStart(): number;
  writeUtf8String(req: unknown, s: string): number;
  close(cb?: () => void): void;
  onread: (ab: ArrayBuffer | undefined) => void;
}

type Bindings = {
  Pipe: new (type: number) => PipeHandle;
  PipeConnectWrap: new () => { oncomplete: (status: number) => void };
  SOCKET: number;
  WriteWrap: new () => { handle: unknown; oncomplete: () => void; async: boolean };
  state: Int32Array;
  kBytes: number;
  kOffset: number;
};

let cached: Bindings | null | undefined;

function bindings(): Bindings | null {
  if (cached !== undefined) return cached;
  cached = null;
  try {
    const binding = (process as unknown as { binding(n: string): Record<string, unknown> }).binding;
    const pw = binding('pipe_wrap') as { Pipe: Bindings['Pipe']; PipeConnectWrap: Bindings['PipeConnectWrap']; constants: { SOCKET: number } };
    const sw = binding('stream_wrap') as { WriteWrap: Bindings['WriteWrap']; streamBaseState: Int32Array; kReadBytesOrError: number; kArrayBufferOffset: number };
    if (typeof pw.Pipe !== 'function' || typeof sw.WriteWrap !== 'function' || !sw.streamBaseState) return null;
    cached = {
      Pipe: pw.Pipe,
      PipeConnectWrap: pw.PipeConnectWrap,
      SOCKET: pw.constants.SOCKET,
      WriteWrap: sw.WriteWrap,
      state: sw.streamBaseState,
      kBytes: sw.kReadBytesOrError,
      kOffset: sw.kArrayBufferOffset,
    };
  } catch {
    cached = null;
  }
  return cached;
}

export function fastSocketAvailable(): boolean {
  return process.env.TUIOS_NO_FAST_SOCKET !== '1' && bindings() !== null;
}

/** Connects with libuv's pipe handle. Rejects with an errno-style `code` like net does. */
export function connectFast(path: string): Promise<LineSocket> {
  const b = bindings();
  if (!b) return Promise.reject(new Error('fast socket unavailable'));
  return new Promise((resolve, reject) => {
    const h = new b.Pipe(b.SOCKET);
    const req = new b.PipeConnectWrap();
    let dataFn: (chunk: string) => void = () => {};
    let closeFns: Array<(e: Error | null) => void> = [];
    let closed = false;
    const decoder = new TextDecoder();
    const finish = (err: Error | null) => {
      if (closed) return;
      closed = true;
      h.onread = () => {};
      h.close();
      for (const fn of closeFns) fn(err);
      closeFns = [];
    };
    req.oncomplete = (status: number) => {
      if (status < 0) {
        h.close();
        reject(Object.assign(new Error(`connect ${errName(status)} ${path}`), { code: errName(status) }));
        return;
      }
      h.onread = (ab) => {
        const n = b.state[b.kBytes]!;
        if (n < 0 || !ab) {
          finish(n === -4095 /* UV_EOF */ ? null : Object.assign(new Error(`read ${errName(n)}`), { code: errName(n) }));
          return;
        }
        const off = b.state[b.kOffset]!;
        dataFn(decoder.decode(new Uint8Array(ab, off, n), { stream: true }));
      };
      if (h.readStart() < 0) {
        finish(new Error('readStart failed'));
        return;
      }
      resolve({
        write(line: string) {
          if (closed) return;
          const w = new b.WriteWrap();
          w.handle = h;
          w.oncomplete = () => {};
          w.async = false;
          const e = h.writeUtf8String(w, line);
          if (e < 0) finish(Object.assign(new Error(`write ${errName(e)}`), { code: errName(e) }));
        },
        onData(fn) {
          dataFn = fn;
        },
        onClose(fn) {
          if (closed) fn(null);
          else closeFns.push(fn);
        },
        close() {
          finish(null);
        },
      });
    };
    const e = h.connect(req, path);
    if (e < 0) {
      h.close();
      reject(Object.assign(new Error(`connect ${errName(e)} ${path}`), { code: errName(e) }));
    }
  });
}

// The errno values libuv reports on Linux for the failures a caller branches on.
function errName(status: number): string {
  switch (status) {
    case -2:
      return 'ENOENT';
    case -111:
      return 'ECONNREFUSED';
    case -13:
      return 'EACCES';
    case -104:
      return 'ECONNRESET';
    case -32:
      return 'EPIPE';
    case -11:
      return 'EAGAIN';
    case -4095:
      return 'EOF';
    default:
      return `E${-status}`;
  }
}
