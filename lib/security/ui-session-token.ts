// The web UI's session token, as Trino's FormWebUiAuthenticationFilter makes it: a JWT signed with
// HS256, subject the user, audience `trino-ui`, expiring web-ui.session-timeout after the login. The key
// is SHA-256 of web-ui.shared-secret, or 32 random bytes per process (sessions end with a restart, as in
// Trino). Verification is by hand over a hostile cookie: the signature is compared in constant time
// before any part is decoded, and anything not exactly our own shape is refused.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const UI_AUDIENCE = 'trino-ui';
/** Our header, byte for byte: a token with any other header (alg none, another algorithm) is refused. */
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
/** Longer values are refused before any work: one cookie holds at most 4 kB. */
const MAX_TOKEN_LENGTH = 4096;

export interface UiSessionTokensOptions {
  /** web-ui.shared-secret: the same key across restarts (and coordinators); random when absent */
  sharedSecret?: string;
  /** web-ui.session-timeout in ms (Trino's default, 1d) */
  sessionTimeoutMs: number;
  /** epoch ms */
  now: () => number;
}

export class UiSessionTokens {
  private readonly key: Buffer;

  constructor(private readonly options: UiSessionTokensOptions) {
    this.key = options.sharedSecret === undefined ? randomBytes(32) : createHash('sha256').update(options.sharedSecret, 'utf8').digest();
  }

  /** A token for `user`, and when it expires (epoch ms). */
  issue(user: string): { token: string; expiresAt: number } {
    // JWT times are whole seconds; rounding down never lengthens a session.
    const exp = Math.floor((this.options.now() + this.options.sessionTimeoutMs) / 1000);
    const payload = Buffer.from(JSON.stringify({ sub: user, aud: UI_AUDIENCE, exp }), 'utf8').toString('base64url');
    const signed = `${HEADER}.${payload}`;
    return { token: `${signed}.${this.sign(signed)}`, expiresAt: exp * 1000 };
  }

  /** The user a token names, or undefined when it is forged, tampered with, expired or not ours. */
  verify(token: string): string | undefined {
    if (token.length > MAX_TOKEN_LENGTH) return undefined;
    const firstDot = token.indexOf('.');
    const lastDot = token.lastIndexOf('.');
    if (firstDot < 0 || lastDot === firstDot) return undefined;
    const header = token.slice(0, firstDot);
    const payload = token.slice(firstDot + 1, lastDot);
    const signature = token.slice(lastDot + 1);
    if (header !== HEADER || !isBase64Url(payload) || !isBase64Url(signature)) return undefined;
    const expected = Buffer.from(this.sign(`${header}.${payload}`), 'ascii');
    const given = Buffer.from(signature, 'ascii');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let claims: unknown;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (typeof claims !== 'object' || claims === null) return undefined;
    const { sub, aud, exp } = claims as Record<string, unknown>;
    if (aud !== UI_AUDIENCE || typeof sub !== 'string' || sub === '') return undefined;
    // No leeway: a token is dead at its exp second, as the protocol's JWTs are (jwt-authenticator.ts).
    if (typeof exp !== 'number' || !Number.isFinite(exp) || exp * 1000 <= this.options.now()) return undefined;
    return sub;
  }

  private sign(data: string): string {
    return createHmac('sha256', this.key).update(data, 'ascii').digest('base64url');
  }
}

/** Only the unpadded base64url alphabet: Buffer's decoder would skip anything else silently. */
function isBase64Url(text: string): boolean {
  if (text === '') return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const ok = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x5f;
    if (!ok) return false;
  }
  return true;
}
