// Who a request acts as when authentication is on: the principal, or the user it names when a rule lets
// the principal impersonate that user; credentials never reach /v1/query.
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { expectValid } from '../support/schema-validator.js';
import { basic, secureFixture, send, startAuthenticatedServer } from './auth-fixtures.js';

const RULES = {
  impersonation: [
    { original_user: 'alice', new_user: 'alice_(.*)', allow: true },
    { original_user: 'bob', new_user: 'alice', allow: true },
  ],
  queries: [{ allow: ['execute'] }],
};

describe('security: impersonation and credentials (real server, HTTPS)', function () {
  this.timeout(60_000);
  const { publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const tls = secureFixture((dir, certificate) => startAuthenticatedServer(dir, certificate, publicKey, { securityConfigFile: dir.file('rules.json', JSON.stringify(RULES)) }));

  const post = (user: string, password: string, headers: Record<string, string> = {}) =>
    send('POST', `${tls.server.httpsUrl}/v1/statement`, { ca: tls.certificate.cert, body: 'SELECT 1', headers: { Authorization: basic(user, password), ...headers } });
  const info = (id: string, user: string, password: string) =>
    send('GET', `${tls.server.httpsUrl}/v1/query/${id}`, { ca: tls.certificate.cert, headers: { Authorization: basic(user, password) } });

  it('runs as the principal when no user is named, and as the named user when a rule allows it', async () => {
    const own = await post('alice', 'alice-secret');
    expect(own.status).to.equal(200);
    expect((await info(own.body.id, 'alice', 'alice-secret')).body.session.user).to.equal('alice');

    const asTeam = await post('alice', 'alice-secret', { 'X-Trino-User': 'alice_team' });
    expect(asTeam.status).to.equal(200);
    expect((await info(asTeam.body.id, 'alice', 'alice-secret')).status).to.equal(403); // alice_team's query, not alice's
    const bobAsAlice = await post('bob', 'bob-secret', { 'X-Presto-User': 'alice' });
    expect(bobAsAlice.status).to.equal(200);
    expect((await info(bobAsAlice.body.id, 'alice', 'alice-secret')).body.session.user).to.equal('alice');
  });

  it('refuses every impersonation no rule allows, in every header family and spelling', async () => {
    for (const [principal, password, headers, named] of [
      ['alice', 'alice-secret', { 'X-Trino-User': 'bob' }, 'bob'],
      ['alice', 'alice-secret', { 'X-Trino-User': 'Alice' }, 'Alice'],
      ['alice', 'alice-secret', { 'X-Trino-User': 'alicex_team' }, 'alicex_team'],
      ['alice', 'alice-secret', { 'X-Presto-User': 'admin' }, 'admin'],
      ['alice', 'alice-secret', { 'X-Service-User': 'root' }, 'root'],
      ['bob', 'bob-secret', { 'X-Trino-User': 'alice_team' }, 'alice_team'],
      ['bob', 'bob-secret', { 'X-Trino-User': 'alice2' }, 'alice2'],
    ] as const) {
      const res = await post(principal, password, headers);
      expect(res.status, JSON.stringify(headers)).to.equal(403);
      expectValid('error', res.body);
      expect(res.body.message).to.equal(`Access Denied: User ${principal} cannot impersonate user ${named}`);
    }
  });

  it('never shows a password, a token or an extra credential in /v1/query', async () => {
    const res = await post('alice', 'alice-secret', { 'X-Trino-Extra-Credential': 'warehouse.password=hunter2-extra', 'X-Trino-Client-Info': 'tool' });
    expect(res.status).to.equal(200);
    for (const path of [`/v1/query/${res.body.id}`, '/v1/query']) {
      const shown = await send('GET', `${tls.server.httpsUrl}${path}`, { ca: tls.certificate.cert, headers: { Authorization: basic('alice', 'alice-secret') } });
      expect(shown.status).to.equal(200);
      for (const secret of ['alice-secret', 'hunter2-extra', basic('alice', 'alice-secret').slice(6)]) expect(shown.text).not.to.include(secret);
    }
  });
});
