// The web UI's login with password authentication on (HTTPS, password file, rules: users see their own
// queries), by attack: wrong and missing passwords, forged, re-signed, expired and misnamed cookies,
// another user's query, the cookie outside /ui, and login over plain HTTP (Trino's disabled page).
import { expect } from 'chai';
import { createHash, createHmac } from 'node:crypto';
import { basic, bcryptLine, secureFixture, send, startSecureServer, type RawResponse } from './auth-fixtures.js';
import { validateResponse } from '../support/schema-validator.js';

const SECRET = 'spec-ui-secret';
const RULES = { queries: [{ allow: ['execute'] }] };

/** A token signed as web-ui.shared-secret=`secret` signs them, with any claims. */
function forge(claims: unknown, secret = SECRET, header: unknown = { alg: 'HS256', typ: 'JWT' }): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const signed = `${b64(header)}.${b64(claims)}`;
  return `${signed}.${createHmac('sha256', createHash('sha256').update(secret).digest()).update(signed).digest('base64url')}`;
}

describe('ui login with password authentication', function () {
  this.timeout(60_000);
  const fixture = secureFixture((dir, certificate) =>
    startSecureServer({
      authenticationTypes: ['PASSWORD'],
      passwordFile: dir.file('password.db', `${bcryptLine('alice', 'alice-secret')}\n${bcryptLine('bob', 'bob-secret')}\n`),
      httpsEnabled: true,
      httpsKeystorePath: dir.file('keystore.pem', `${certificate.key}${certificate.cert}`),
      securityConfigFile: dir.file('rules.json', JSON.stringify(RULES)),
      webUiSharedSecret: SECRET,
    }),
  );
  const https = (method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) =>
    send(method, `${fixture.server.httpsUrl}${path}`, { ...init, ca: fixture.certificate.cert });
  const loginJson = (fields: Record<string, unknown>) => https('POST', '/ui/auth/login', { body: JSON.stringify(fields), headers: { 'Content-Type': 'application/json' } });
  const cookieOf = (res: RawResponse) => res.headers.get('set-cookie')![0]!.split(';')[0]!;

  async function run(sql: string, user: string, password: string): Promise<string> {
    let res = await https('POST', '/v1/statement', { body: sql, headers: { Authorization: basic(user, password) } });
    expect(res.status, res.text).to.equal(200);
    const id = res.body.id as string;
    while (res.body.nextUri) res = await send('GET', res.body.nextUri, { headers: { Authorization: basic(user, password) }, ca: fixture.certificate.cert });
    return id;
  }

  it('logs in with the password file over HTTPS: 204 and a Secure, HttpOnly cookie on /ui', async () => {
    const res = await loginJson({ username: 'alice', password: 'alice-secret' });
    expect(res.status, res.text).to.equal(204);
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).to.have.length(1);
    expect(cookie[0]!.split('; ').slice(1)).to.deep.equal(['Path=/ui', 'HttpOnly', 'SameSite=Lax', 'Secure']);
    const info = await https('GET', '/ui/auth/info', { headers: { Cookie: cookieOf(res) } });
    validateResponse('ui-auth-info', info.body);
    expect(info.body).to.deep.equal({ authType: 'form', passwordAllowed: true, authenticated: true, username: 'alice' });
  });

  it('refuses a wrong, empty or missing password, an unknown user and a user name Basic cannot carry (403, no cookie)', async () => {
    for (const fields of [
      { username: 'alice', password: 'nope' },
      { username: 'alice', password: 'bob-secret' },
      { username: 'alice', password: '' },
      { username: 'alice' },
      { username: 'mallory', password: 'alice-secret' },
      { username: 'alice:alice-secret', password: 'x' },
      { username: 'ALICE', password: 'alice-secret' },
      { password: 'alice-secret' },
    ]) {
      const res = await loginJson(fields);
      expect(res.status, JSON.stringify(fields)).to.equal(403);
      expect(res.headers.get('set-cookie'), JSON.stringify(fields)).to.equal(undefined);
      validateResponse('error', res.body);
      expect(res.text).to.not.include('secret');
    }
    const form = await https('POST', '/ui/login', { body: 'username=alice&password=nope&redirectPath=/ui/nodes.html', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(form.status).to.equal(303);
    expect(form.headers.get('location')).to.deep.equal(['/ui/login.html?/ui/nodes.html#failed']);
    expect(form.headers.get('set-cookie')).to.equal(undefined);
  });

  it("shows the cookie's user their own query and refuses another user's (403), as /v1/query does", async () => {
    const mine = await run('SELECT 1', 'alice', 'alice-secret');
    const theirs = await run('SELECT 2', 'bob', 'bob-secret');
    const alice = cookieOf(await loginJson({ username: 'alice', password: 'alice-secret' }));
    const own = await https('GET', `/ui/api/query/${mine}`, { headers: { Cookie: alice } });
    expect(own.status, own.text).to.equal(200);
    validateResponse('query-info', own.body);
    expect(own.body.session.user).to.equal('alice');
    const other = await https('GET', `/ui/api/query/${theirs}`, { headers: { Cookie: alice } });
    expect(other.status).to.equal(403);
    validateResponse('error', other.body);
    const list = await https('GET', '/ui/api/query', { headers: { Cookie: alice } });
    validateResponse('query-list', list.body);
    const ids = list.body.map((q: { queryId: string }) => q.queryId);
    expect(ids).to.include(mine);
    expect(ids).to.not.include(theirs);
    // Naming bob in a header is impersonation, which no rule allows.
    const impersonating = await https('GET', `/ui/api/query/${theirs}`, { headers: { Cookie: alice, 'X-Trino-User': 'bob' } });
    expect(impersonating.status).to.equal(403);
    // The protocol's credentials still open the UI's API (the pages sign in with Basic).
    expect((await https('GET', `/ui/api/query/${mine}`, { headers: { Authorization: basic('alice', 'alice-secret') } })).status).to.equal(200);
  });

  it("lets the cookie's user cancel and kill their own running query, not another user's (403); nodes need system_information", async () => {
    const start = async (user: string, password: string) => {
      // Read no page: the query stays RUNNING (its buffer full) until it is ended.
      const res = await https('POST', '/v1/statement', { body: 'SELECT a.x FROM UNNEST(sequence(1, 3000)) AS a(x) CROSS JOIN UNNEST(sequence(1, 100)) AS b(y)', headers: { Authorization: basic(user, password) } });
      expect(res.status, res.text).to.equal(200);
      return res.body.id as string;
    };
    const alice = cookieOf(await loginJson({ username: 'alice', password: 'alice-secret' }));
    const hers = await start('alice', 'alice-secret');
    const his = await start('bob', 'bob-secret');
    for (const [method, path] of [['DELETE', `/ui/api/query/${his}`], ['PUT', `/ui/api/query/${his}/killed`]] as const) {
      const res = await https(method, path, { headers: { Cookie: alice }, ...(method === 'PUT' ? { body: 'no' } : {}) });
      expect(res.status, `${method} ${path}`).to.equal(403);
      validateResponse('error', res.body);
    }
    expect((await https('DELETE', `/ui/api/query/${hers}`, { headers: { Cookie: alice } })).status).to.equal(204);
    const mine = await start('alice', 'alice-secret');
    expect((await https('PUT', `/ui/api/query/${mine}/killed`, { headers: { Cookie: alice }, body: 'from the UI' })).status).to.equal(202);
    const ended = async (id: string) => {
      for (let i = 0; i < 100; i++) {
        const info = await https('GET', `/ui/api/query/${id}`, { headers: { Cookie: alice } });
        if (info.body.state === 'FAILED') return info.body.errorCode.name as string;
        await new Promise((r) => setTimeout(r, 50));
      }
      return 'still running';
    };
    expect(await ended(hers)).to.equal('USER_CANCELED');
    expect(await ended(mine)).to.equal('ADMINISTRATIVELY_KILLED');
    expect((await https('PUT', `/ui/api/query/${mine}/killed`, { headers: { Cookie: alice } })).status, 'already done').to.equal(409);
    expect((await https('DELETE', '/ui/api/query/20200101_000000_00000_nopes', { headers: { Cookie: alice } })).status).to.equal(410);
    // bob's query still runs: end it as bob.
    expect((await https('DELETE', `/v1/query/${his}`, { headers: { Authorization: basic('bob', 'bob-secret') } })).status).to.equal(204);
    const nodes = await https('GET', '/ui/api/node', { headers: { Cookie: alice } });
    expect(nodes.status).to.equal(403);
    expect(nodes.body.message).to.include('Cannot read system information');
  });

  it('answers /ui/api without a valid cookie 401 (JSON): none, forged, re-signed, expired, alg none, misnamed', async () => {
    const mine = await run('SELECT 3', 'alice', 'alice-secret');
    const alice = cookieOf(await loginJson({ username: 'alice', password: 'alice-secret' }));
    const value = alice.slice('Trino-UI-Token='.length);
    const [header, , signature] = value.split('.');
    const later = Math.floor(Date.now() / 1000) + 3600;
    const bobPayload = Buffer.from(JSON.stringify({ sub: 'bob', aud: 'trino-ui', exp: later })).toString('base64url');
    const attempts: Array<[string, string | undefined]> = [
      ['none', undefined],
      ['tampered subject', `Trino-UI-Token=${header}.${bobPayload}.${signature}`],
      ['another key', `Trino-UI-Token=${forge({ sub: 'alice', aud: 'trino-ui', exp: later }, 'guessed')}`],
      ['expired', `Trino-UI-Token=${forge({ sub: 'alice', aud: 'trino-ui', exp: Math.floor(Date.now() / 1000) - 1 })}`],
      ['another audience', `Trino-UI-Token=${forge({ sub: 'alice', aud: 'presto-ui', exp: later })}`],
      ['alg none', `Trino-UI-Token=${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${bobPayload}.`],
      ['lower-case name', `trino-ui-token=${value}`],
      ['legacy name', `Presto-UI-Token=${value}`],
      ['split name', `Trino-UI-Token_1=${value}`],
      ['garbage', 'Trino-UI-Token=%00%0d%0a; ;;=;Trino-UI-Token'],
    ];
    for (const [what, cookie] of attempts) {
      const res = await https('GET', `/ui/api/query/${mine}`, { headers: cookie === undefined ? {} : { Cookie: cookie } });
      expect(res.status, what).to.equal(401);
      validateResponse('error', res.body);
    }
    // Our own forgery with the right key and shape passes: the refusals above are the checks, not the spec's tokens.
    const own = await https('GET', `/ui/api/query/${mine}`, { headers: { Cookie: `Trino-UI-Token=${forge({ sub: 'alice', aud: 'trino-ui', exp: later })}` } });
    expect(own.status).to.equal(200);
    // A bad cookie before a good one does not hide it.
    expect((await https('GET', `/ui/api/query/${mine}`, { headers: { Cookie: `Trino-UI-Token=x; ${alice}` } })).status).to.equal(200);
  });

  it('is a session for the web UI only: the cookie opens nothing outside /ui', async () => {
    const alice = cookieOf(await loginJson({ username: 'alice', password: 'alice-secret' }));
    for (const [method, path] of [['GET', '/v1/query'], ['POST', '/v1/statement'], ['GET', '/v1/node'], ['GET', '/metrics'], ['GET', '/UI/api/query']] as const) {
      const res = await https(method, path, { headers: { Cookie: alice }, ...(method === 'POST' ? { body: 'SELECT 1' } : {}) });
      expect(res.status, path).to.be.oneOf([401, 404]);
      if (path.startsWith('/v1') || path === '/metrics') expect(res.status, path).to.equal(401);
    }
  });

  it("refuses login over plain HTTP without allow-insecure-over-http: 403 JSON, the form sent to Trino's disabled page", async () => {
    const url = fixture.server.url;
    const json = await send('POST', `${url}/ui/auth/login`, { body: JSON.stringify({ username: 'alice', password: 'alice-secret' }), headers: { 'Content-Type': 'application/json' } });
    expect(json.status).to.equal(403);
    validateResponse('error', json.body);
    expect(json.headers.get('set-cookie')).to.equal(undefined);
    const form = await send('POST', `${url}/ui/login`, { body: 'username=alice', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(form.status).to.equal(303);
    expect(form.headers.get('location')).to.deep.equal(['/ui/disabled.html']);
    const info = await send('GET', `${url}/ui/auth/info`);
    expect(info.body).to.deep.equal({ authType: 'form', passwordAllowed: false, authenticated: false });
    expect((await send('GET', `${url}/ui/disabled.html`)).status).to.equal(200);
    // No session over HTTP either: the API's 401, a page sent to the disabled page.
    expect((await send('GET', `${url}/ui/api/query`)).status).to.equal(401);
    expect((await send('GET', `${url}/ui/nodes.html`)).headers.get('location')).to.deep.equal(['/ui/disabled.html']);
  });
});
