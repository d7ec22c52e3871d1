// Trino's JWT authenticator: a Bearer token signed by the key in http-server.authentication.jwt.key-file
// (a PEM public key, a JWKS file, or a base64 HMAC secret as Trino also reads), with the required issuer
// and audience; the principal is one claim (principal-field, `sub`). Files only: nothing is fetched.
import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet, type JWTVerifyGetKey, type JWTVerifyResult } from 'jose';
import { VivaceError } from '../protocol/vivace-error.js';
import { hasControlCharacter } from './basic-credentials.js';

/** A token that does not authenticate; the message is ours, never the token's content. */
export class JwtRejected extends Error {}

export interface JwtAuthenticatorOptions {
  keyFile: string;
  requiredIssuer?: string;
  requiredAudience?: string;
  principalField: string;
  /** time source for exp/nbf (epoch ms) */
  now?: () => number;
}

type VerificationKey = KeyObject | Uint8Array | JWTVerifyGetKey;

interface LoadedKey {
  key: VerificationKey;
  /** the algorithms this key may verify: a token cannot pick another (no `none`, no RS/HS confusion) */
  algorithms: string[];
}

const ASYMMETRIC = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
const MAX_KEY_FILE_BYTES = 1 << 20;

export class JwtAuthenticator {
  private readonly loaded: LoadedKey;
  private readonly now: () => number;

  constructor(private readonly options: JwtAuthenticatorOptions) {
    this.loaded = loadKeyFile(options.keyFile);
    this.now = options.now ?? Date.now;
  }

  /** The principal of a valid token; throws JwtRejected otherwise. */
  async principal(token: string): Promise<string> {
    const result = await this.verify(token);
    const field = this.options.principalField;
    const value = Object.hasOwn(result.payload, field) ? result.payload[field] : undefined;
    if (value === undefined || value === null || value === '') throw new JwtRejected('Invalid credentials');
    if (typeof value !== 'string') throw new JwtRejected(`JWT claim ${field} is not a string`);
    // The principal becomes the query's user, which travels into logs and listings: no line breaks.
    if (hasControlCharacter(value)) throw new JwtRejected(`JWT claim ${field} contains a control character`);
    return value;
  }

  private async verify(token: string): Promise<JWTVerifyResult> {
    const options = {
      algorithms: this.loaded.algorithms,
      currentDate: new Date(this.now()),
      ...(this.options.requiredIssuer === undefined ? {} : { issuer: this.options.requiredIssuer }),
      ...(this.options.requiredAudience === undefined ? {} : { audience: this.options.requiredAudience }),
    };
    try {
      return await jwtVerify(token, this.loaded.key as JWTVerifyGetKey, options);
    } catch (err) {
      // Several JWKS keys fit a token without `kid`: jose hands them over to be tried in turn.
      if ((err as { code?: string }).code === 'ERR_JWKS_MULTIPLE_MATCHING_KEYS') {
        let last: unknown = err;
        for await (const candidate of err as AsyncIterable<KeyObject>) {
          try {
            return await jwtVerify(token, candidate, options);
          } catch (retry) {
            last = retry;
          }
        }
        throw rejection(last, token);
      }
      throw rejection(err, token);
    }
  }
}

/** jose's failure as a short message of ours (jose's own may quote claims). */
function rejection(err: unknown, token: string): JwtRejected {
  const { code, claim } = err as { code?: string; claim?: string };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return new JwtRejected('JWT expired');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'nbf') return new JwtRejected('JWT is not valid yet');
      if (claim === 'iss') return new JwtRejected('JWT issuer is not the required issuer');
      if (claim === 'aud') return new JwtRejected('JWT audience does not include the required audience');
      return new JwtRejected('JWT claims are invalid');
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return new JwtRejected('JWT signature does not match');
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return new JwtRejected(isUnsigned(token) ? 'Unsigned JWTs are not accepted' : 'JWT signing algorithm is not accepted for the configured key');
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return new JwtRejected('No configured key matches the JWT');
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return new JwtRejected('Malformed JWT');
    default:
      return new JwtRejected('Invalid JWT');
  }
}

function isUnsigned(token: string): boolean {
  try {
    return decodeProtectedHeader(token).alg?.toLowerCase() === 'none';
  } catch {
    return false;
  }
}

