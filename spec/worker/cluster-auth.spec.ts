// The internal bearer: signed once and reused, verified once and cached, refused when missing, expired or foreign.
import { expect } from 'chai';
import { SignJWT } from 'jose';
import { createHash } from 'node:crypto';
import { BEARER_LIFETIME_MS, internalBearer, verifyInternalBearer } from '../../lib/cluster/cluster-auth.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';

async function refusedWith(promise: Promise<unknown>): Promise<VivaceError> {
  try {
    await promise;
  } catch (err) {
    expect(err).to.be.instanceOf(VivaceError);
    expect((err as VivaceError).httpStatus).to.equal(401);
    return err as VivaceError;
  }
  throw new Error('expected a refusal');
}

describe('cluster-auth: the internal bearer', () => {
  const secret = 'cluster-secret';

  it('signs a token whose subject is the node id, and verifies it', async () => {
    const token = await internalBearer(secret, 'node-a');
    expect(token.split('.')).to.have.length(3);
    expect(await verifyInternalBearer(secret, token)).to.deep.equal({ nodeId: 'node-a' });
  });

  it('reuses the signed token until a minute before it expires, then signs a new one', async () => {
    const t0 = Date.now();
    const first = await internalBearer(secret, 'node-b', t0);
    expect(await internalBearer(secret, 'node-b', t0 + 1000)).to.equal(first);
    const later = await internalBearer(secret, 'node-b', t0 + BEARER_LIFETIME_MS - 30_000);
    expect(later).to.not.equal(first);
    expect(await verifyInternalBearer(secret, later, t0 + BEARER_LIFETIME_MS)).to.deep.equal({ nodeId: 'node-b' });
  });

  it('refuses a missing, empty, malformed or huge bearer', async () => {
    expect((await refusedWith(verifyInternalBearer(secret, undefined))).message).to.equal('Internal authentication required');
    await refusedWith(verifyInternalBearer(secret, ''));
    await refusedWith(verifyInternalBearer(secret, 'not.a.jwt'));
    await refusedWith(verifyInternalBearer(secret, 'x'.repeat(100_000)));
  });

  it('refuses a token signed with another secret', async () => {
    const token = await internalBearer('another-secret', 'node-c');
    expect((await refusedWith(verifyInternalBearer(secret, token))).message).to.equal('Invalid internal bearer');
  });

  it('refuses an expired token, also one verified before it expired', async () => {
    const t0 = Date.now();
    const token = await internalBearer(secret, 'node-d', t0);
    expect(await verifyInternalBearer(secret, token, t0)).to.deep.equal({ nodeId: 'node-d' });
    expect((await refusedWith(verifyInternalBearer(secret, token, t0 + BEARER_LIFETIME_MS + 1000))).message).to.equal('Internal bearer expired');
    const key = new Uint8Array(createHash('sha256').update(secret).digest());
    const old = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject('node-e').setExpirationTime(Math.floor(t0 / 1000) - 10).sign(key);
    expect((await refusedWith(verifyInternalBearer(secret, old, t0))).message).to.equal('Internal bearer expired');
  });

  it('refuses a token without a subject or with another algorithm', async () => {
    const key = new Uint8Array(createHash('sha256').update(secret).digest());
    const noSubject = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(key);
    await refusedWith(verifyInternalBearer(secret, noSubject));
    const hs512 = await new SignJWT({}).setProtectedHeader({ alg: 'HS512' }).setSubject('n').setExpirationTime('5m').sign(new Uint8Array(64));
    await refusedWith(verifyInternalBearer(secret, hs512));
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"n","exp":9999999999}').toString('base64url')}.`;
    await refusedWith(verifyInternalBearer(secret, unsigned));
  });
});
