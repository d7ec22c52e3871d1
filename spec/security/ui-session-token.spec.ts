// The web UI's session token by attack: forged, tampered, re-signed, expired, foreign and malformed
// tokens are all refused; only our own, unexpired token names its user.
import { expect } from 'chai';
import fc from 'fast-check';
import { createHash, createHmac } from 'node:crypto';
import { UiSessionTokens } from '../../lib/security/ui-session-token.js';

const SECRET = 'spec-secret';
const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** A token signed with the key web-ui.shared-secret=SECRET gives (SHA-256 of it), any header and claims. */
function forge(header: unknown, claims: unknown, secret = SECRET): string {
  const signed = `${b64(header)}.${b64(claims)}`;
  const key = createHash('sha256').update(secret).digest();
  return `${signed}.${createHmac('sha256', key).update(signed).digest('base64url')}`;
}

describe('ui session token', () => {
  let now = Date.UTC(2026, 10, 28, 12);
  const tokens = new UiSessionTokens({ sharedSecret: SECRET, sessionTimeoutMs: 60_000, now: () => now });
  const HS256 = { alg: 'HS256', typ: 'JWT' };
  const later = () => Math.floor(now / 1000) + 3600;

  it('names the user of a token it issued, until web-ui.session-timeout has passed', () => {
    const { token, expiresAt } = tokens.issue('alice');
    expect(tokens.verify(token)).to.equal('alice');
    expect(expiresAt).to.equal(now + 60_000);
    const start = now;
    now = start + 59_999;
    expect(tokens.verify(token)).to.equal('alice');
    now = start + 60_000;
    expect(tokens.verify(token), 'expired').to.equal(undefined);
    now = start;
  });

  it('keeps sessions across restarts only with a shared secret', () => {
    const { token } = tokens.issue('alice');
    expect(new UiSessionTokens({ sharedSecret: SECRET, sessionTimeoutMs: 1000, now: () => now }).verify(token)).to.equal('alice');
    expect(new UiSessionTokens({ sessionTimeoutMs: 1000, now: () => now }).verify(token), 'random key').to.equal(undefined);
    expect(new UiSessionTokens({ sharedSecret: 'other', sessionTimeoutMs: 1000, now: () => now }).verify(token)).to.equal(undefined);
  });

  it('refuses a tampered payload, header or signature', () => {
    const { token } = tokens.issue('alice');
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const bob = b64({ sub: 'bob', aud: 'trino-ui', exp: later() });
    expect(tokens.verify(`${header}.${bob}.${signature}`), 'another subject').to.equal(undefined);
    expect(tokens.verify(`${header}.${payload}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`)).to.equal(undefined);
    expect(tokens.verify(`${header}.${payload}.`)).to.equal(undefined);
    expect(tokens.verify(`${header}.${payload}`)).to.equal(undefined);
    expect(tokens.verify(`${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`), 'alg none').to.equal(undefined);
    expect(tokens.verify(`${b64({ alg: 'none' })}.${bob}.${signature}`)).to.equal(undefined);
    expect(tokens.verify(`${header}.${payload}=.${signature}`), 'padding').to.equal(undefined);
    expect(tokens.verify(`${header}.${payload}.${signature}.x`), 'a fourth part').to.equal(undefined);
    expect(tokens.verify(` ${token}`)).to.equal(undefined);
  });

  it('refuses tokens signed with our key but not of our shape (audience, subject, expiry, header)', () => {
    expect(tokens.verify(forge(HS256, { sub: 'alice', aud: 'trino-ui', exp: later() })), 'control: our shape passes').to.equal('alice');
    for (const claims of [
      { sub: 'alice', exp: later() },
      { sub: 'alice', aud: 'presto-ui', exp: later() },
      { sub: 'alice', aud: ['trino-ui'], exp: later() },
      { sub: '', aud: 'trino-ui', exp: later() },
      { sub: 7, aud: 'trino-ui', exp: later() },
      { aud: 'trino-ui', exp: later() },
      { sub: 'alice', aud: 'trino-ui' },
      { sub: 'alice', aud: 'trino-ui', exp: String(later()) },
      { sub: 'alice', aud: 'trino-ui', exp: Math.floor(now / 1000) },
      'alice',
      null,
      [1],
    ]) {
      expect(tokens.verify(forge(HS256, claims)), JSON.stringify(claims)).to.equal(undefined);
    }
    for (const header of [{ alg: 'HS512', typ: 'JWT' }, { typ: 'JWT', alg: 'HS256' }, { alg: 'HS256' }, { alg: 'HS256', typ: 'JWT', kid: 'x' }]) {
      expect(tokens.verify(forge(header, { sub: 'alice', aud: 'trino-ui', exp: later() })), JSON.stringify(header)).to.equal(undefined);
    }
    const notJson = `${b64(HS256)}.${b64('{"sub":')}`;
    const key = createHash('sha256').update(SECRET).digest();
    expect(tokens.verify(`${notJson}.${createHmac('sha256', key).update(notJson).digest('base64url')}`)).to.equal(undefined);
  });

  it('refuses any string that is not its own token, quickly, without throwing', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (text) => {
        expect(tokens.verify(text)).to.equal(undefined);
      }),
      { numRuns: 2000 },
    );
    const long = `${'a'.repeat(100_000)}.${'b'.repeat(100_000)}.c`;
    const start = process.hrtime.bigint();
    expect(tokens.verify(long)).to.equal(undefined);
    expect(Number(process.hrtime.bigint() - start) / 1e6).to.be.lessThan(50);
  });
});
