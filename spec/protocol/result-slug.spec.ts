import { expect } from 'chai';
import fc from 'fast-check';
import { ResultSlug } from '../../lib/protocol/result-slug.js';

describe('ResultSlug', () => {
  const slug = new ResultSlug();

  it('signs each token and stage differently, in Trino\'s slug shape', () => {
    expect(slug.token(1)).to.match(/^1\.y[0-9a-f]{40}$/);
    expect(slug.token(1)).not.to.equal(slug.token(2).replace(/^2/, '1'));
    expect(slug.stage('0')).to.match(/^y[0-9a-f]{40}$/);
    expect(slug.stage('0')).not.to.equal(slug.stage('1'));
  });

  it('reads back the numbers it signed, and only under its own key', () => {
    fc.assert(
      fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), (n) => {
        expect(slug.tokenNumber(slug.token(n))).to.equal(n);
        expect(new ResultSlug().tokenNumber(slug.token(n))).to.equal(undefined);
      }),
    );
  });

  it('refuses altered spellings of a valid token', () => {
    const valid = slug.token(7);
    const hex = valid.slice(3);
    for (const forged of [
      '7',
      `7.${hex}`,
      `07.y${hex}`,
      `7.Y${hex}`,
      `7.y${hex.toUpperCase()}`,
      `7.y${hex} `,
      ` 7.y${hex}`,
      `+7.y${hex}`,
      `7.0.y${hex}`,
      `8.y${hex}`,
      `7.y${hex.slice(0, 39)}`,
      `7.y${hex}0`,
      `7.y${hex.slice(0, 39)}\u0161`,
      `1e0.y${hex}`,
      `${'9'.repeat(20)}.y${hex}`,
    ]) {
      expect(slug.tokenNumber(forged), forged).to.equal(undefined);
    }
    expect(slug.tokenNumber(valid)).to.equal(7);
  });

  it('never accepts arbitrary text, however long or odd', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(slug.tokenNumber(text)).to.equal(undefined);
        expect(slug.isStage('0', text)).to.equal(false);
      }),
    );
    expect(slug.tokenNumber('1.'.padEnd(1_000_000, 'y'))).to.equal(undefined);
  });
});
