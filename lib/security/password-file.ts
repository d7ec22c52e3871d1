// Trino's file password authenticator (file.password-file): `user:hash` lines, bcrypt or PBKDF2 hashes,
// re-read every file.refresh-period, successful checks cached (file.auth-token-cache.max-size).
// A hash never appears in a message; a broken file names its line number.
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { defaultLogger, type Logger } from '../log/logger.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { checkPassword } from './password-check-worker.js';

export type HashedPassword =
  | { kind: 'bcrypt'; hash: string }
  | { kind: 'pbkdf2'; iterations: number; salt: string; hash: string };

// Trino's floors (EncryptionUtil). The ceilings are ours: one check of a hash past them would hold the
// password-check worker for seconds (bcryptjs at cost 16, PBKDF2 at 10M rounds: ~4 s each).
const BCRYPT_MIN_COST = 8;
const BCRYPT_MAX_COST = 16;
const PBKDF2_MIN_ITERATIONS = 1000;
const PBKDF2_MAX_ITERATIONS = 10_000_000;
const PBKDF2_MAX_HASH_BYTES = 128;
const PBKDF2_MAX_SALT_BYTES = 1024;
/** bcrypt reads 72 bytes; a longer password would match on its prefix alone. */
const BCRYPT_MAX_PASSWORD_BYTES = 72;
const MAX_FILE_BYTES = 16 << 20;

/** A hash-format problem; the caller adds the line number. */
class HashFormatError extends Error {}

function invalid(lineNumber: number, message: string): VivaceError {
  return new VivaceError('CONFIGURATION_INVALID', `Error in password file line ${lineNumber}: ${message}`);
}

/** Users and their hashes; throws CONFIGURATION_INVALID naming the first bad line. */
export function parsePasswordFile(text: string): Map<string, HashedPassword> {
  const users = new Map<string, HashedPassword>();
  let lineNumber = 0;
  let start = 0;
  while (start <= text.length) {
    // Lines end at \n, \r\n or a lone \r, as Java's readAllLines reads them.
    let end = start;
    while (end < text.length && text[end] !== '\n' && text[end] !== '\r') end++;
    lineNumber++;
    const line = text.slice(start, end).trim();
    start = text[end] === '\r' && text[end + 1] === '\n' ? end + 2 : end + 1;
    if (line === '') continue;
    const colon = line.indexOf(':');
    if (colon < 0) throw invalid(lineNumber, 'Expected two parts for user and password');
    const user = line.slice(0, colon);
    if (user === '') throw invalid(lineNumber, 'User is empty');
    let hashed: HashedPassword;
    try {
      hashed = parseHash(line.slice(colon + 1));
    } catch (err) {
      if (err instanceof HashFormatError) throw invalid(lineNumber, err.message);
      throw err;
    }
    if (users.has(user)) throw invalid(lineNumber, `Duplicate user: ${user}`);
    users.set(user, hashed);
  }
  return users;
}

const BCRYPT_VERSIONS = ['$2a$', '$2b$', '$2y$'];

/** As Trino decides: a bcrypt version prefix, else a `:` means PBKDF2, else unknown. */
export function parseHash(text: string): HashedPassword {
  if (text.startsWith('$2x$')) throw new HashFormatError('Unsupported BCrypt version $2x$ (use $2a$, $2b$ or $2y$)');
  if (BCRYPT_VERSIONS.some((v) => text.startsWith(v))) return parseBcrypt(text);
  if (text.includes(':')) return parsePbkdf2(text);
  throw new HashFormatError('Password hashing algorithm cannot be determined');
}

