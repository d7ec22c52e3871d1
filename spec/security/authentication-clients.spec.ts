// Real npm clients authenticating as their users do, over HTTPS with a self-signed certificate they are
// told to trust: trino-client with BasicAuth, presto-client with basic_auth, and presto-client sending a
// JWT as a Bearer token (custom_auth).
import { expect } from 'chai';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { Client, type ClientOptions, type ExecuteOptions } from 'presto-client';
import type { QueryResult } from 'trino-client';
import { secureFixture, send, startAuthenticatedServer } from './auth-fixtures.js';
import { importTrinoClient } from '../support/trino-client-loader.js';

const NATIONS_SQL = "SELECT name FROM (VALUES (0, 'ALGERIA'), (1, 'ARGENTINA'), (2, 'BRAZIL')) AS t (key, name) ORDER BY key";
const NATIONS = [['ALGERIA'], ['ARGENTINA'], ['BRAZIL']];

interface Outcome {
  rows: unknown[][];
  queryId?: string;
  error?: { message?: string };
}

describe('security: real clients authenticate over HTTPS', function () {
  this.timeout(30_000);
  let Trino: typeof import('trino-client').Trino;
  let BasicAuth: typeof import('trino-client').BasicAuth;
  const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const tls = secureFixture((dir, certificate) => startAuthenticatedServer(dir, certificate, signing.publicKey));

  before(async () => {
    ({ Trino, BasicAuth } = await importTrinoClient());
  });

  async function queryUser(queryId: string, authorization: string): Promise<string> {
    const info = await send('GET', `${tls.server.httpsUrl}/v1/query/${queryId}`, { headers: { Authorization: authorization }, ca: tls.certificate.cert });
    return info.body.session.user as string;
  }

  async function trinoQuery(user: string, password: string): Promise<Outcome> {
    const client = Trino.create({ server: tls.server.httpsUrl, auth: new BasicAuth(user, password), ssl: { ca: tls.certificate.cert }, catalog: 'memory', schema: 'default' });
    const outcome: Outcome = { rows: [] };
    try {
      for await (const page of await client.query(NATIONS_SQL)) {
        const result = page as QueryResult;
        outcome.queryId = result.id;
        if (result.error) outcome.error = result.error;
        outcome.rows.push(...((result.data ?? []) as unknown[][]));
      }
    } catch (err) {
      outcome.error = err as Error;
    }
    return outcome;
  }

  function prestoQuery(options: Record<string, unknown>): Promise<Outcome> {
    const port = Number(new URL(tls.server.httpsUrl).port);
    const clientOptions = { host: '127.0.0.1', port, catalog: 'memory', schema: 'default', checkInterval: 1, ssl: { ca: tls.certificate.cert }, ...options };
    const client = new Client(clientOptions as ClientOptions);
    const outcome: Outcome = { rows: [] };
    return new Promise((resolve) => {
      const execute: ExecuteOptions = {
        query: NATIONS_SQL,
        state: (_err, queryId) => {
          outcome.queryId = queryId;
        },
        data: (_err, data) => {
          outcome.rows.push(...data);
        },
        success: () => resolve(outcome),
        error: (error) => resolve({ ...outcome, error: error as Outcome['error'] }),
      };
      client.execute(execute);
    });
  }

  it('trino-client with BasicAuth (bcrypt user): rows, and the query is alice’s', async () => {
    const outcome = await trinoQuery('alice', 'alice-secret');
    expect(outcome.error).to.equal(undefined);
    expect(outcome.rows).to.deep.equal(NATIONS);
    expect(await queryUser(outcome.queryId!, `Basic ${Buffer.from('alice:alice-secret').toString('base64')}`)).to.equal('alice');
  });

  it('trino-client with a wrong password fails and gets no rows', async () => {
    const outcome = await trinoQuery('alice', 'wrong');
    expect(outcome.rows).to.deep.equal([]);
    expect((outcome.error as { response?: { status?: number } }).response?.status).to.equal(401);
  });

  it('presto-client with basic_auth (PBKDF2 user) and ssl: rows, and the query is bob’s', async () => {
    // presto-client always sends X-Presto-User: the same user as the credential's (another would be impersonation).
    const outcome = await prestoQuery({ basic_auth: { user: 'bob', password: 'bob-secret' }, user: 'bob' });
    expect(outcome.error).to.equal(undefined);
    expect(outcome.rows).to.deep.equal(NATIONS);
    expect(await queryUser(outcome.queryId!, `Basic ${Buffer.from('bob:bob-secret').toString('base64')}`)).to.equal('bob');
  });

  it('presto-client sending a JWT as a Bearer token (custom_auth): rows, and the query is the subject’s', async () => {
    const token = await new SignJWT({ sub: 'carol' }).setProtectedHeader({ alg: 'ES256' }).setExpirationTime('5m').sign(signing.privateKey);
    const outcome = await prestoQuery({ custom_auth: `Bearer ${token}`, user: 'carol' });
    expect(outcome.error).to.equal(undefined);
    expect(outcome.rows).to.deep.equal(NATIONS);
    expect(await queryUser(outcome.queryId!, `Bearer ${token}`)).to.equal('carol');
  });

  it('presto-client with a wrong password gets an error, not rows', async () => {
    const outcome = await prestoQuery({ basic_auth: { user: 'bob', password: 'nope' }, user: 'bob' });
    expect(outcome.rows).to.deep.equal([]);
    expect(outcome.error?.message).to.include('Access Denied: Invalid credentials').and.not.include('nope');
  });
});