function keyFileError(path: string, message: string): VivaceError {
  return new VivaceError('CONFIGURATION_INVALID', `http-server.authentication.jwt.key-file ${path}: ${message}`);
}

/** Reads the key file at startup; a bad file stops the start with a message naming it (never its bytes). */
export function loadKeyFile(path: string): LoadedKey {
  let text: string;
  try {
    const bytes = readFileSync(path);
    if (bytes.length > MAX_KEY_FILE_BYTES) throw keyFileError(path, 'larger than 1 MB');
    text = bytes.toString('utf8').trim();
  } catch (err) {
    if (err instanceof VivaceError) throw err;
    const code = (err as { code?: unknown }).code;
    throw new VivaceError('CONFIGURATION_UNAVAILABLE', `Failed to read JWT key file: ${path}${typeof code === 'string' ? ` (${code})` : ''}`);
  }
  if (text.startsWith('-----BEGIN')) return pemKey(path, text);
  if (text.startsWith('{')) return jwksKey(path, text);
  return hmacKey(path, text);
}

function pemKey(path: string, pem: string): LoadedKey {
  let key: KeyObject;
  try {
    // A certificate or a private key gives its public key too.
    key = createPublicKey(pem);
  } catch {
    throw keyFileError(path, 'not a PEM public key or certificate that Node can read');
  }
  return { key, algorithms: algorithmsFor(path, key) };
}

function algorithmsFor(path: string, key: KeyObject): string[] {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
    case 'rsa-pss':
      return ['PS256', 'PS384', 'PS512'];
    case 'ed25519':
      return ['EdDSA', 'Ed25519'];
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      if (curve === 'prime256v1') return ['ES256'];
      if (curve === 'secp384r1') return ['ES384'];
      if (curve === 'secp521r1') return ['ES512'];
      throw keyFileError(path, `unsupported EC curve ${curve ?? 'unknown'} (P-256, P-384 or P-521)`);
    }
    default:
      throw keyFileError(path, `unsupported key type ${key.asymmetricKeyType ?? 'unknown'} (RSA, EC or Ed25519)`);
  }
}

function jwksKey(path: string, text: string): LoadedKey {
  let jwks: unknown;
  try {
    jwks = JSON.parse(text);
  } catch {
    throw keyFileError(path, 'not valid JSON');
  }
  const keys = (jwks as { keys?: unknown }).keys;
  if (!Array.isArray(keys) || keys.length === 0) throw keyFileError(path, 'a JWKS needs a non-empty "keys" array');
  keys.forEach((jwk: unknown, i) => {
    if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) throw keyFileError(path, `key ${i + 1} is not an object`);
    const { kty, d } = jwk as { kty?: unknown; d?: unknown };
    if (kty !== 'RSA' && kty !== 'EC' && kty !== 'OKP') throw keyFileError(path, `key ${i + 1}: only RSA, EC and OKP public keys are accepted`);
    if (d !== undefined) throw keyFileError(path, `key ${i + 1} is a private key; the file must hold public keys only`);
    try {
      createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    } catch {
      throw keyFileError(path, `key ${i + 1} is not a valid public key`);
    }
  });
  return { key: createLocalJWKSet(jwks as JSONWebKeySet), algorithms: ASYMMETRIC };
}

/** A base64 secret (line breaks allowed, as Java's MIME decoder), at least 256 bits, as Trino's jjwt requires. */
function hmacKey(path: string, text: string): LoadedKey {
  let compact = '';
  for (const ch of text) {
    if (ch === '\n' || ch === '\r' || ch === ' ' || ch === '\t') continue;
    const c = ch.charCodeAt(0);
    const base64 = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || ch === '+' || ch === '/' || ch === '=';
    if (!base64) throw keyFileError(path, 'neither a PEM key, a JWKS, nor a base64 HMAC secret');
    compact += ch;
  }
  const secret = new Uint8Array(Buffer.from(compact, 'base64'));
  if (secret.length < 32) throw keyFileError(path, 'an HMAC secret needs at least 256 bits');
  const algorithms = ['HS256'];
  if (secret.length >= 48) algorithms.push('HS384');
  if (secret.length >= 64) algorithms.push('HS512');
  return { key: secret, algorithms };
}
