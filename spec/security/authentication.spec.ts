// Authentication through a real server on HTTPS: PASSWORD (bcrypt and PBKDF2 users) and JWT chained as
// Trino chains them, 401 with one WWW-Authenticate per method on every non-public route, public health
// checks, plain HTTP refused (or Trino's insecure authenticator when allowed), hostile Authorization
// headers answered with 4xx JSON, and no credential ever echoed.
import { expect } from 'chai';
import fc from 'fast-check';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import type { CoordinatorConfig } from '../../lib/config.js';
import { limitPendingChecks } from '../../lib/security/password-check-worker.js';
import { expectValid } from '../support/schema-validator.js';
import { validateStatement } from '../support/http.js';
import { basic, bcryptLine, secureFixture, send, startAuthenticatedServer, startSecureServer, type RawResponse } from './auth-fixtures.js';

const BASIC = 'Basic realm="Trino"';
const BEARER = 'Bearer realm="Trino", token_type="JWT"';
const ISSUER = 'https://issuer.example';

function expectRefusal(res: RawResponse, status: number, message: string, challenges: string[]): void {
  expect(res.status, res.text).to.equal(status);
  expectValid('error', res.body);
  expect(res.body).to.include({ errorName: 'PERMISSION_DENIED', message, status });
  expect(res.headers.get('www-authenticate') ?? []).to.deep.equal(challenges);
}

/** Every kind of route but the public ones. */
const PROTECTED: [string, string][] = [
  ['POST', '/v1/statement'],
  ['GET', '/v1/statement/20261124_010000_00000_abcde/1'],
  ['DELETE', '/v1/statement/20261124_010000_00000_abcde/1'],
  ['GET', '/v1/query'],
  ['GET', '/v1/query/20261124_010000_00000_abcde'],
  ['DELETE', '/v1/query/20261124_010000_00000_abcde'],
  ['PUT', '/v1/query/20261124_010000_00000_abcde/killed'],
  ['DELETE', '/v1/stage/20261124_010000_00000_abcde.0'],
  ['GET', '/v1/node'],
  ['GET', '/v1/node/failed'],
  ['GET', '/v1/cluster'],
  ['PUT', '/v1/info/state'],
  ['GET', '/v1/info/nodestats'],
  ['GET', '/V1/INFO'],
  ['GET', '/v1/info/'],
  ['GET', '/no/such/route'],
];

