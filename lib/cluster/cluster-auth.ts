// Internal authentication between cluster nodes (Trino's internal-communication.shared-secret): every task
// and announcement request carries X-Trino-Internal-Bearer, an HS256 JWT whose subject is the sending
// node's id. As in Trino, the HMAC key is the SHA-256 of the shared secret and a token lives 5 minutes.
// Both ends cache: a sender re-signs only near expiry and a receiver verifies a token once, so the hot
// path (a task's requests) costs a map lookup, not a signature.
import { createHash } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { VivaceError } from '../protocol/vivace-error.js';

/** Lifetime of a signed token (Trino: 5 minutes). */
export const BEARER_LIFETIME_MS = 5 * 60_000;
/** A cached token is replaced once less than this is left of it, so a request never carries one about to expire. */
const RESIGN_MARGIN_MS = 60_000;
/** Tokens remembered by each side; past this the oldest goes (a few per node in practice). */
const CACHE_LIMIT = 256;
/** Longer bearers are refused unread (a real one is about 150 characters). */
const MAX_TOKEN_LENGTH = 4096;

const keys = new Map<string, Uint8Array>();
function keyOf(secret: string): Uint8Array {
  let key = keys.get(secret);
  if (!key) {
    key = new Uint8Array(createHash('sha256').update(secret, 'utf8').digest());
    remember(keys, secret, key);
  }
  return key;
}

function remember<V>(map: Map<string, V>, key: string, value: V): void {
  if (map.size >= CACHE_LIMIT) map.delete(map.keys().next().value as string);
  map.set(key, value);
}

interface Signed {
  token: Promise<string>;
  expiresAt: number;
}
const signed = new Map<string, Signed>();

/** The bearer `nodeId` sends under `secret`: a cached token, re-signed when less than a minute is left. */
export function internalBearer(secret: string, nodeId: string, now: number = Date.now()): Promise<string> {
  const cacheKey = `${nodeId}\u0000${secret}`;
  const cached = signed.get(cacheKey);
  if (cached && cached.expiresAt - now > RESIGN_MARGIN_MS) return cached.token;
  const expiresAt = now + BEARER_LIFETIME_MS;
  const token = new SignJWT({})
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(nodeId)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(expiresAt / 1000))
    .sign(keyOf(secret));
  const entry: Signed = { token, expiresAt };
  remember(signed, cacheKey, entry);
  // A failed signature is not cached.
  token.catch(() => {
    if (signed.get(cacheKey) === entry) signed.delete(cacheKey);
  });
  return token;
}

/** Headers to add to an internal request: the bearer when a secret is configured, none otherwise. */
export async function internalHeaders(secret: string | undefined, nodeId: string): Promise<Record<string, string>> {
  return secret === undefined ? {} : { 'X-Trino-Internal-Bearer': await internalBearer(secret, nodeId) };
}

interface Verified {
  nodeId: string;
  expiresAt: number;
}
const verified = new Map<string, Verified>();
let lastVerified: (Verified & { secret: string; token: string }) | undefined;

/**
 * The node id a bearer was signed for; rejects with a 401 VivaceError when it is missing, malformed,
 * expired or signed with another secret. A token verified before is taken from the cache until it expires.
 */
export async function verifyInternalBearer(secret: string, token: string | undefined, now: number = Date.now()): Promise<{ nodeId: string }> {
  if (token === undefined || token === '') throw refusal('Internal authentication required');
  if (token.length > MAX_TOKEN_LENGTH) throw refusal('Invalid internal bearer');
  // The token a node sent last, as it sends it with every request until it re-signs: two comparisons
  // instead of a key of secret and token built and hashed per request.
  const last = lastVerified;
  if (last !== undefined && last.token === token && last.secret === secret && last.expiresAt > now) return { nodeId: last.nodeId };
  const cacheKey = `${secret.length}\u0000${secret}\u0000${token}`;
  const cached = verified.get(cacheKey);
  if (cached) {
    if (cached.expiresAt > now) {
      lastVerified = { secret, token, ...cached };
      return { nodeId: cached.nodeId };
    }
    verified.delete(cacheKey);
    throw refusal('Internal bearer expired');
  }
  let payload: { sub?: unknown; exp?: unknown };
  try {
    ({ payload } = await jwtVerify(token, keyOf(secret), { algorithms: ['HS256'], currentDate: new Date(now), requiredClaims: ['sub', 'exp'] }));
  } catch (err) {
    const expired = (err as { code?: unknown }).code === 'ERR_JWT_EXPIRED';
    throw refusal(expired ? 'Internal bearer expired' : 'Invalid internal bearer');
  }
  if (typeof payload.sub !== 'string' || payload.sub === '' || typeof payload.exp !== 'number') throw refusal('Invalid internal bearer');
  const entry: Verified = { nodeId: payload.sub, expiresAt: payload.exp * 1000 };
  remember(verified, cacheKey, entry);
  lastVerified = { secret, token, ...entry };
  return { nodeId: payload.sub };
}

const refusal = (message: string) => new VivaceError('PERMISSION_DENIED', message, { httpStatus: 401 });
