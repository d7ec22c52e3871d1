// The `Authorization: Basic ...` header (RFC 7617), parsed by hand: every byte of it comes from the
// client, so nothing here uses a regular expression or a lenient decoder, and no message repeats it.

/** A parse failure; its message is fixed text, never the header. */
export class MalformedCredentialsError extends Error {}

export interface BasicCredentials {
  user: string;
  /** absent when the header held no `:` or nothing after it */
  password?: string;
}

/** The scheme of an Authorization value (`Basic`, `Bearer`, ...) and the rest, as Trino splits it: at the first space. */
export function authorizationScheme(header: string): { scheme: string; rest: string } | undefined {
  const space = header.indexOf(' ');
  if (space < 0) return undefined;
  return { scheme: header.slice(0, space).toLowerCase(), rest: header.slice(space + 1).trim() };
}

/**
 * The Basic credentials of an Authorization value, or undefined when it uses another scheme.
 * Throws MalformedCredentialsError for bad base64, an empty user, or control characters.
 */
export function parseBasicCredentials(header: string): BasicCredentials | undefined {
  const parts = authorizationScheme(header);
  if (parts?.scheme !== 'basic') return undefined;
  const text = decodeText(decodeBase64(parts.rest));
  const colon = text.indexOf(':');
  const user = colon < 0 ? text : text.slice(0, colon);
  const password = colon < 0 ? '' : text.slice(colon + 1);
  if (user === '') throw new MalformedCredentialsError('Malformed credentials: user is empty');
  // A user name travels on into query info, logs and headers: a line break or NUL must not.
  if (hasControlCharacter(user)) throw new MalformedCredentialsError('Malformed credentials: user contains a control character');
  return password === '' ? { user } : { user, password };
}

const INVALID_BASE64 = 'Invalid base64 encoded credentials';

/** Strict RFC 4648 base64 (padding optional, as Java's decoder); Buffer's own decoder skips bad characters. */
function decodeBase64(text: string): Buffer {
  let end = text.length;
  if (end > 0 && text.charCodeAt(end - 1) === 0x3d /* = */) end--;
  if (end > 0 && text.charCodeAt(end - 1) === 0x3d) end--;
  const padding = text.length - end;
  if (padding > 0 && text.length % 4 !== 0) throw new MalformedCredentialsError(INVALID_BASE64);
  if (end % 4 === 1) throw new MalformedCredentialsError(INVALID_BASE64);
  for (let i = 0; i < end; i++) {
    if (!isBase64Char(text.charCodeAt(i))) throw new MalformedCredentialsError(INVALID_BASE64);
  }
  return Buffer.from(text.slice(0, end), 'base64');
}

function isBase64Char(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * UTF-8 when the bytes are UTF-8 (Node and browser clients), else ISO-8859-1, which Trino always
 * assumes and Java clients send: each keeps its non-ASCII passwords.
 */
function decodeText(bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return bytes.toString('latin1');
  }
}

/** A C0 control character or DEL: what must not travel on in a user name. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}