describe('security: authentication (real server, HTTPS)', function () {
  this.timeout(60_000);
  const signing = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwt = (claims: Record<string, unknown>, expiresIn = 300) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'RS256' }).setIssuedAt().setExpirationTime(`${expiresIn}s`).sign(signing.privateKey);
  const tls = secureFixture((dir, certificate) => startAuthenticatedServer(dir, certificate, signing.publicKey, { jwtRequiredIssuer: ISSUER }));

  const https = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
    send(method, `${tls.server.httpsUrl}${path}`, { headers, ca: tls.certificate.cert, ...(body === undefined ? {} : { body }) });

  /** POST and follow nextUri with the same credential, validating every response. */
  async function run(sql: string, headers: Record<string, string>): Promise<{ rows: unknown[][]; id: string }> {
    let res = await https('POST', '/v1/statement', { 'X-Trino-Source': 'spec', ...headers }, sql);
    expect(res.status, res.text).to.equal(200);
    validateStatement(res.body, true);
    const id = res.body.id as string;
    const rows: unknown[][] = [];
    for (;;) {
      rows.push(...((res.body.data ?? []) as unknown[][]));
      if (!res.body.nextUri) break;
      expect(res.body.nextUri.startsWith(`${tls.server.httpsUrl}/`), 'links over TLS use https').to.equal(true);
      res = await send('GET', res.body.nextUri, { headers, ca: tls.certificate.cert });
      expect(res.status, res.text).to.equal(200);
      validateStatement(res.body, false);
    }
    expect(res.body.stats.state).to.equal('FINISHED');
    return { rows, id };
  }

  it('leaves the health checks open, over HTTPS and plain HTTP', async () => {
    for (const base of [tls.server.httpsUrl, tls.server.url]) {
      const info = await send('GET', `${base}/v1/info`, { ca: tls.certificate.cert });
      expect(info.status).to.equal(200);
      expectValid('server-info', info.body);
      expect((await send('GET', `${base}/v1/info/state`, { ca: tls.certificate.cert })).body).to.equal('ACTIVE');
      expect((await send('GET', `${base}/v1/info/coordinator`, { ca: tls.certificate.cert })).status).to.equal(200);
      expectValid('status', (await send('GET', `${base}/v1/status`, { ca: tls.certificate.cert })).body);
      expect((await send('HEAD', `${base}/v1/status`, { ca: tls.certificate.cert })).status).to.equal(200);
    }
  });

  it('answers 401 with both challenges on every other route when no credential comes', async () => {
    for (const [method, path] of PROTECTED) {
      const res = await https(method, path, { 'X-Trino-User': 'alice' }, method === 'GET' || method === 'DELETE' ? undefined : '"x"');
      expectRefusal(res, 401, 'Unauthorized', [BASIC, BEARER]);
    }
    // The web UI's API asks for its login form instead (Trino's Trino-Form-Login), so a browser shows no password dialog.
    expectRefusal(await https('GET', '/ui/api/stats', { 'X-Trino-User': 'alice' }), 401, 'Unauthorized', ['Trino-Form-Login']);
  });

  it('runs statements for a bcrypt user, a PBKDF2 user and a JWT subject; the query belongs to them', async () => {
    for (const [user, auth] of [
      ['alice', basic('alice', 'alice-secret')],
      ['bob', basic('bob', 'bob-secret')],
      ['carol', `Bearer ${await jwt({ sub: 'carol', iss: ISSUER })}`],
    ]) {
      const { rows, id } = await run('SELECT 1 AS one', { Authorization: auth });
      expect(rows).to.deep.equal([[1]]);
      const info = await https('GET', `/v1/query/${id}`, { Authorization: auth });
      expect(info.status, info.text).to.equal(200);
      expectValid('query-info', info.body);
      expect(info.body.session.user, 'the principal is the query user').to.equal(user);
    }
  });

  it('takes a user header equal to the principal, and refuses another one as impersonation (no rule allows it)', async () => {
    const auth = { Authorization: basic('alice', 'alice-secret') };
    const same = await https('POST', '/v1/statement', { ...auth, 'X-Trino-User': 'alice' }, 'SELECT 1');
    expect(same.status, same.text).to.equal(200);
    expect((await send('DELETE', same.body.nextUri, { headers: auth, ca: tls.certificate.cert })).status).to.equal(204);
    const other = await https('POST', '/v1/statement', { ...auth, 'X-Trino-User': 'bob' }, 'SELECT 1');
    expect(other.status, other.text).to.equal(403);
    expectValid('error', other.body);
    expect(other.body.message).to.equal('Access Denied: User alice cannot impersonate user bob');
  });

  it('refuses a wrong password, an unknown user, a bad token, with Trino’s messages and both challenges', async () => {
    expectRefusal(await https('GET', '/v1/query', { Authorization: basic('alice', 'wrong') }), 401, 'Access Denied: Invalid credentials', [BASIC, BEARER]);
    expectRefusal(await https('GET', '/v1/query', { Authorization: basic('mallory', 'alice-secret') }), 401, 'Access Denied: Invalid credentials', [BASIC, BEARER]);
    expectRefusal(await https('GET', '/v1/query', { Authorization: basic('alice', '') }), 401, 'Malformed credentials: password is empty', [BEARER]);
    const expired = await jwt({ sub: 'carol', iss: ISSUER }, -60);
    expectRefusal(await https('GET', '/v1/query', { Authorization: `Bearer ${expired}` }), 401, 'JWT expired', [BASIC, BEARER]);
    const foreign = await jwt({ sub: 'carol', iss: 'https://evil.example' });
    expectRefusal(await https('GET', '/v1/query', { Authorization: `Bearer ${foreign}` }), 401, 'JWT issuer is not the required issuer', [BASIC, BEARER]);
    expectRefusal(await https('GET', '/v1/query', { Authorization: 'Bearer ' }), 401, 'Unauthorized', [BASIC, BEARER]);
  });

  it('needs the credential on every page: a nextUri fetched without one is 401', async () => {
    const auth = { Authorization: basic('alice', 'alice-secret') };
    const first = await https('POST', '/v1/statement', auth, 'SELECT 1');
    expect(first.status).to.equal(200);
    expectRefusal(await send('GET', first.body.nextUri, { ca: tls.certificate.cert }), 401, 'Unauthorized', [BASIC, BEARER]);
    expect((await send('DELETE', first.body.nextUri, { headers: auth, ca: tls.certificate.cert })).status).to.equal(204);
  });

  it('answers 503 (which clients retry) while the password checks are overloaded; cached and JWT credentials still pass', async () => {
    const alice = { Authorization: basic('alice', 'alice-secret') };
    expect((await https('GET', '/v1/query', alice)).status).to.equal(200);
    const restore = limitPendingChecks(0);
    try {
      const res = await https('GET', '/v1/query', { Authorization: basic('alice', 'alice-secret-typo') });
      expect(res.status).to.equal(503);
      expectValid('error', res.body);
      expect(res.body).to.include({ errorName: 'GENERIC_INSUFFICIENT_RESOURCES', message: 'Too many password checks in progress; try again later' });
      expect((await https('GET', '/v1/query', alice)).status, 'cached').to.equal(200);
      expect((await https('GET', '/v1/query', { Authorization: `Bearer ${await jwt({ sub: 'carol', iss: ISSUER })}` })).status).to.equal(200);
    } finally {
      restore();
    }
  });

  it('never echoes the password, the token or the header', async () => {
    const secrets = ['Sup3rSecretPassw0rd', Buffer.from('alice:Sup3rSecretPassw0rd').toString('base64')];
    const res = await https('POST', '/v1/statement', { Authorization: basic('alice', secrets[0]) }, 'SELECT 1');
    expect(res.status).to.equal(401);
    const token = await jwt({ sub: 'carol', iss: 'https://evil.example' });
    const res2 = await https('GET', '/v1/query', { Authorization: `Bearer ${token}` });
    for (const text of [res.text, res2.text, JSON.stringify([...res.headers]), JSON.stringify([...res2.headers])]) {
      for (const secret of [...secrets, token, token.split('.')[1]]) expect(text).to.not.include(secret);
    }
  });

  it('answers hostile Authorization headers with a 4xx JSON error, never a 5xx (fast-check over the wire)', async () => {
    const fixed = [
      'Basic', 'Basic ', 'Basic !!!', 'Basic =', `Basic ${'A'.repeat(12_000)}`, `Basic ${Buffer.from('no-colon').toString('base64')}`,
      `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0x80]).toString('base64')}`, `Basic ${Buffer.from(':pw').toString('base64')}`,
      `Basic ${Buffer.from('a\u0000b:pw').toString('base64')}`, 'Bearer', 'Bearer a.b.c', `Bearer ${'x'.repeat(12_000)}`, 'Negotiate abc', '\u00ff\u00fe',
    ];
    const header = fc.oneof(
      fc.constantFrom(...fixed),
      fc.string({ maxLength: 300 }).map((s) => `Basic ${s}`),
      fc.uint8Array({ maxLength: 200 }).map((b) => `Basic ${Buffer.from(b).toString('base64')}`),
      fc.string({ maxLength: 300 }).map((s) => `Bearer ${s}`),
    );
    await fc.assert(
      fc.asyncProperty(header, async (value) => {
        let res: RawResponse;
        try {
          res = await https('GET', '/v1/query', { Authorization: value });
        } catch (err) {
          // Node's client refuses to send some characters at all; nothing reached the server.
          expect((err as { code?: string }).code).to.equal('ERR_INVALID_CHAR');
          return;
        }
        expect(res.status, `${value.slice(0, 40)}: ${res.text}`).to.be.within(400, 499);
        expectValid('error', res.body);
      }),
      { numRuns: 60 },
    );
  });

  it('refuses any non-public request over plain HTTP with 403, credentials or not, as Trino', async () => {
    const attempts: Record<string, string>[] = [{}, { Authorization: basic('alice', 'alice-secret') }, { 'X-Trino-User': 'alice' }];
    for (const headers of attempts) {
      const res = await send('GET', `${tls.server.url}/v1/query`, { headers });
      expectRefusal(res, 403, 'Authentication over HTTP is not enabled', []);
    }
  });
});

