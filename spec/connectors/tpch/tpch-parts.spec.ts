// The generator's part plan without generating (tpch-parts.ts): at tiny it names exactly the files of a
// real generated manifest; at any scale factor the catalog accepts its count is at least 1, its names
// unique and in part order, its files exactly the parts with rows, and a count over the cap builds no
// list; lineitem's row count for the min-rows decision is an estimate close to the exact one.
import { expect } from 'chai';
import fc from 'fast-check';
import type { TpchManifest } from '../../../lib/connectors/tpch/tpch-generation.js';
import { estimatedRowCount, partCountOf, partFile, plannedParts } from '../../../lib/connectors/tpch/tpch-parts.js';
import { tpchScaleFactor } from '../../../lib/connectors/tpch/tpch-metadata.js';
import { generatedTiny } from '../../support/generated-tiny.js';
import { MAX_STAGE_ITEMS } from '../../../lib/cluster/task-protocol.js';
import { rowCount, TPCH_TABLES } from '../../../lib/tpch/index.js';

const TABLES = TPCH_TABLES.map((t) => t.name);

/** A scale factor the catalog accepts, reached through a schema name as a user would write it. */
const acceptedScaleFactor = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true })
  .map((sf) => tpchScaleFactor(`sf${sf}`))
  .filter((sf): sf is number => sf !== undefined);

describe('tpch parts planned without generating (tpch-parts.ts)', function () {
  this.timeout(60_000);
  let manifest: TpchManifest;

  before(async () => {
    ({ manifest } = await generatedTiny());
  });

  it('names at tiny exactly the files of a generated manifest, table by table', () => {
    for (const table of TABLES) {
      const planned = plannedParts(table, 0.01, MAX_STAGE_ITEMS);
      expect(planned?.files, table).to.deep.equal(manifest.tables[table]!.files);
      expect(planned?.files, table).to.have.length(1);
    }
  });

  it('at any accepted scale factor: at least one part, unique names in part order, the files exactly the parts with rows (rowCount)', () => {
    fc.assert(fc.property(fc.constantFrom(...TABLES), acceptedScaleFactor(1e-9, 60_000), (table, sf) => {
      const partCount = partCountOf(table, sf);
      expect(partCount).to.be.at.least(1);
      const planned = plannedParts(table, sf, MAX_STAGE_ITEMS);
      if (partCount > MAX_STAGE_ITEMS) {
        expect(planned).to.equal(undefined);
        return;
      }
      expect(planned!.partCount).to.equal(partCount);
      expect(new Set(planned!.files).size).to.equal(planned!.files.length);
      expect([...planned!.files].sort()).to.deep.equal(planned!.files);
      // lineitem's exact per-part count replays its orders (10 ms per unit): checked where that is cheap.
      if (table === 'lineitem' && sf > 2) return;
      const withRows = Array.from({ length: partCount }, (_, i) => i + 1).filter((p) => rowCount(table, sf, p, partCount) > 0);
      expect(planned!.files).to.deep.equal(withRows.map((p) => partFile(table, p)));
    }), { numRuns: 300 });
  });

  it('lists only part 1 of region and nation where they have several parts (sf30000: 3 parts of region)', () => {
    expect(plannedParts('region', 30_000, MAX_STAGE_ITEMS)).to.deep.equal({ partCount: 3, files: ['region/region-00001.parquet'] });
    expect(plannedParts('nation', 30_000, MAX_STAGE_ITEMS)).to.deep.equal({ partCount: 3, files: ['nation/nation-00001.parquet'] });
    // A scale factor so small a scaled table has no row at all: no file, as the generator writes none.
    expect(plannedParts('supplier', 1e-5, MAX_STAGE_ITEMS)).to.deep.equal({ partCount: 1, files: [] });
    expect(plannedParts('lineitem', 1e-7, MAX_STAGE_ITEMS)).to.deep.equal({ partCount: 1, files: [] });
    expect(plannedParts('lineitem', 1e-6, MAX_STAGE_ITEMS)?.files).to.deep.equal(['lineitem/lineitem-00001.parquet']);
  });

  it('builds no list over the cap, for an infinite scale factor or for a name that is no tpch table', () => {
    const started = performance.now();
    expect(plannedParts('lineitem', tpchScaleFactor('sf100000')!, MAX_STAGE_ITEMS)).to.equal(undefined);
    expect(plannedParts('lineitem', tpchScaleFactor('sfInfinity')!, MAX_STAGE_ITEMS)).to.equal(undefined);
    expect(plannedParts('lineitem', 1e308, MAX_STAGE_ITEMS)).to.equal(undefined);
    expect(performance.now() - started).to.be.below(50);
    for (const name of ['__proto__', 'constructor', 'toString', 'LINEITEM', 'lineitems']) expect(plannedParts(name, 1, MAX_STAGE_ITEMS), name).to.equal(undefined);
    // The largest count under the cap is built whole: lineitem at sf695 has 4,094 parts.
    expect(plannedParts('lineitem', 695, MAX_STAGE_ITEMS)?.files).to.have.length(4094);
    expect(plannedParts('lineitem', 696, MAX_STAGE_ITEMS)).to.equal(undefined);
  });

  it('estimates lineitem as 4 lines per order (within 0.3% of the exact count) and counts every other table exactly', () => {
    for (const sf of [0.01, 1]) {
      for (const table of TABLES.filter((t) => t !== 'lineitem')) expect(estimatedRowCount(table, sf), `${table} at sf${sf}`).to.equal(rowCount(table, sf));
      const exact = rowCount('lineitem', sf);
      expect(Math.abs(estimatedRowCount('lineitem', sf) - exact) / exact, `lineitem at sf${sf}`).to.be.below(0.003);
    }
    expect(estimatedRowCount('lineitem', 0.01)).to.equal(60_000);
    expect(manifest.tables.lineitem!.rows).to.equal(60_175);
  });
});
