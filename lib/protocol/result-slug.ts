// The secret part of a query's result addresses. Anyone may list query ids (/v1/query), so an address
// built from the id alone would hand one user's rows, and the power to cancel them, to another. Each
// address carries an HMAC of what it names: a page token `n` travels as `n.y<hmac>`, and a stage as
// `<hmac>` (Trino's slug shape, server/protocol/Slug.java). Trino draws a random key per query; here the
// key is drawn once per process and each query draws a random nonce that leads every message it signs,
// which is as unforgeable (no one outside the process knows the key, and no two queries sign the same
// message) without preparing a new key per query. Seeing one page's address does not tell the next one's.
import { randomBytes, randomUUID } from 'node:crypto';
import { HmacSha1, SHA1_BLOCK_BYTES } from './hmac-sha1.js';

/** `y` and 40 hex digits (HMAC-SHA1), Trino's slug shape. */
const SLUG_LENGTH = 41;

/** The process's key: a full SHA-1 block of random bytes. */
const HMAC = new HmacSha1(randomBytes(SHA1_BLOCK_BYTES));

export class ResultSlug {
  /**
   * A random UUID (122 random bits, from Node's cached entropy pool: randomBytes made a system call per
   * query). Always 36 characters, so nonce and message never run into each other ambiguously.
   */
  private readonly nonce = randomUUID();

  /** The path segment for page token `n`. */
  token(n: number): string {
    return `${n}.${this.sign(`token:${n}`)}`;
  }

  /**
   * The page number a path segment names, or undefined when it is not one of this query's tokens (a
   * wrong, missing or altered slug): the caller answers 404 as for an unknown token.
   */
  tokenNumber(segment: string): number | undefined {
    const dot = segment.indexOf('.');
    if (dot <= 0 || dot > 16 || segment.length !== dot + 1 + SLUG_LENGTH) return undefined;
    const digits = segment.slice(0, dot);
    for (let i = 0; i < digits.length; i++) {
      const c = digits.charCodeAt(i);
      if (c < 48 || c > 57) return undefined;
    }
    // One spelling per number: "01" would otherwise name token 1 under a slug signed for "1".
    if (digits.length > 1 && digits[0] === '0') return undefined;
    const n = Number(digits);
    if (!Number.isSafeInteger(n)) return undefined;
    return this.matches(segment.slice(dot + 1), `token:${n}`) ? n : undefined;
  }

  /** The path segment that must follow a stage id in its partial-cancel address. */
  stage(stageId: string): string {
    return this.sign(`stage:${stageId}`);
  }

  isStage(stageId: string, slug: string): boolean {
    return this.matches(slug, `stage:${stageId}`);
  }

  /**
   * A query signs the same few things again and again (the next token when it sends it and when the
   * client comes back with it; stage 0 on every running page): the last ones signed are kept, so most
   * requests compute no HMAC at all.
   */
  private readonly signed = new Map<string, string>();

  private sign(what: string): string {
    const known = this.signed.get(what);
    if (known !== undefined) return known;
    const slug = `y${HMAC.hex(this.nonce + what)}`;
    if (this.signed.size >= 4) this.signed.delete(this.signed.keys().next().value!);
    this.signed.set(what, slug);
    return slug;
  }

  private matches(slug: string, what: string): boolean {
    if (slug.length !== SLUG_LENGTH) return false;
    const expected = this.sign(what);
    // Every character compared whatever the first difference, so the comparison's duration tells
    // nothing of how much of a guess was right (timingSafeEqual's rule, without two buffers per request).
    let difference = 0;
    for (let i = 0; i < SLUG_LENGTH; i++) difference |= slug.charCodeAt(i) ^ expected.charCodeAt(i);
    return difference === 0;
  }
}
