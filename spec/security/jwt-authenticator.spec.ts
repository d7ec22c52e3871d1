// JWT verification with keys read from files only (PEM public keys of each type, a JWKS, a base64 HMAC
// secret), tokens signed here with jose: valid, expired, not yet valid, wrong key, wrong issuer and
// audience, missing principal, alg none and algorithm confusion all refused with messages of ours.
import { expect } from 'chai';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { exportJWK, SignJWT, UnsecuredJWT } from 'jose';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { JwtAuthenticator, JwtRejected, type JwtAuthenticatorOptions } from '../../lib/security/jwt-authenticator.js';
import { tempDir, type TempDir } from './auth-fixtures.js';

const pem = (key: KeyObject) => key.export({ type: 'spki', format: 'pem' }) as string;

interface Signer {
  alg: string;
  privateKey: KeyObject | Uint8Array;
  kid?: string;
}

function token(signer: Signer, claims: Record<string, unknown>, at: number, options: { expiresIn?: number; notBefore?: number } = {}) {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: signer.alg, ...(signer.kid ? { kid: signer.kid } : {}) }).setIssuedAt(Math.floor(at / 1000));
  if (options.expiresIn !== undefined) jwt.setExpirationTime(Math.floor(at / 1000) + options.expiresIn);
  if (options.notBefore !== undefined) jwt.setNotBefore(Math.floor(at / 1000) + options.notBefore);
  return jwt.sign(signer.privateKey);
}

