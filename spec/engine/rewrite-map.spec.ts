import { expect } from 'chai';
import { RewriteMap } from '../../lib/engine/rewrite-map.js';

describe('RewriteMap', () => {
  // "ab XY cd" -> "ab LONGER cd": the replacement maps to where XY stood, the text after it shifts back.
  const map = RewriteMap.of([
    { origin: 0, text: 'ab ', kept: true },
    { origin: 3, text: 'LONGER', kept: false },
    { origin: 5, text: ' cd', kept: true },
  ]);

  it('maps kept text one to one and a replacement to the start of what it replaced', () => {
    expect([0, 1, 2].map((o) => map.toOriginal(o))).to.deep.equal([0, 1, 2]);
    expect([3, 5, 8].map((o) => map.toOriginal(o))).to.deep.equal([3, 3, 3]);
    expect([9, 10, 11].map((o) => map.toOriginal(o))).to.deep.equal([5, 6, 7]);
  });

  it('composes with the rewrite applied before it, and the identity changes nothing', () => {
    // A second rewrite of "ab LONGER cd" that replaces "ab" by "a".
    const second = RewriteMap.of([{ origin: 0, text: 'a', kept: false }, { origin: 2, text: ' LONGER cd', kept: true }], map);
    expect(second.toOriginal(10)).to.equal(map.toOriginal(11));
    expect(second.toOriginal(0)).to.equal(0);
    expect(RewriteMap.IDENTITY.toOriginal(42)).to.equal(42);
  });

  it('maps the text as written forward: kept text one to one, a replaced part to its replacement, through both rewrites', () => {
    expect([0, 2, 3, 4, 5, 7].map((o) => map.toRewritten(o))).to.deep.equal([0, 2, 3, 3, 9, 11]);
    const second = RewriteMap.of([{ origin: 0, text: 'a', kept: false }, { origin: 2, text: ' LONGER cd', kept: true }], map);
    for (const o of [5, 6, 7]) expect(second.toOriginal(second.toRewritten(o))).to.equal(o);
    expect(RewriteMap.IDENTITY.toRewritten(42)).to.equal(42);
  });
});
