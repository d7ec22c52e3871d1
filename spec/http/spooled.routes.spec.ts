// The coordinator's /v1/spooled paths with authentication on: the statement needs credentials, segments
// only their id (as Trino's SegmentResource, @ResourceSecurity(PUBLIC)); an id not sealed with the cluster's
// key, expired or naming no live worker answers 404, never 401 or 500.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { bcryptLine, startSecureServer, tempDir, type SecureServer, type TempDir } from '../security/auth-fixtures.js';
import { sealSegmentId } from '../../lib/spooling/segment-id.js';
import { validateResponse } from '../support/schema-validator.js';

describe('coordinator /v1/spooled with authentication on', function () {
  this.timeout(30_000);
  const key = randomBytes(32);
  let dir: TempDir;
  let server: SecureServer;
  before(async () => {
    dir = tempDir();
    server = await startSecureServer({
      authenticationTypes: ['PASSWORD'],
      passwordFile: dir.file('password.db', `${bcryptLine('alice', 'alice-secret')}\n`),
      spoolingSharedSecretKey: key,
    });
  });
  after(async () => {
    await server?.stop();
    dir?.remove();
  });

  it('the statement needs credentials; download and ack need none and answer 404 for ids naming nothing here', async () => {
    const post = await fetch(`${server.url}/v1/statement`, { method: 'POST', body: 'SELECT 1', headers: { 'X-Trino-User': 'alice', 'X-Trino-Query-Data-Encoding': 'json' } });
    expect(post.status).to.be.oneOf([401, 403]);
    const live = sealSegmentId(key, { queryId: 'q', nodeId: 'no-such-worker', expiresAt: Date.now() + 60_000 }).id;
    const expired = sealSegmentId(key, { queryId: 'q', nodeId: 'no-such-worker', expiresAt: Date.now() - 1 }).id;
    const foreign = sealSegmentId(randomBytes(32), { queryId: 'q', nodeId: 'no-such-worker', expiresAt: Date.now() + 60_000 }).id;
    for (const id of [live, expired, foreign, 'x'.repeat(5000)]) {
      for (const path of ['download', 'ack']) {
        const res = await fetch(`${server.url}/v1/spooled/${path}/${id}`);
        expect(res.status, `${path} ${id.slice(0, 20)}`).to.equal(404);
        const body = await res.json();
        validateResponse('error', body);
        expect(body.message).to.equal('Segment not found or expired');
      }
    }
    // Encoded dot segments are refused before any route (malformed-requests: 400).
    const traversal = await fetch(`${server.url}/v1/spooled/download/..%2F..%2Fetc%2Fpasswd`);
    expect(traversal.status).to.equal(400);
    // Other methods and paths under /v1/spooled are not public.
    expect((await fetch(`${server.url}/v1/spooled/download/${live}`, { method: "DELETE" })).status).to.be.oneOf([401, 403]);
    expect((await fetch(`${server.url}/v1/spooled/queries/q`)).status).to.be.oneOf([401, 403]);
  });
});
