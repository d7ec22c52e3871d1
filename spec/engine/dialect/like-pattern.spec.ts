// LIKE filters of SHOW statements: the meaning of a regular-expression translation, in linear time.
import { expect } from 'chai';
import fc from 'fast-check';
import { likeMatcher } from '../../../lib/engine/dialect/like-pattern.js';

/** The reference meaning on small inputs only (a backtracking regular expression is exact there). */
function reference(pattern: string, name: string): boolean {
  let source = '';
  for (const ch of pattern) {
    if (ch === '%') source += '[\\s\\S]*';
    else if (ch === '_') source += '[\\s\\S]';
    else source += ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'u').test(name);
}

describe('likeMatcher', () => {
  it('agrees with the regular-expression meaning of % and _', () => {
    const alphabet = fc.constantFrom('a', 'b', 'c', '%', '_', 'é', '😀');
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 8 }), fc.array(fc.constantFrom('a', 'b', 'c', 'é', '😀'), { maxLength: 10 }), (p, n) => {
        const pattern = p.join('');
        const name = n.join('');
        expect(likeMatcher({ pattern })(name), `${pattern} ~ ${name}`).to.equal(reference(pattern, name));
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps escaped wildcards literal', () => {
    expect(['a%b', 'axb'].filter(likeMatcher({ pattern: 'a!%b', escape: '!' }))).to.deep.equal(['a%b']);
    expect(() => likeMatcher({ pattern: 'a!', escape: '!' })).to.throw('Escape character must be followed');
  });

  it('answers at once for patterns that made a backtracking expression take seconds', () => {
    const started = performance.now();
    const match = likeMatcher({ pattern: `${'%c'.repeat(200)}%d` });
    expect(match('c'.repeat(5000))).to.equal(false);
    expect(match(`${'c'.repeat(5000)}d`)).to.equal(true);
    expect(performance.now() - started).to.be.below(500);
  });
});
