import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { expiresAtText, MAX_SEGMENT_ID_LENGTH, openSegmentId, sealSegmentId, spoolingKeyOf } from '../../lib/spooling/segment-id.js';

const KEY = randomBytes(32);
const HANDLE = { queryId: '20261129_060000_00001_abcde', nodeId: 'worker-1', expiresAt: Date.UTC(2026, 10, 29, 18, 54, 52, 123) };

describe('spooled segment ids', () => {
  it('open to what was sealed: query, node, expiry and a 128-bit random name; two seals never give one id', () => {
    const a = sealSegmentId(KEY, HANDLE);
    const b = sealSegmentId(KEY, HANDLE);
    expect(a.id).to.not.equal(b.id);
    expect(a.name).to.match(/^[0-9a-f]{32}$/);
    expect(openSegmentId(KEY, a.id)).to.deep.equal({ ...HANDLE, name: a.name });
    expect(a.id).to.match(/^[\w-]+$/);
  });

  it('refuse every single altered character, a truncated id and an id sealed with another key', () => {
    const { id } = sealSegmentId(KEY, HANDLE);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < id.length; i++) {
      const other = alphabet[(alphabet.indexOf(id[i]!) + 1) % alphabet.length]!;
      expect(openSegmentId(KEY, id.slice(0, i) + other + id.slice(i + 1)), `character ${i}`).to.equal(undefined);
    }
    expect(openSegmentId(KEY, id.slice(0, -1))).to.equal(undefined);
    expect(openSegmentId(KEY, id + 'A')).to.equal(undefined);
    expect(openSegmentId(randomBytes(32), id)).to.equal(undefined);
  });

  it('refuse paths, empty, non-base64url and huge ids without trying to decrypt them', () => {
    for (const bad of ['', '..', '../../etc/passwd', '%2e%2e%2f', 'a/b', 'a b', 'x'.repeat(MAX_SEGMENT_ID_LENGTH + 1), 'A'.repeat(1_000_000)]) {
      expect(openSegmentId(KEY, bad), bad.slice(0, 20)).to.equal(undefined);
    }
  });

  it('key: protocol.spooling.shared-secret-key, else derived from internal-communication.shared-secret, else none', () => {
    expect(spoolingKeyOf({ spoolingSharedSecretKey: KEY, internalSharedSecret: 's' })).to.equal(KEY);
    const derived = spoolingKeyOf({ internalSharedSecret: 's' })!;
    expect(derived).to.have.length(32);
    expect(spoolingKeyOf({ internalSharedSecret: 's' })!.equals(derived)).to.equal(true);
    expect(spoolingKeyOf({ internalSharedSecret: 't' })!.equals(derived)).to.equal(false);
    expect(spoolingKeyOf({})).to.equal(undefined);
  });

  it("expiresAt in Trino's format: a local date-time without offset, with milliseconds", () => {
    expect(expiresAtText(HANDLE.expiresAt)).to.equal('2026-11-29T18:54:52.123');
    expect(expiresAtText(Date.UTC(2026, 0, 1))).to.equal('2026-01-01T00:00:00.000');
  });
});