/** `$2b$NN$` + 22 characters of salt + 31 of hash, bcrypt's base64 alphabet. */
function parseBcrypt(text: string): HashedPassword {
  if (text.length !== 60 || text[6] !== '$' || !isDigit(text.charCodeAt(4)) || !isDigit(text.charCodeAt(5))) {
    throw new HashFormatError('Invalid BCrypt password');
  }
  for (let i = 7; i < 60; i++) {
    if (!isBcryptBase64(text.charCodeAt(i))) throw new HashFormatError('Invalid BCrypt password');
  }
  const cost = Number(text.slice(4, 6));
  if (cost < BCRYPT_MIN_COST) throw new HashFormatError(`Minimum cost of BCrypt password must be ${BCRYPT_MIN_COST}`);
  if (cost > BCRYPT_MAX_COST) throw new HashFormatError(`Maximum cost of BCrypt password is ${BCRYPT_MAX_COST}`);
  return { kind: 'bcrypt', hash: text };
}

/** `iterations:salt:hash`, salt and hash in lowercase hex (Trino's PBKDF2WithHmacSHA1 format). */
function parsePbkdf2(text: string): HashedPassword {
  const first = text.indexOf(':');
  const second = text.indexOf(':', first + 1);
  if (second < 0 || text.indexOf(':', second + 1) >= 0) throw new HashFormatError('Invalid PBKDF2 password');
  const iterationsText = text.slice(0, first);
  if (iterationsText === '' || iterationsText.length > 10) throw new HashFormatError('Invalid PBKDF2 password');
  for (let i = 0; i < iterationsText.length; i++) {
    if (!isDigit(iterationsText.charCodeAt(i))) throw new HashFormatError('Invalid PBKDF2 password');
  }
  const iterations = Number(iterationsText);
  const salt = lowerHex(text.slice(first + 1, second), PBKDF2_MAX_SALT_BYTES);
  const hash = lowerHex(text.slice(second + 1), PBKDF2_MAX_HASH_BYTES);
  if (iterations < PBKDF2_MIN_ITERATIONS) throw new HashFormatError(`Minimum iterations of PBKDF2 password must be ${PBKDF2_MIN_ITERATIONS}`);
  if (iterations > PBKDF2_MAX_ITERATIONS) throw new HashFormatError(`Maximum iterations of PBKDF2 password is ${PBKDF2_MAX_ITERATIONS}`);
  return { kind: 'pbkdf2', iterations, salt, hash };
}

function lowerHex(text: string, maxBytes: number): string {
  if (text === '' || text.length % 2 !== 0 || text.length > 2 * maxBytes) throw new HashFormatError('Invalid PBKDF2 password');
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!isDigit(c) && !(c >= 0x61 && c <= 0x66)) throw new HashFormatError('Invalid PBKDF2 password');
  }
  return text;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isBcryptBase64(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2f;
}

/** Whether `password` matches, checked on the password-check worker (constant-time compare for PBKDF2). */
export async function matches(hashed: HashedPassword, password: string): Promise<boolean> {
  if (hashed.kind === 'bcrypt' && Buffer.byteLength(password, 'utf8') > BCRYPT_MAX_PASSWORD_BYTES) return false;
  return checkPassword({ ...hashed, password });
}

/** Checked for a user of an empty file (a bcrypt hash of cost 8 of nothing anyone knows). */
const EMPTY_FILE_HASH: HashedPassword = { kind: 'bcrypt', hash: '$2b$08$4h3b5zfbZ9siHELwY1..DenXRWx5f/D.LlhrzIqmXpcNd8oiHCDdq' };

export function readPasswordFileText(path: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    throw unreadable(path, err);
  }
  return checkedText(path, bytes);
}

function unreadable(path: string, err: unknown): VivaceError {
  const code = (err as { code?: unknown }).code;
  return new VivaceError('CONFIGURATION_UNAVAILABLE', `Failed to read password file: ${path}${typeof code === 'string' ? ` (${code})` : ''}`);
}

function checkedText(path: string, bytes: Buffer): string {
  if (bytes.length > MAX_FILE_BYTES) throw new VivaceError('CONFIGURATION_INVALID', `Password file ${path} is larger than ${MAX_FILE_BYTES >> 20} MB`);
  return bytes.toString('utf8');
}

