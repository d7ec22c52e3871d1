// The Basic Authorization parser against hostile headers: round trips, strict base64, the two
// character sets Basic credentials arrive in, and fixed messages that never echo the header.
import { expect } from 'chai';
import fc from 'fast-check';
import { authorizationScheme, MalformedCredentialsError, parseBasicCredentials } from '../../lib/security/basic-credentials.js';

const encode = (text: string | Buffer) => `Basic ${Buffer.from(text).toString('base64')}`;
const hasControl = (text: string) => [...text].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);

/** A user as a password file or a client can hold it: no colon, no control character. */
const user = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }).filter((u) => !u.includes(':') && !hasControl(u));

describe('security: Basic credentials', () => {
  it('reads user and password; the scheme in any case; the password may hold colons', () => {
    expect(parseBasicCredentials(encode('alice:secret'))).to.deep.equal({ user: 'alice', password: 'secret' });
    expect(parseBasicCredentials(`bAsIc ${Buffer.from('bob:a:b:c').toString('base64')}`)).to.deep.equal({ user: 'bob', password: 'a:b:c' });
    expect(parseBasicCredentials(`Basic   ${Buffer.from('u:p').toString('base64')}  `)).to.deep.equal({ user: 'u', password: 'p' });
  });

  it('has no password without a colon or with nothing after it, as Trino', () => {
    expect(parseBasicCredentials(encode('alice'))).to.deep.equal({ user: 'alice' });
    expect(parseBasicCredentials(encode('alice:'))).to.deep.equal({ user: 'alice' });
  });

  it('ignores other schemes and a header without a space', () => {
    expect(parseBasicCredentials('Bearer abc.def.ghi')).to.equal(undefined);
    expect(parseBasicCredentials('Basic')).to.equal(undefined);
    expect(parseBasicCredentials('')).to.equal(undefined);
    expect(authorizationScheme('Bearer   tok ')).to.deep.equal({ scheme: 'bearer', rest: 'tok' });
  });

  it('refuses bad base64, an empty user and control characters with fixed messages', () => {
    const refuse = (header: string, message: string) =>
      expect(() => parseBasicCredentials(header), header).to.throw(MalformedCredentialsError, message);
    refuse('Basic !!!!', 'Invalid base64 encoded credentials');
    refuse('Basic YWxpY2U6cw=', 'Invalid base64 encoded credentials'); // padding on a length that is no multiple of 4
    refuse('Basic Y', 'Invalid base64 encoded credentials');
    refuse('Basic YW Jj', 'Invalid base64 encoded credentials');
    refuse('Basic YWJj=x==', 'Invalid base64 encoded credentials');
    refuse(encode(':secret'), 'Malformed credentials: user is empty');
    refuse(encode(''), 'Malformed credentials: user is empty');
    refuse(encode('al\nice:pw'), 'Malformed credentials: user contains a control character');
    refuse(encode('a\u0000:pw'), 'Malformed credentials: user contains a control character');
  });

  it('accepts base64 without padding, as Java decoders do', () => {
    expect(parseBasicCredentials(`Basic ${Buffer.from('ab:c').toString('base64').slice(0, 6)}`)).to.deep.equal({ user: 'ab', password: 'c' });
  });

  it('reads UTF-8 credentials as UTF-8 and other bytes as ISO-8859-1 (Java clients)', () => {
    expect(parseBasicCredentials(encode('jürgen:pässwörd'))).to.deep.equal({ user: 'jürgen', password: 'pässwörd' });
    expect(parseBasicCredentials(encode(Buffer.from('j\u00fcrgen:p\u00e4ss', 'latin1')))).to.deep.equal({ user: 'jürgen', password: 'päss' });
  });

  it('round-trips any user and password (fast-check)', () => {
    fc.assert(
      fc.property(user, fc.string({ unit: 'grapheme', maxLength: 60 }), (u, p) => {
        const parsed = parseBasicCredentials(encode(`${u}:${p}`));
        expect(parsed).to.deep.equal(p === '' ? { user: u } : { user: u, password: p });
      }),
      { numRuns: 500 },
    );
  });

  it('answers any header with credentials, nothing, or a fixed message (fast-check)', () => {
    const header = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.string({ unit: 'binary', maxLength: 200 }).map((s) => `Basic ${s}`),
      fc.uint8Array({ maxLength: 120 }).map((bytes) => encode(Buffer.from(bytes))),
    );
    fc.assert(
      fc.property(header, (h) => {
        try {
          const parsed = parseBasicCredentials(h);
          if (parsed) expect(parsed.user !== '' && !hasControl(parsed.user), parsed.user).to.equal(true);
        } catch (err) {
          expect(err).to.be.instanceOf(MalformedCredentialsError);
          expect((err as Error).message).to.be.oneOf([
            'Invalid base64 encoded credentials',
            'Malformed credentials: user is empty',
            'Malformed credentials: user contains a control character',
          ]);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('reads a huge header in linear time', () => {
    const big = `Basic ${'QUFB'.repeat(1 << 20)}`; // "AAA" a million times
    const started = performance.now();
    expect(parseBasicCredentials(big)?.user.length).to.equal(3 << 20);
    expect(() => parseBasicCredentials(`${big}!`)).to.throw(MalformedCredentialsError);
    expect(performance.now() - started).to.be.below(2000);
  });
});
