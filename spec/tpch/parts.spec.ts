import { expect } from 'chai';
import { generateRows } from '../../lib/tpch/index.js';

const rowsOf = (table: string, part: number, partCount: number): unknown[][] =>
  [...generateRows(table, 0.01, part, partCount)];

describe('tpch parts', () => {
  for (const table of ['region', 'nation', 'supplier', 'customer', 'part', 'partsupp', 'orders', 'lineitem']) {
    it(`${table}: parts 1..3 of 3 concatenate to the whole`, () => {
      const whole = rowsOf(table, 1, 1);
      const parts = [1, 2, 3].flatMap((p) => rowsOf(table, p, 3));
      expect(parts.length).to.equal(whole.length);
      expect(parts).to.deep.equal(whole);
    });
  }

  it('lineitem: 7 uneven parts concatenate to the whole', () => {
    const whole = rowsOf('lineitem', 1, 1);
    const parts = [1, 2, 3, 4, 5, 6, 7].flatMap((p) => rowsOf('lineitem', p, 7));
    expect(parts).to.deep.equal(whole);
  });

  it('is deterministic', () => {
    for (const table of ['supplier', 'orders', 'lineitem']) {
      expect(rowsOf(table, 2, 3), table).to.deep.equal(rowsOf(table, 2, 3));
    }
  });
});