export interface PasswordFileOptions {
  path: string;
  /** file.refresh-period (Trino: 5s) */
  refreshPeriodMs: number;
  /** file.auth-token-cache.max-size (Trino: 1000) */
  cacheMaxSize: number;
  /** how long a successful check is remembered */
  cacheTtlMs?: number;
  now?: () => number;
  /**
   * Where a problem found on a re-read is logged, once per problem (the file is then refused until it is
   * fixed); default: the process's logger, as it is when the line is written.
   */
  logger?: Logger;
  /** the hash check (specs count its calls) */
  matches?: typeof matches;
}

interface Store {
  users: ReadonlyMap<string, HashedPassword>;
  /** checked (and its answer dropped) for an unknown user: the file's first hash, so that the answer takes as long as for a known user */
  decoy: HashedPassword;
  /** HMAC of user and password -> expiry, successes only: a wrong password is always checked */
  verified: Map<string, number>;
}

function newStore(users: ReadonlyMap<string, HashedPassword>): Store {
  return { users, decoy: users.values().next().value ?? EMPTY_FILE_HASH, verified: new Map() };
}

/** The password file of a running server: read at start (a bad file stops the start), re-read on schedule. */
export class PasswordFile {
  private store: Store | undefined;
  private text: string;
  private checkedAt: number;
  private reloading: Promise<void> | undefined;
  private lastProblem: string | undefined;
  private readonly cacheKey = randomBytes(32);
  private readonly now: () => number;
  private readonly cacheTtlMs: number;

  constructor(private readonly options: PasswordFileOptions) {
    this.now = options.now ?? Date.now;
    this.cacheTtlMs = options.cacheTtlMs ?? 60_000;
    this.text = readPasswordFileText(options.path);
    this.store = newStore(parsePasswordFile(this.text));
    this.checkedAt = this.now();
  }

  /** Whether the file has `user` with this password. False, too, while a re-read file is broken. */
  async verify(user: string, password: string): Promise<boolean> {
    await this.refresh();
    const store = this.store;
    if (!store) return false;
    const key = createHmac('sha256', this.cacheKey).update(`${user.length}:${user}`).update(password).digest('base64');
    const now = this.now();
    const expires = store.verified.get(key);
    if (expires !== undefined && expires > now) return true;
    const hashed = store.users.get(user);
    const ok = await (this.options.matches ?? matches)(hashed ?? store.decoy, password);
    // The file was re-read meanwhile: its new content decides.
    if (store !== this.store) return this.verify(user, password);
    if (!ok || !hashed) return false;
    store.verified.delete(key);
    store.verified.set(key, now + this.cacheTtlMs);
    if (store.verified.size > this.options.cacheMaxSize) store.verified.delete(store.verified.keys().next().value as string);
    return true;
  }

  private refresh(): Promise<void> {
    if (this.reloading) return this.reloading;
    if (this.now() - this.checkedAt < this.options.refreshPeriodMs) return Promise.resolve();
    this.reloading = this.reload().finally(() => {
      this.checkedAt = this.now();
      this.reloading = undefined;
    });
    return this.reloading;
  }

  private async reload(): Promise<void> {
    let text: string;
    try {
      text = checkedText(this.options.path, await readFile(this.options.path));
    } catch (err) {
      this.refuse(err instanceof VivaceError ? err : unreadable(this.options.path, err));
      return;
    }
    if (text === this.text && this.store) return;
    try {
      const users = parsePasswordFile(text);
      this.text = text;
      this.store = newStore(users);
      this.lastProblem = undefined;
    } catch (err) {
      this.text = text;
      this.refuse(err as VivaceError);
    }
  }

  /** A broken or missing file fails closed: no password is accepted until it is fixed. */
  private refuse(err: VivaceError): void {
    this.store = undefined;
    if (err.message === this.lastProblem) return;
    this.lastProblem = err.message;
    // The messages name a line number or the read's error code, never a hash.
    (this.options.logger ?? defaultLogger()).warn({ component: 'authentication', event: 'password_file_invalid', path: this.options.path, errorName: err.errorName, message: err.message });
  }
}
