// Spooled segment ids: what a client presents, without credentials, to download or acknowledge a segment.
// As Trino's (the segment handle encrypted with protocol.spooling.shared-secret-key, AES-256), the id is
// sealed with AES-256-GCM: unguessable (a random 128-bit name inside), unforgeable and tamper-evident (the
// tag), and it carries the query, the worker and the expiry, so a node reads it without any state. The
// file of a segment is named after the random part only: nothing a client writes reaches a path.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

export interface SegmentHandle {
  /** 32 hex digits: the segment's file name in its worker's spool. */
  name: string;
  queryId: string;
  nodeId: string;
  /** Epoch milliseconds after which the segment is gone. */
  expiresAt: number;
}

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const NAME_BYTES = 16;
/** Longest id opened: a sealed handle with 255-byte query and node ids is under 800 characters. */
export const MAX_SEGMENT_ID_LENGTH = 800;
const AAD = Buffer.from('vivace spooled segment');

/** Base64url without padding: the only characters an id may have. */
const ID_ALPHABET = /^[\w-]+$/;

export function sealSegmentId(key: Buffer, handle: Omit<SegmentHandle, 'name'>, name = randomBytes(NAME_BYTES).toString('hex')): { id: string; name: string } {
  const query = Buffer.from(handle.queryId, 'utf8');
  const node = Buffer.from(handle.nodeId, 'utf8');
  if (query.length > 255 || node.length > 255) throw new RangeError('query and node ids of a segment must be under 256 bytes');
  const plain = Buffer.alloc(1 + 8 + NAME_BYTES + 1 + query.length + 1 + node.length);
  let at = plain.writeUInt8(VERSION, 0);
  at = plain.writeBigUInt64BE(BigInt(handle.expiresAt), at);
  at += Buffer.from(name, 'hex').copy(plain, at);
  at = plain.writeUInt8(query.length, at);
  at += query.copy(plain, at);
  at = plain.writeUInt8(node.length, at);
  node.copy(plain, at);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(AAD);
  const sealed = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  return { id: sealed.toString('base64url'), name };
}

/** The handle inside an id, or undefined for anything not sealed with `key` (altered, truncated, foreign, too long). */
export function openSegmentId(key: Buffer, id: string): SegmentHandle | undefined {
  if (id.length === 0 || id.length > MAX_SEGMENT_ID_LENGTH || !ID_ALPHABET.test(id)) return undefined;
  const sealed = Buffer.from(id, 'base64url');
  if (sealed.length < IV_BYTES + TAG_BYTES + 1 + 8 + NAME_BYTES + 2 || sealed.toString('base64url') !== id) return undefined;
  let plain: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV_BYTES));
    decipher.setAAD(AAD);
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    plain = Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
  if (plain[0] !== VERSION) return undefined;
  let at = 1;
  const expiresAt = Number(plain.readBigUInt64BE(at));
  at += 8;
  const name = plain.subarray(at, at + NAME_BYTES).toString('hex');
  at += NAME_BYTES;
  const queryLength = plain[at++]!;
  const queryId = plain.subarray(at, at + queryLength).toString('utf8');
  at += queryLength;
  const nodeLength = plain[at++]!;
  const nodeId = plain.subarray(at, at + nodeLength).toString('utf8');
  return { name, queryId, nodeId, expiresAt };
}

/**
 * The key segment ids are sealed with: protocol.spooling.shared-secret-key when set (Trino's, 256 bits);
 * else one derived from internal-communication.shared-secret, which every node of a cluster has (`serve`
 * makes one for itself and its local workers); else none: no spooled segments, rows go inline.
 */
export function spoolingKeyOf(config: { spoolingSharedSecretKey?: Buffer; internalSharedSecret?: string }): Buffer | undefined {
  if (config.spoolingSharedSecretKey) return config.spoolingSharedSecretKey;
  if (config.internalSharedSecret !== undefined) return createHash('sha256').update('vivace spooling key\0').update(config.internalSharedSecret).digest();
  return undefined;
}

/** Trino's expiresAt: a local date-time without offset (UTC here), with milliseconds. */
export function expiresAtText(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 23);
}
