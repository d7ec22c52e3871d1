// The secret part of a query's result addresses. Anyone may list query ids (/v1/query), so an address
// built from the id alone would hand one user's rows, and the power to cancel them, to another. As in
// Trino (server/protocol/Slug.java), each query has a random key, and each address carries an HMAC of
// what it names under that key: a page token `n` travels as `n.y<hmac>`, and a stage as `<hmac>`. Seeing
// one page's address does not tell the next one's.
import { createHmac, createSecretKey, randomUUID, timingSafeEqual, type KeyObject } from 'node:crypto';

/** `y` and 40 hex digits (HMAC-SHA1), Trino's slug shape. */
const SLUG_LENGTH = 41;

export class ResultSlug {
  private readonly key: KeyObject;

  /**
   * The default key is a random UUID's 122 random bits: Node draws those from a cached entropy pool,
   * where randomBytes(16) made a system call per query (visible in bench a's profile). The KeyObject is
   * made once, so each HMAC does not import the key again.
   */
  constructor(key: Buffer = Buffer.from(randomUUID().replaceAll('-', ''), 'hex')) {
    this.key = createSecretKey(key);
  }

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
    const slug = `y${createHmac('sha1', this.key).update(what).digest('hex')}`;
    if (this.signed.size >= 4) this.signed.delete(this.signed.keys().next().value!);
    this.signed.set(what, slug);
    return slug;
  }

  private matches(slug: string, what: string): boolean {
    if (slug.length !== SLUG_LENGTH) return false;
    const expected = Buffer.from(this.sign(what), 'utf8');
    const given = Buffer.from(slug, 'utf8');
    // Constant-time, so the comparison's duration tells nothing of how much of a guess was right.
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
