import { expect } from 'chai';
import { getDistributions } from '../../lib/tpch/distributions.js';
import { RowRandomInt } from '../../lib/tpch/row-random-int.js';
import { DEFAULT_TEXT_POOL_SIZE, generateTextPool, getTextPool } from '../../lib/tpch/text-pool.js';

// Straightforward rendering of dbgen's sentence grammar, to check the optimised generator against.
function referencePool(size: number): string {
  const d = getDistributions();
  const random = new RowRandomInt(933588178, 2147483647);
  let text = '';
  const nounPhrase = (): void => {
    for (const token of d.nounPhrase.randomValue(random)) {
      const source = { A: d.articles, J: d.adjectives, D: d.adverbs, N: d.nouns }[token as 'A'];
      if (token === ',') text = text.slice(0, -1) + ', ';
      else if (source !== undefined) text += source.randomValue(random) + ' ';
    }
  };
  while (text.length < size) {
    const grammar = d.grammar.randomValue(random);
    for (let i = 0; i < grammar.length; i += 2) {
      const token = grammar[i];
      if (token === 'N') nounPhrase();
      else if (token === 'P') { text += d.prepositions.randomValue(random) + ' the '; nounPhrase(); }
      else if (token === 'T') text = text.slice(0, -1) + d.terminators.randomValue(random);
      else {
        const verb = d.verbPhrase.randomValue(random);
        for (let k = 0; k < verb.length; k += 2) {
          const source = { D: d.adverbs, V: d.verbs, X: d.auxiliaries }[verb[k] as 'D'];
          text += source.randomValue(random) + ' ';
        }
      }
      if (!text.endsWith(' ')) text += ' ';
    }
  }
  return text.slice(0, size);
}

describe('tpch text pool', () => {
  it('is 300 MiB and starts with dbgen\'s first sentences', () => {
    const pool = getTextPool();
    expect(pool.size).to.equal(DEFAULT_TEXT_POOL_SIZE);
    expect(pool.getText(0, 67)).to.equal('furiously special foxes haggle furiously blithely ironic deposits. ');
    expect(getTextPool()).to.equal(pool);
  });

  it('matches a literal rendering of the grammar', () => {
    const size = 50_000;
    expect(generateTextPool(size, getDistributions()).getText(0, size)).to.equal(referencePool(size));
    expect(getTextPool().getText(0, size)).to.equal(referencePool(size));
  });

  it('refuses slices past its end', () => {
    const pool = getTextPool();
    expect(() => pool.getText(pool.size - 1, pool.size + 1)).to.throw(RangeError);
  });
});
