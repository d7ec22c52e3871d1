// Fixtures for the authentication and HTTPS specs: a throw-away directory, a self-signed certificate,
// password files with real bcrypt and PBKDF2 hashes, a real server with HTTPS on free loopback ports,
// an HTTPS request helper that trusts that certificate and keeps every response header line, and the
// mocha hooks that make and remove them for a describe (secureFixture).
import { pbkdf2Sync, randomBytes, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import selfsigned from 'selfsigned';
import { createCoordinator, type Coordinator } from '../../lib/actors/coordinator.js';
import type { CoordinatorConfig } from '../../lib/config.js';
import { startServer, type RunningServer } from '../../lib/http/server.js';
import { createTestEngine } from '../support/duckdb.js';
import { createAccessControl } from '../../lib/security/access-control.js';

export interface TempDir {
  path: string;
  file(name: string, content: string): string;
  remove(): void;
}

export function tempDir(): TempDir {
  const path = mkdtempSync(join(tmpdir(), 'vivace-auth-'));
  return {
    path,
    file(name, content) {
      const file = join(path, name);
      writeFileSync(file, content);
      return file;
    },
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}

export interface Certificate {
  cert: string;
  key: string;
}

/** A self-signed EC certificate for 127.0.0.1 and localhost. */
export async function makeCertificate(): Promise<Certificate> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keyType: 'ec',
    curve: 'P-256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }, { type: 2, value: 'localhost' }] }],
  });
  return { cert: pems.cert, key: pems.private };
}

/** Trino's minimum bcrypt cost (EncryptionUtil): a lower one is refused when the file is read. */
export const BCRYPT_COST = 8;

export function bcryptLine(user: string, password: string, version: '$2a$' | '$2b$' | '$2y$' = '$2y$'): string {
  const hash = bcrypt.hashSync(password, BCRYPT_COST);
  return `${user}:${version}${hash.slice(4)}`;
}

/** Trino's PBKDF2 format: `iterations:salt:hash`, lowercase hex, PBKDF2WithHmacSHA1. */
export function pbkdf2Line(user: string, password: string, iterations = 1000): string {
  const salt = randomBytes(16);
  const hash = pbkdf2Sync(password, salt, iterations, 32, 'sha1');
  return `${user}:${iterations}:${salt.toString('hex')}:${hash.toString('hex')}`;
}

export interface SecureServer {
  coordinator: Coordinator;
  server: RunningServer;
  url: string;
  httpsUrl: string;
  stop(): Promise<void>;
}

/** A real coordinator on DuckDB with HTTP and HTTPS on free loopback ports. */
export async function startSecureServer(config: Partial<CoordinatorConfig>): Promise<SecureServer> {
  const coordinator = createCoordinator({ engine: await createTestEngine(2), config: { trackerIntervalMs: 60_000, ...config } });
  let server: RunningServer;
  try {
    // The rules file's access control when the config names one (security.config-file), Trino's default otherwise.
    server = await startServer(coordinator, { host: '127.0.0.1', port: 0, httpsPort: 0, accessControl: createAccessControl(coordinator.config) });
  } catch (err) {
    await coordinator.stop();
    throw err;
  }
  return {
    coordinator,
    server,
    url: server.url,
    httpsUrl: server.httpsUrl ?? server.url,
    async stop() {
      await server.close();
      await coordinator.stop();
    },
  };
}

/**
 * HTTPS with PASSWORD,JWT: alice (bcrypt, `alice-secret`) and bob (PBKDF2, `bob-secret`) in the password
 * file, tokens checked against `jwtPublicKey`; the keystore holds the key, then the certificate.
 */
export function startAuthenticatedServer(
  dir: TempDir,
  certificate: Certificate,
  jwtPublicKey: KeyObject,
  config: Partial<CoordinatorConfig> = {},
): Promise<SecureServer> {
  return startSecureServer({
    authenticationTypes: ['PASSWORD', 'JWT'],
    passwordFile: dir.file('password.db', `${bcryptLine('alice', 'alice-secret')}\n${pbkdf2Line('bob', 'bob-secret')}\n`),
    jwtKeyFile: dir.file('jwt.pem', jwtPublicKey.export({ type: 'spki', format: 'pem' }) as string),
    httpsEnabled: true,
    httpsKeystorePath: dir.file('keystore.pem', `${certificate.key}${certificate.cert}`),
    ...config,
  });
}

export interface SecureFixture {
  readonly dir: TempDir;
  readonly certificate: Certificate;
  /** The server `start` made (an error to read when no `start` was given). */
  readonly server: SecureServer;
}

/**
 * The HTTPS specs' shared hooks, registered in the calling describe: before its tests a throw-away
 * directory, a certificate and the server `start` makes of them (none without `start`); after them the
 * server stopped and the directory removed. The fields are there once the before hook has run.
 */
export function secureFixture(start?: (dir: TempDir, certificate: Certificate) => Promise<SecureServer>): SecureFixture {
  let made: { dir: TempDir; certificate?: Certificate; server?: SecureServer } | undefined;
  before(async () => {
    made = { dir: tempDir() };
    made.certificate = await makeCertificate();
    if (start) made.server = await start(made.dir, made.certificate);
  });
  after(async () => {
    await made?.server?.stop();
    made?.dir.remove();
  });
  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`secureFixture: no ${what} (read before its before hook ran${what === 'server' ? ', or made without start' : ''})`);
    return value;
  };
  return {
    get dir() {
      return ready(made?.dir, 'dir');
    },
    get certificate() {
      return ready(made?.certificate, 'certificate');
    },
    get server() {
      return ready(made?.server, 'server');
    },
  };
}

export interface RawResponse {
  status: number;
  /** lower-cased name -> every value, in order (WWW-Authenticate comes once per method) */
  headers: Map<string, string[]>;
  text: string;
  body: any;
}

/** One request over HTTP or HTTPS (trusting `ca`), with no connection reuse. */
export function send(
  method: string,
  url: string,
  init: { headers?: Record<string, string>; body?: string; ca?: string } = {},
): Promise<RawResponse> {
  const target = new URL(url);
  const requester = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = requester(
      target,
      { method, headers: { ...init.headers, Connection: 'close' }, ...(init.ca === undefined ? {} : { ca: init.ca }) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Map<string, string[]>();
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            const name = res.rawHeaders[i].toLowerCase();
            headers.set(name, [...(headers.get(name) ?? []), res.rawHeaders[i + 1]]);
          }
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = text ? JSON.parse(text) : undefined;
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers, text, body });
        });
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
}
