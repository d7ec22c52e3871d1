// Rows of a query in two stages against the same query run whole.
import { expect } from 'chai';

/** Same rows in the same order; doubles within a relative 1e-9 (the stages add in another order). */
export function expectSameRows(actual: unknown[][], expected: unknown[][], label: string): void {
  expect(actual.length, `${label}: rows`).to.equal(expected.length);
  actual.forEach((row, i) => row.forEach((value, j) => {
    const want = expected[i]![j];
    if (typeof value === 'number' && typeof want === 'number') {
      expect(Math.abs(value - want), `${label} row ${i} column ${j}`).to.be.at.most(1e-9 * Math.max(1, Math.abs(want)));
    } else {
      expect(value, `${label} row ${i} column ${j}`).to.deep.equal(want);
    }
  }));
}