describe('security: JWT authenticator', () => {
  let dir: TempDir;
  const now = Date.UTC(2026, 10, 24, 1, 0, 0);
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const otherRsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ed = generateKeyPairSync('ed25519');
  const rs256: Signer = { alg: 'RS256', privateKey: rsa.privateKey };

  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.remove());

  const authenticator = (keyText: string, options: Partial<JwtAuthenticatorOptions> = {}) =>
    new JwtAuthenticator({ keyFile: dir.file('jwt-key', keyText), principalField: 'sub', now: () => now, ...options });

  async function rejected(auth: JwtAuthenticator, jwt: string): Promise<string> {
    try {
      await auth.principal(jwt);
    } catch (err) {
      expect(err).to.be.instanceOf(JwtRejected);
      return (err as Error).message;
    }
    throw new Error('accepted');
  }

  it('accepts a token signed by the PEM public key (RSA, EC P-256, Ed25519) and returns its subject', async () => {
    expect(await authenticator(pem(rsa.publicKey)).principal(await token(rs256, { sub: 'alice' }, now, { expiresIn: 60 }))).to.equal('alice');
    expect(await authenticator(pem(rsa.publicKey)).principal(await token({ alg: 'PS384', privateKey: rsa.privateKey }, { sub: 'al' }, now))).to.equal('al');
    expect(await authenticator(pem(ec.publicKey)).principal(await token({ alg: 'ES256', privateKey: ec.privateKey }, { sub: 'bob' }, now))).to.equal('bob');
    expect(await authenticator(pem(ed.publicKey)).principal(await token({ alg: 'EdDSA', privateKey: ed.privateKey }, { sub: 'carol' }, now))).to.equal('carol');
  });

  it('reads the principal from principal-field', async () => {
    const auth = authenticator(pem(rsa.publicKey), { principalField: 'email' });
    expect(await auth.principal(await token(rs256, { sub: 'x', email: 'alice@example.com' }, now))).to.equal('alice@example.com');
    expect(await rejected(auth, await token(rs256, { sub: 'x' }, now))).to.equal('Invalid credentials');
    expect(await rejected(auth, await token(rs256, { email: 42 }, now))).to.equal('JWT claim email is not a string');
    expect(await rejected(auth, await token(rs256, { email: 'a\nb' }, now))).to.equal('JWT claim email contains a control character');
  });

  it('refuses expired, not-yet-valid, wrongly signed, foreign-issuer and foreign-audience tokens', async () => {
    const auth = authenticator(pem(rsa.publicKey), { requiredIssuer: 'https://issuer.example', requiredAudience: 'vivace' });
    const claims = { sub: 'alice', iss: 'https://issuer.example', aud: 'vivace' };
    expect(await auth.principal(await token(rs256, claims, now, { expiresIn: 60 }))).to.equal('alice');
    expect(await auth.principal(await token(rs256, { ...claims, aud: ['other', 'vivace'] }, now))).to.equal('alice');
    expect(await rejected(auth, await token(rs256, claims, now - 120_000, { expiresIn: 60 }))).to.equal('JWT expired');
    expect(await rejected(auth, await token(rs256, claims, now, { notBefore: 60 }))).to.equal('JWT is not valid yet');
    expect(await rejected(auth, await token({ alg: 'RS256', privateKey: otherRsa.privateKey }, claims, now))).to.equal('JWT signature does not match');
    expect(await rejected(auth, await token(rs256, { ...claims, iss: 'https://evil.example' }, now))).to.equal('JWT issuer is not the required issuer');
    expect(await rejected(auth, await token(rs256, { sub: 'alice', aud: 'vivace' }, now))).to.equal('JWT issuer is not the required issuer');
    expect(await rejected(auth, await token(rs256, { ...claims, aud: 'other' }, now))).to.equal('JWT audience does not include the required audience');
    expect(await rejected(auth, await token(rs256, { iss: claims.iss, aud: 'vivace' }, now))).to.equal('Invalid credentials');
  });

  it('refuses alg none, HMAC signed with the public key (algorithm confusion), and malformed tokens', async () => {
    const auth = authenticator(pem(rsa.publicKey));
    expect(await rejected(auth, new UnsecuredJWT({ sub: 'alice' }).encode())).to.equal('Unsigned JWTs are not accepted');
    const confused = await token({ alg: 'HS256', privateKey: new TextEncoder().encode(pem(rsa.publicKey)) }, { sub: 'alice' }, now);
    expect(await rejected(auth, confused)).to.equal('JWT signing algorithm is not accepted for the configured key');
    expect(await rejected(auth, await token({ alg: 'ES256', privateKey: ec.privateKey }, { sub: 'a' }, now))).to.equal('JWT signing algorithm is not accepted for the configured key');
    for (const bad of ['x', 'a.b.c', '....', 'eyJhbGciOiJSUzI1NiJ9.e30.', `${'A'.repeat(10_000)}.${'B'.repeat(10_000)}.C`]) {
      expect(await rejected(auth, bad), bad.slice(0, 20)).to.be.oneOf(['Malformed JWT', 'Invalid JWT', 'JWT signature does not match']);
    }
  });

  it('verifies against a JWKS file: by kid, and by trying each key when the token names none', async () => {
    const keys = [
      { ...(await exportJWK(otherRsa.publicKey)), kid: 'old', alg: 'RS256', use: 'sig' },
      { ...(await exportJWK(rsa.publicKey)), kid: 'new', alg: 'RS256', use: 'sig' },
      { ...(await exportJWK(ec.publicKey)), kid: 'ec' },
    ];
    const auth = authenticator(JSON.stringify({ keys }));
    expect(await auth.principal(await token({ ...rs256, kid: 'new' }, { sub: 'alice' }, now))).to.equal('alice');
    expect(await auth.principal(await token(rs256, { sub: 'bob' }, now))).to.equal('bob');
    expect(await auth.principal(await token({ alg: 'ES256', privateKey: ec.privateKey, kid: 'ec' }, { sub: 'carol' }, now))).to.equal('carol');
    expect(await rejected(auth, await token({ ...rs256, kid: 'unknown' }, { sub: 'alice' }, now))).to.equal('No configured key matches the JWT');
    expect(await rejected(auth, await token({ alg: 'RS256', privateKey: generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey }, { sub: 'x' }, now))).to.equal(
      'JWT signature does not match',
    );
  });

  it('verifies HS256 against a base64 HMAC secret of at least 256 bits, as Trino reads one', async () => {
    const secret = new Uint8Array(32).map((_, i) => i * 7);
    const base64 = Buffer.from(secret).toString('base64');
    const auth = authenticator(`${base64.slice(0, 20)}\n${base64.slice(20)}\n`);
    expect(await auth.principal(await token({ alg: 'HS256', privateKey: secret }, { sub: 'alice' }, now))).to.equal('alice');
    expect(await rejected(auth, await token({ alg: 'HS512', privateKey: new Uint8Array(64) }, { sub: 'alice' }, now))).to.equal(
      'JWT signing algorithm is not accepted for the configured key',
    );
  });

  it('stops the start for a missing or unusable key file, naming the file and not its content', () => {
    const startupError = (text: string | undefined, message: string) => {
      const keyFile = text === undefined ? `${dir.path}/none` : dir.file('k', text);
      expect(() => new JwtAuthenticator({ keyFile, principalField: 'sub' })).to.throw(VivaceError, message);
    };
    startupError(undefined, 'Failed to read JWT key file');
    startupError('-----BEGIN PUBLIC KEY-----\nnot base64\n-----END PUBLIC KEY-----\n', 'not a PEM public key or certificate');
    startupError('{"keys": []}', 'a JWKS needs a non-empty "keys" array');
    startupError('{"keys": [', 'not valid JSON');
    startupError('{"keys": [{"kty": "oct", "k": "c2VjcmV0"}]}', 'key 1: only RSA, EC and OKP public keys are accepted');
    startupError(JSON.stringify({ keys: [{ ...rsa.privateKey.export({ format: 'jwk' }) }] }), 'key 1 is a private key');
    startupError('{"keys": [{"kty": "RSA", "n": "AQAB"}]}', 'key 1 is not a valid public key');
    startupError(Buffer.alloc(16).toString('base64'), 'an HMAC secret needs at least 256 bits');
    startupError('this is no key!', 'neither a PEM key, a JWKS, nor a base64 HMAC secret');
    const secp256k1 = generateKeyPairSync('ec', { namedCurve: 'secp256k1' });
    startupError(pem(secp256k1.publicKey), 'unsupported EC curve secp256k1');
  });
});
