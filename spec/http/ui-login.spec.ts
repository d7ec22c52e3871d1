// The web UI's login with authentication off (Trino's insecure form: a user name, no password) and its
// query API: POST /ui/auth/login (JSON, 204 and the Trino-UI-Token cookie) and /ui/login (a form, 303 to
// redirectPath on this server only), /ui/auth/info, logout, and /ui/api/query[/{id}] read as the
// cookie's user: session.clientTags as the Python client's client-tags tests read them, another user's
// query refused where the access rules say so. Bad input is a 4xx with a JSON body.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccessControl } from '../../lib/security/access-control.js';
import { createTestEngine } from '../support/duckdb.js';
import { request, runStatement, startTestServer, type TestServer } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';

/** Users see their own queries only; admin sees every one. */
const RULES = { queries: [{ user: 'admin', allow: ['execute', 'view', 'kill'] }, { allow: ['execute'] }] };

describe('ui login (authentication off)', function () {
  this.timeout(60_000);
  let server: TestServer;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-ui-login-'));
    const rules = join(dir, 'rules.json');
    writeFileSync(rules, JSON.stringify(RULES));
    server = await startTestServer({ engine: await createTestEngine(2, { tpch: false }), accessControl: createAccessControl({ securityConfigFile: rules }) });
  });
  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const json = (body: unknown) => ({ body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });

  /** Logs `user` in with the JSON login; the cookie pair to send back. */
  async function login(user: string): Promise<string> {
    const res = await request('POST', `${server.url}/ui/auth/login`, json({ username: user, password: '' }));
    expect(res.status, res.text).to.equal(204);
    return res.headers.getSetCookie()[0]!.split(';')[0]!;
  }

  it('logs a user in without a password: 204 and an HttpOnly cookie on /ui, not Secure over HTTP', async () => {
    for (const body of [{ username: 'alice', password: '' }, { username: 'alice' }, { username: 'alice', password: null }]) {
      const res = await request('POST', `${server.url}/ui/auth/login`, json(body));
      expect(res.status, JSON.stringify(body)).to.equal(204);
      const [cookie, ...more] = res.headers.getSetCookie();
      expect(more).to.deep.equal([]);
      const [pair, ...attributes] = cookie!.split('; ');
      expect(pair!.startsWith('Trino-UI-Token=')).to.equal(true);
      expect(attributes).to.deep.equal(['Path=/ui', 'HttpOnly', 'SameSite=Lax']);
      expect(res.headers.get('cache-control')).to.equal('no-store');
    }
  });

  it('refuses a password (insecure form), an absent or empty user name: 403 with a JSON error', async () => {
    for (const body of [{ username: 'alice', password: 'secret' }, { password: '' }, { username: '' }, { username: 'a\nb' }, {}]) {
      const res = await request('POST', `${server.url}/ui/auth/login`, json(body));
      expect(res.status, JSON.stringify(body)).to.equal(403);
      expect(res.headers.getSetCookie()).to.deep.equal([]);
      validateResponse('error', res.body);
    }
  });

  it('answers a malformed body with a 4xx JSON error, never a 5xx', async () => {
    const cases: Array<[string, string, number]> = [
      ['application/json', '{"username":', 400],
      ['application/json', '"alice"', 400],
      ['application/json', '[]', 400],
      ['application/json', 'null', 400],
      ['application/json', '{"username":["alice"]}', 400],
      ['application/json', '{"username":"alice","password":1}', 400],
      ['text/plain', 'username=alice', 415],
      ['application/json', `{"username":"${'a'.repeat(20_000)}"}`, 413],
    ];
    for (const [type, body, status] of cases) {
      const res = await request('POST', `${server.url}/ui/auth/login`, { body, headers: { 'Content-Type': type } });
      expect(res.status, `${type} ${body.slice(0, 40)}`).to.equal(status);
      validateResponse('error', res.body);
    }
    const none = await request('POST', `${server.url}/ui/auth/login`);
    expect(none.status).to.equal(415);
    validateResponse('error', none.body);
  });

  it("reads a query's full info as Trino's UI does: session.clientTags of the Python client's tests", async () => {
    const tags = ['foo %20', 'bar=test'];
    const { final } = await runStatement(server.url, 'SELECT 1', { 'X-Trino-User': 'test', 'X-Trino-Client-Tags': tags.join(',') });
    const cookie = await login('admin');
    const res = await request('GET', `${server.url}/ui/api/query/${final.id}`, { headers: { Cookie: cookie } });
    expect(res.status, res.text).to.equal(200);
    validateResponse('query-info', res.body);
    expect(res.body.session.clientTags).to.deep.equal(tags);
    expect(res.body.session.user).to.equal('test');
    const list = await request('GET', `${server.url}/ui/api/query`, { headers: { Cookie: cookie } });
    validateResponse('query-list', list.body);
    expect(list.body.map((q: { queryId: string }) => q.queryId)).to.include(final.id);
    const finished = await request('GET', `${server.url}/ui/api/query?state=finished`, { headers: { Cookie: cookie } });
    expect(finished.body.every((q: { state: string }) => q.state === 'FINISHED')).to.equal(true);
    const bad = await request('GET', `${server.url}/ui/api/query?state=nope`, { headers: { Cookie: cookie } });
    expect(bad.status).to.equal(400);
    validateResponse('error', bad.body);
    const gone = await request('GET', `${server.url}/ui/api/query/20200101_000000_00000_nopes`, { headers: { Cookie: cookie } });
    expect(gone.status).to.equal(410);
    validateResponse('error', gone.body);
  });

  it("refuses another user's query to the cookie's user (403) and leaves it out of the list", async () => {
    const { final } = await runStatement(server.url, 'SELECT 2', { 'X-Trino-User': 'bob' });
    const alice = await login('alice');
    const res = await request('GET', `${server.url}/ui/api/query/${final.id}`, { headers: { Cookie: alice } });
    expect(res.status).to.equal(403);
    validateResponse('error', res.body);
    expect(res.body.message).to.equal('Access Denied: Cannot view query');
    const list = await request('GET', `${server.url}/ui/api/query`, { headers: { Cookie: alice } });
    expect(list.body.map((q: { queryId: string }) => q.queryId)).to.not.include(final.id);
    // The owner sees it; a header cannot make alice's cookie someone else (impersonation is refused).
    const bob = await login('bob');
    expect((await request('GET', `${server.url}/ui/api/query/${final.id}`, { headers: { Cookie: bob } })).status).to.equal(200);
    const impersonating = await request('GET', `${server.url}/ui/api/query/${final.id}`, { headers: { Cookie: alice, 'X-Trino-User': 'bob' } });
    expect(impersonating.status).to.equal(403);
    validateResponse('error', impersonating.body);
  });

  it('ignores a tampered, forged or misnamed cookie: the request is no one logged in', async () => {
    const alice = await login('alice');
    const { final } = await runStatement(server.url, 'SELECT 3', { 'X-Trino-User': 'bob' });
    const value = alice.slice('Trino-UI-Token='.length);
    const [header, , signature] = value.split('.');
    const bobClaims = Buffer.from(JSON.stringify({ sub: 'bob', aud: 'trino-ui', exp: 4102444800 })).toString('base64url');
    for (const cookie of [`Trino-UI-Token=${header}.${bobClaims}.${signature}`, `trino-ui-token=${value}`, `Trino-UI-Token=${value}x`]) {
      const info = await request('GET', `${server.url}/ui/auth/info`, { headers: { Cookie: cookie } });
      validateResponse('ui-auth-info', info.body);
      expect(info.body.authenticated, cookie).to.equal(false);
    }
    // A forged bob is no bob: with authentication off the request is the default user, who may not see bob's query.
    const forged = await request('GET', `${server.url}/ui/api/query/${final.id}`, { headers: { Cookie: `Trino-UI-Token=${header}.${bobClaims}.${signature}` } });
    expect(forged.status).to.equal(403);
  });

  it('answers /ui/auth/info and logs out (204, the cookie deleted)', async () => {
    const anonymous = await request('GET', `${server.url}/ui/auth/info`);
    validateResponse('ui-auth-info', anonymous.body);
    expect(anonymous.body).to.deep.equal({ authType: 'insecure', passwordAllowed: false, authenticated: false });
    const cookie = await login('alice');
    const info = await request('GET', `${server.url}/ui/auth/info`, { headers: { Cookie: cookie } });
    validateResponse('ui-auth-info', info.body);
    expect(info.body).to.deep.equal({ authType: 'insecure', passwordAllowed: false, authenticated: true, username: 'alice' });
    const out = await request('GET', `${server.url}/ui/auth/logout`, { headers: { Cookie: cookie } });
    expect(out.status).to.equal(204);
    expect(out.headers.getSetCookie()[0]).to.match(/^Trino-UI-Token=delete; Path=\/ui; HttpOnly; SameSite=Lax; Max-Age=0;/);
    const legacy = await fetch(`${server.url}/ui/logout`, { redirect: 'manual' });
    expect(legacy.status).to.equal(303);
    expect(legacy.headers.get('location')).to.equal('/ui/login.html');
    expect(legacy.headers.getSetCookie()[0]).to.include('Max-Age=0');
  });

  it('takes the form login (POST /ui/login): 303 to redirectPath on this server, back to the form when refused', async () => {
    const form = (fields: Record<string, string>) =>
      fetch(`${server.url}/ui/login`, { method: 'POST', redirect: 'manual', body: new URLSearchParams(fields), headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    const ok = await form({ username: 'alice', password: '', redirectPath: `${server.url}/ui/api/query` });
    expect(ok.status).to.equal(303);
    expect(ok.headers.get('location')).to.equal('/ui/api/query');
    expect(ok.headers.getSetCookie()[0]).to.match(/^Trino-UI-Token=/);
    for (const redirectPath of ['https://evil.example/', '//evil.example/ui/', '/\\evil.example', '/ui/../v1/query', 'javascript:alert(1)']) {
      const res = await form({ username: 'alice', redirectPath });
      expect(res.status, redirectPath).to.equal(303);
      expect(res.headers.get('location'), redirectPath).to.equal('/ui/');
    }
    const refused = await form({ username: 'alice', password: 'secret', redirectPath: '/ui/nodes.html' });
    expect(refused.status).to.equal(303);
    expect(refused.headers.get('location'), 'back to the form, which keeps the page').to.equal('/ui/login.html?/ui/nodes.html#failed');
    const attack = await form({ username: 'alice', password: 'secret', redirectPath: '//evil.example/' });
    expect(attack.headers.get('location')).to.equal('/ui/login.html#failed');
    expect(refused.headers.getSetCookie()).to.deep.equal([]);
    // The JSON path takes a form too, as a browser's form can only send one.
    const both = await fetch(`${server.url}/ui/auth/login`, { method: 'POST', redirect: 'manual', body: new URLSearchParams({ username: 'alice' }) });
    expect(both.status).to.equal(303);
  });

  it('sends a logged-in user from the login page on to the page it names, never off this server', async () => {
    const cookie = await login('alice');
    for (const [query, location] of [['/ui/nodes.html', '/ui/nodes.html'], ['', '/ui/'], ['//evil.example/ui/', '/ui/'], ['/ui/login.html', '/ui/']]) {
      const res = await fetch(`${server.url}/ui/login.html${query ? `?${query}` : ''}`, { redirect: 'manual', headers: { Cookie: cookie } });
      expect(res.status, query).to.equal(303);
      expect(res.headers.get('location'), query).to.equal(location);
    }
  });

  it('serves the login page without a session', async () => {
    const page = await request('GET', `${server.url}/ui/login.html`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(page.text).to.include('action="login"');
    expect(page.text).to.include('name="redirectPath"');
  });
});
