import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TPCH_TABLES, generateRows, writeTableCsv } from '../../lib/tpch/index.js';

describe('tpch CSV writer', () => {
  let dir: string;
  before(() => { dir = mkdtempSync(join(tmpdir(), 'tpch-csv-spec-')); });
  after(() => { rmSync(dir, { recursive: true, force: true }); });

  // The CSV path writes bytes directly; it must print exactly the values generateRows yields.
  for (const table of TPCH_TABLES) {
    it(`${table.name}: every line parses back to the generated values`, () => {
      const file = join(dir, `${table.name}.tbl`);
      const written = writeTableCsv(table.name, 0.01, 2, 3, file);
      const lines = readFileSync(file, 'latin1').split('\n');
      expect(lines.pop()).to.equal('');
      const rows = [...generateRows(table.name, 0.01, 2, 3)];
      expect(lines.length).to.equal(written);
      expect(lines.length).to.equal(rows.length);
      lines.forEach((line, r) => {
        const fields = line.split('|');
        const parsed = fields.map((f, c) => (['varchar', 'date'].includes(table.columns[c].type) ? f : Number(f)));
        expect(parsed, `${table.name} line ${r}`).to.deep.equal(rows[r]);
      });
    });
  }

  it('writes dbgen formatting (two-decimal money) and an optional header', () => {
    const file = join(dir, 'part.tbl');
    writeTableCsv('part', 0.01, 1, 1, file, { header: true });
    const [header, first] = readFileSync(file, 'latin1').split('\n');
    expect(header).to.equal('partkey|name|mfgr|brand|type|size|container|retailprice|comment');
    expect(first).to.equal(
      '1|goldenrod lavender spring chocolate lace|Manufacturer#1|Brand#13|PROMO BURNISHED COPPER|7|JUMBO PKG|901.00|ly. slyly ironi');
  });
});
