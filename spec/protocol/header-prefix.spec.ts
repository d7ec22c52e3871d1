import { expect } from 'chai';
import { detectPrefix, dialectOf, headerValue, headerValues } from '../../lib/protocol/header-prefix.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';

describe('header-prefix', () => {
  describe('detectPrefix', () => {
    it('defaults to X-Service- when no family header is present', () => {
      expect(detectPrefix({})).to.equal('X-Service-');
      expect(detectPrefix({ 'user-agent': 'curl/8', 'content-type': 'text/plain' })).to.equal('X-Service-');
    });

    it('recognises each family from any known request header', () => {
      expect(detectPrefix({ 'x-service-user': 'alice' })).to.equal('X-Service-');
      expect(detectPrefix({ 'x-presto-catalog': 'tpch' })).to.equal('X-Presto-');
      expect(detectPrefix({ 'x-trino-client-capabilities': 'PATH' })).to.equal('X-Trino-');
      expect(detectPrefix({ 'x-trino-time-zone': 'UTC', 'x-trino-user': 'bob' })).to.equal('X-Trino-');
    });

    it('matches names case-insensitively', () => {
      expect(detectPrefix({ 'X-Trino-User': 'bob' })).to.equal('X-Trino-');
    });

    it('ignores unknown names that merely share a prefix', () => {
      expect(detectPrefix({ 'x-presto-something-else': '1', 'x-trino-user': 'bob' })).to.equal('X-Trino-');
      expect(detectPrefix({ 'x-trino-set-catalog': 'tpch' })).to.equal('X-Service-');
    });

    it('rejects a request mixing families with a 400', () => {
      let caught: unknown;
      try {
        detectPrefix({ 'x-trino-user': 'a', 'x-presto-source': 'b' });
      } catch (err) {
        caught = err;
      }
      expect(caught).to.be.instanceOf(VivaceError);
      const err = caught as VivaceError;
      expect(err.errorName).to.equal('INCOMPATIBLE_CLIENT');
      expect(err.httpStatus).to.equal(400);
      expect(err.message).to.equal('Request has headers of more than one protocol family: X-Presto-, X-Trino-');
    });

    it('lists all three families in a fixed order', () => {
      expect(() => detectPrefix({ 'x-trino-user': 'a', 'x-service-user': 'b', 'x-presto-user': 'c' })).to.throw(
        'Request has headers of more than one protocol family: X-Service-, X-Presto-, X-Trino-',
      );
    });
  });

  it('dialectOf: Trino clients get the trino dialect, everyone else presto', () => {
    expect(dialectOf('X-Trino-')).to.equal('trino');
    expect(dialectOf('X-Presto-')).to.equal('presto');
    expect(dialectOf('X-Service-')).to.equal('presto');
  });

  it('headerValue trims, treats empty as absent and takes the first of repeated values', () => {
    expect(headerValue({ 'x-trino-user': '  bob ' }, 'X-Trino-User')).to.equal('bob');
    expect(headerValue({ 'x-trino-user': '   ' }, 'X-Trino-User')).to.equal(undefined);
    expect(headerValue({ 'x-trino-user': ['a', 'b'] }, 'X-Trino-User')).to.equal('a');
    expect(headerValues({ 'x-trino-session': ['a=1', 'b=2'] }, 'X-Trino-Session')).to.deep.equal(['a=1', 'b=2']);
    expect(headerValues({}, 'X-Trino-Session')).to.deep.equal([]);
  });
});
