// HMAC-SHA1 (RFC 2104, SHA-1 as in FIPS 180-4) under a key fixed when made, in plain JavaScript. Why
// not node:crypto: every call there crosses into OpenSSL and builds a context (createHmac measured about
// 11 µs per call in bench b's profile, three calls per query; two one-shot crypto.hash calls about 7),
// while here the key's two padded blocks are compressed once, when made, so an HMAC of a short message
// is two SHA-1 block compressions, well under a microsecond. The bytes are exactly createHmac('sha1',
// key)'s: spec/protocol/hmac-sha1.spec.ts checks them against it over random keys and messages.
import { createHash } from 'node:crypto';

/** SHA-1's block size, in bytes. */
export const SHA1_BLOCK_BYTES = 64;
const DIGEST_BYTES = 20;
/** Messages up to this many UTF-8 bytes are padded in a reused buffer; longer ones get their own. */
const ROOM_BYTES = 247;
const INITIAL_STATE = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];
const UTF8 = new TextEncoder();
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export class HmacSha1 {
  /** The SHA-1 state after the key XOR ipad block, and after the key XOR opad block. */
  private readonly innerStart = new Int32Array(5);
  private readonly outerStart = new Int32Array(5);
  private readonly state = new Int32Array(5);
  private readonly schedule = new Int32Array(80);
  /** A short message, then its padding (0x80, zeros, its length in bits): whole blocks. */
  private readonly padded = new Uint8Array(ROOM_BYTES + 9 + SHA1_BLOCK_BYTES);
  /** The inner digest's block in the outer hash (its padding never changes). */
  private readonly outerBlock = new Uint8Array(SHA1_BLOCK_BYTES);

  constructor(key: Uint8Array) {
    // A key longer than a block is hashed first; a shorter one is padded with zeros (RFC 2104).
    const block = new Uint8Array(SHA1_BLOCK_BYTES);
    block.set(key.length > SHA1_BLOCK_BYTES ? createHash('sha1').update(key).digest() : key);
    const pad = new Uint8Array(SHA1_BLOCK_BYTES);
    for (const [start, mask] of [[this.innerStart, 0x36], [this.outerStart, 0x5c]] as const) {
      for (let i = 0; i < SHA1_BLOCK_BYTES; i++) pad[i] = block[i]! ^ mask;
      start.set(INITIAL_STATE);
      this.compress(start, pad, 0);
    }
    block.fill(0);
    pad.fill(0);
    this.outerBlock[DIGEST_BYTES] = 0x80;
    writeBitLength(this.outerBlock, SHA1_BLOCK_BYTES, SHA1_BLOCK_BYTES + DIGEST_BYTES);
  }

  /** The HMAC of the message's UTF-8 bytes, as 40 lower-case hex digits. */
  hex(message: string): string {
    const { state, outerBlock } = this;
    state.set(this.innerStart);
    this.hashRest(utf8Bytes(message, this.padded));
    for (let i = 0; i < 5; i++) writeWord(outerBlock, i * 4, state[i]!);
    state.set(this.outerStart);
    this.compress(state, outerBlock, 0);
    let hex = '';
    for (let i = 0; i < 5; i++) {
      const word = state[i]!;
      hex += HEX[(word >>> 24) & 0xff]! + HEX[(word >>> 16) & 0xff]! + HEX[(word >>> 8) & 0xff]! + HEX[word & 0xff]!;
    }
    return hex;
  }

  /** Hashes `length` message bytes (at the start of `bytes`, which has room for their padding) after one block. */
  private hashRest({ bytes, length }: { bytes: Uint8Array; length: number }): void {
    const total = Math.ceil((length + 9) / SHA1_BLOCK_BYTES) * SHA1_BLOCK_BYTES;
    bytes[length] = 0x80;
    bytes.fill(0, length + 1, total - 8);
    writeBitLength(bytes, total, SHA1_BLOCK_BYTES + length);
    for (let offset = 0; offset < total; offset += SHA1_BLOCK_BYTES) this.compress(this.state, bytes, offset);
  }

  /** SHA-1's compression of the 64-byte block at `offset` into `h`. */
  private compress(h: Int32Array, bytes: Uint8Array, offset: number): void {
    const w = this.schedule;
    for (let t = 0; t < 16; t++) {
      const i = offset + t * 4;
      w[t] = (bytes[i]! << 24) | (bytes[i + 1]! << 16) | (bytes[i + 2]! << 8) | bytes[i + 3]!;
    }
    for (let t = 16; t < 80; t++) {
      const x = w[t - 3]! ^ w[t - 8]! ^ w[t - 14]! ^ w[t - 16]!;
      w[t] = (x << 1) | (x >>> 31);
    }
    let a = h[0]!, b = h[1]!, c = h[2]!, d = h[3]!, e = h[4]!;
    for (let t = 0; t < 80; t++) {
      let f: number;
      let k: number;
      if (t < 20) {
        f = (b & c) | (~b & d);
        k = 0x5a827999;
      } else if (t < 40) {
        f = b ^ c ^ d;
        k = 0x6ed9eba1;
      } else if (t < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8f1bbcdc;
      } else {
        f = b ^ c ^ d;
        k = 0xca62c1d6;
      }
      const next = (((a << 5) | (a >>> 27)) + f + e + k + w[t]!) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = next;
    }
    h[0] = (h[0]! + a) | 0;
    h[1] = (h[1]! + b) | 0;
    h[2] = (h[2]! + c) | 0;
    h[3] = (h[3]! + d) | 0;
    h[4] = (h[4]! + e) | 0;
  }
}

/** The message's UTF-8 bytes in `room` when they fit with their padding, else in a buffer of their own. */
function utf8Bytes(message: string, room: Uint8Array): { bytes: Uint8Array; length: number } {
  // UTF-8 takes at most 3 bytes per UTF-16 code unit, so a message this short always fits.
  if (message.length * 3 <= ROOM_BYTES) {
    // ASCII (every address this signs) is its own UTF-8, copied without an encoder call.
    for (let i = 0; i < message.length; i++) {
      const code = message.charCodeAt(i);
      if (code >= 0x80) return { bytes: room, length: UTF8.encodeInto(message, room).written };
      room[i] = code;
    }
    return { bytes: room, length: message.length };
  }
  const encoded = Buffer.from(message, 'utf8');
  const bytes = new Uint8Array(encoded.length + 9 + SHA1_BLOCK_BYTES);
  bytes.set(encoded);
  return { bytes, length: encoded.length };
}

/** The last 8 bytes of the block ending at `end`: a message of `byteCount` bytes' length in bits, big-endian. */
function writeBitLength(bytes: Uint8Array, end: number, byteCount: number): void {
  const bits = byteCount * 8;
  writeWord(bytes, end - 8, Math.floor(bits / 0x1_0000_0000));
  writeWord(bytes, end - 4, bits >>> 0);
}

function writeWord(bytes: Uint8Array, offset: number, word: number): void {
  bytes[offset] = word >>> 24;
  bytes[offset + 1] = word >>> 16;
  bytes[offset + 2] = word >>> 8;
  bytes[offset + 3] = word;
}