describe('security: authentication over plain HTTP', function () {
  this.timeout(60_000);
  const tls = secureFixture();

  it('with allow-insecure-over-http: Trino’s insecure authenticator on HTTP (a named user, no password), real credentials on HTTPS', async () => {
    const server = await startSecureServer({
      authenticationTypes: ['PASSWORD'],
      allowInsecureOverHttp: true,
      passwordFile: tls.dir.file('password.db', `${bcryptLine('alice', 'alice-secret')}\n`),
      httpsEnabled: true,
      httpsKeystorePath: tls.dir.file('cert.pem', tls.certificate.cert),
      httpsKeyPath: tls.dir.file('key.pem', tls.certificate.key),
    });
    try {
      const http = (headers: Record<string, string>) => send('POST', `${server.url}/v1/statement`, { headers, body: 'SELECT 1' });
      const named = await http({ 'X-Trino-User': 'dave' });
      expect(named.status, named.text).to.equal(200);
      validateStatement(named.body, true);
      expect((await http({ Authorization: basic('erin', '') })).status).to.equal(200);
      expectRefusal(await http({ Authorization: basic('alice', 'alice-secret') }), 401, 'Password not allowed for insecure authentication', [BASIC]);
      expectRefusal(await http({}), 401, 'Basic authentication or X-Trino-Original-User or X-Trino-User must be sent', [BASIC]);
      const overTls = await send('GET', `${server.httpsUrl}/v1/query`, { headers: { 'X-Trino-User': 'dave' }, ca: tls.certificate.cert });
      expectRefusal(overTls, 401, 'Unauthorized', [BASIC]);
      for (const name of ['x-trino-user', 'x-presto-user', 'x-service-user']) {
        const res = await send('GET', `${server.url}/v1/query`, { headers: { [name]: 'dave' } });
        expect(res.status, name).to.equal(200);
      }
    } finally {
      await server.stop();
    }
  });

  it('with http-server.process-forwarded: a proxy’s X-Forwarded-Proto https counts as TLS; without it the header is ignored', async () => {
    const config = {
      authenticationTypes: ['PASSWORD' as const],
      passwordFile: tls.dir.file('password2.db', `${bcryptLine('alice', 'alice-secret')}\n`),
    };
    const forwarded = { Authorization: basic('alice', 'alice-secret'), 'X-Forwarded-Proto': 'https' };
    const trusting = await startSecureServer({ ...config, processForwarded: true });
    try {
      expect((await send('GET', `${trusting.url}/v1/query`, { headers: forwarded })).status).to.equal(200);
      expect((await send('GET', `${trusting.url}/v1/query`, { headers: { ...forwarded, 'X-Forwarded-Proto': 'HTTPS, http' } })).status).to.equal(200);
      expectRefusal(await send('GET', `${trusting.url}/v1/query`, { headers: { ...forwarded, 'X-Forwarded-Proto': 'http' } }), 403, 'Authentication over HTTP is not enabled', []);
    } finally {
      await trusting.stop();
    }
    const plain = await startSecureServer(config);
    try {
      expectRefusal(await send('GET', `${plain.url}/v1/query`, { headers: forwarded }), 403, 'Authentication over HTTP is not enabled', []);
    } finally {
      await plain.stop();
    }
  });

  it('with authentication off (the default) installs nothing: any Authorization header is ignored', async () => {
    const server = await startSecureServer({});
    try {
      for (const authorization of ['Basic !!!', basic('alice', 'wrong'), 'Bearer x.y.z']) {
        const res = await send('POST', `${server.url}/v1/statement`, { headers: { Authorization: authorization, 'X-Trino-User': 'dave' }, body: 'SELECT 1' });
        expect(res.status, res.text).to.equal(200);
        validateStatement(res.body, true);
      }
    } finally {
      await server.stop();
    }
  });

  it('stops the start when a configured method misses its file', async () => {
    const cases: [Partial<CoordinatorConfig>, string][] = [
      [{ authenticationTypes: ['PASSWORD'] }, 'http-server.authentication.type=PASSWORD needs file.password-file'],
      [{ authenticationTypes: ['JWT'] }, 'http-server.authentication.type=JWT needs http-server.authentication.jwt.key-file'],
      [{ authenticationTypes: ['PASSWORD'], passwordFile: tls.dir.file('bad.db', 'alice:plaintext\n') }, 'Error in password file line 1: Password hashing algorithm cannot be determined'],
    ];
    for (const [config, message] of cases) {
      let failure: unknown;
      try {
        await (await startSecureServer(config)).stop();
      } catch (err) {
        failure = err;
      }
      expect((failure as Error)?.message).to.equal(message);
    }
  });
});
