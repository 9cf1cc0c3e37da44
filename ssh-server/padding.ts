// Packet padding from a pool of random bytes. ssh2 fills each packet's padding with a
// randomFillSync call of its own (lib/protocol/crypto.js, allocPacket): about 30 µs per packet on
// a machine that was idle a moment before, a third of the time ssh2 takes to send a typed key's
// echo. For the AEAD ciphers a client negotiates (aes*-gcm, chacha20-poly1305: the padding is
// encrypted and authenticated with the rest), the same bytes from the same CSPRNG come out of a
// pool refilled PADDING_POOL_BYTES at a time, each byte used once. The packet is laid out exactly
// as ssh2 lays it out; only a class whose allocPacket is the pinned version's, text for text, is
// changed, so another ssh2 keeps its own.
import { createHash, randomFillSync } from 'node:crypto';
import { PADDING_POOL_BYTES } from './limits.js';

/** The cipher classes of ssh2 1.17.0 this knows: the block size their padding rounds to, and a
 *  fingerprint of their allocPacket's source (comments and spaces taken out). */
const KNOWN: Record<string, { block: number; source: string }> = {
  AESGCMCipherBinding: { block: 16, source: '952fa649ac4efa10' },
  ChaChaPolyCipherBinding: { block: 8, source: '047241c5c9ad4fb9' },
};
/** The AEAD tag that follows the packet. */
const TAG_BYTES = 16;

const pool = Buffer.allocUnsafe(PADDING_POOL_BYTES);
let at = pool.length;
const done = new Set<object>();

function fingerprint(fn: Function): string {
  const text = fn.toString().replace(/\/\*[^*]*\*\//g, '').replace(/\s+/g, '');
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/**
 * Gives the connection's outbound cipher class pooled padding (once per class; every connection
 * after shares it). Returns whether the class is one it knows.
 */
export function poolPadding(cipher: unknown): boolean {
  if (!cipher || typeof cipher !== 'object') return false;
  const proto = Object.getPrototypeOf(cipher) as { constructor: { name: string }; allocPacket?: Function };
  if (done.has(proto)) return true;
  const known = KNOWN[proto.constructor.name];
  if (!known || typeof proto.allocPacket !== 'function' || fingerprint(proto.allocPacket) !== known.source) return false;
  const block = known.block;
  proto.allocPacket = function allocPacket(payloadLen: number): Buffer {
    let pktLen = 4 + 1 + payloadLen;
    let padLen = block - ((pktLen - 4) & (block - 1));
    if (padLen < 4) padLen += block;
    pktLen += padLen;
    const packet = Buffer.allocUnsafe(pktLen + TAG_BYTES);
    packet.writeUInt32BE(pktLen - 4, 0);
    packet[4] = padLen;
    if (at + padLen > pool.length) {
      randomFillSync(pool);
      at = 0;
    }
    pool.copy(packet, 5 + payloadLen, at, at + padLen);
    // The pool's bytes are used once: what was handed out is not kept.
    pool.fill(0, at, at + padLen);
    at += padLen;
    return packet;
  };
  done.add(proto);
  return true;
}
