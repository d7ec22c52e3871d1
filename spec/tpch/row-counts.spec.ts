import { expect } from 'chai';
import { TPCH_TABLES, generateRows, rowCount } from '../../lib/tpch/index.js';

const TINY_COUNTS: Record<string, number> = {
  region: 5, nation: 25, supplier: 100, customer: 1500, part: 2000, partsupp: 8000, orders: 15000, lineitem: 60175,
};

describe('tpch row counts', () => {
  for (const [table, expected] of Object.entries(TINY_COUNTS)) {
    it(`${table} has ${expected} rows at tiny`, () => {
      let rows = 0;
      for (const _ of generateRows(table, 0.01, 1, 1)) rows++;
      expect(rows).to.equal(expected);
      expect(rowCount(table, 0.01)).to.equal(expected);
    });
  }

  it('rowCount at sf1, lineitem by replaying the line-count stream', () => {
    expect(rowCount('supplier', 1)).to.equal(10_000);
    expect(rowCount('customer', 1)).to.equal(150_000);
    expect(rowCount('part', 1)).to.equal(200_000);
    expect(rowCount('partsupp', 1)).to.equal(800_000);
    expect(rowCount('orders', 1)).to.equal(1_500_000);
    expect(rowCount('lineitem', 1)).to.equal(6_001_215);
  });

  it('rowCount of parts adds up to the whole', () => {
    for (const table of TPCH_TABLES) {
      const parts = [1, 2, 3].map((p) => rowCount(table.name, 0.01, p, 3));
      expect(parts.reduce((a, b) => a + b, 0), table.name).to.equal(rowCount(table.name, 0.01));
    }
  });

  it('every row has one value per column', () => {
    for (const table of TPCH_TABLES) {
      const first = generateRows(table.name, 0.01, 1, 1).next().value as unknown[];
      expect(first, table.name).to.have.length(table.columns.length);
    }
  });

  it('rejects unknown tables and bad parts', () => {
    expect(() => rowCount('nope', 1)).to.throw(RangeError);
    expect(() => generateRows('orders', 1, 0, 2).next()).to.throw(RangeError);
    expect(() => generateRows('orders', 1, 3, 2).next()).to.throw(RangeError);
    expect(() => generateRows('orders', 0, 1, 1).next()).to.throw(RangeError);
  });
});
