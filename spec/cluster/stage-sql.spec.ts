// How the coordinator cuts a table's files into splits for its workers (stage-sql.ts splitsOf): a file
// into row slices when there are fewer files than workers, each slice carrying the file's rows when known.
import { expect } from 'chai';
import { scanSplitsOf, splitsOf } from '../../lib/cluster/stage-sql.js';

describe('stage SQL: the splits of a table\'s files for the workers', () => {
  it('carries each file\'s rows in its slices, and none for a file read whole or of unknown rows', () => {
    expect(splitsOf(['a', 'b'], 4, [10, 20])).to.deep.equal([
      { file: 'a', slice: 0, slices: 2, rows: 10 }, { file: 'a', slice: 1, slices: 2, rows: 10 },
      { file: 'b', slice: 0, slices: 2, rows: 20 }, { file: 'b', slice: 1, slices: 2, rows: 20 },
    ]);
    expect(splitsOf(['a', 'b'], 2, [10, 20])).to.deep.equal([{ file: 'a', slice: 0, slices: 1 }, { file: 'b', slice: 0, slices: 1 }]);
    expect(splitsOf(['a'], 2)).to.deep.equal([{ file: 'a', slice: 0, slices: 2 }, { file: 'a', slice: 1, slices: 2 }]);
  });

  it('gives a scan reading whole parts (scan.whole) each part whole, however few the parts', () => {
    const table = { catalog: 'tpch', schema: 'sf1', table: 'lineitem' };
    expect(scanSplitsOf({ table }, ['a'], 2, [10])).to.deep.equal(splitsOf(['a'], 2, [10]));
    expect(scanSplitsOf({ table, whole: true }, ['a'], 2, [10])).to.deep.equal([{ file: 'a', slice: 0, slices: 1 }]);
    expect(scanSplitsOf({ table, whole: true }, ['a', 'b', 'c'], 10)).to.deep.equal(['a', 'b', 'c'].map((file) => ({ file, slice: 0, slices: 1 })));
  });
});
