// The origin table of each output column, as Trino's DESCRIBE OUTPUT shows it, read off the tree.
import { expect } from 'chai';
import { parseStatement } from '../../lib/sql/parser.js';
import { outputOrigins } from '../../lib/sql/output-origins.js';

const session = { catalog: 'tpch', schema: 'tiny' };
const origins = (sql: string, columns: number) => outputOrigins(parseStatement(sql), columns, session).map((o) => [o.table && `${o.table.catalog}.${o.table.schema}.${o.table.table}`, o.aliased]);

describe('sql: output origins', () => {
  it('a column read as it is, or through *, comes from its table; an expression from none', () => {
    expect(origins('SELECT * FROM tpch.tiny.nation', 2)).to.deep.equal([['tpch.tiny.nation', false], ['tpch.tiny.nation', false]]);
    expect(origins("SELECT 1, DECIMAL '1.0' AS a", 2)).to.deep.equal([[undefined, false], [undefined, true]]);
    expect(origins('SELECT name AS n, upper(name) FROM nation', 2)).to.deep.equal([['tpch.tiny.nation', true], [undefined, false]]);
  });

  it('resolves qualifiers against aliases and table names, and leaves what the tree cannot tell', () => {
    expect(origins('SELECT r.name, n.*, regionkey FROM nation n JOIN sf1.region r ON n.regionkey = r.regionkey', 4)).to.deep.equal([
      ['tpch.sf1.region', false], ['tpch.tiny.nation', false], ['tpch.tiny.nation', false], [undefined, false],
    ]);
    expect(origins('WITH nation AS (SELECT 1 AS x) SELECT x FROM nation', 1)).to.deep.equal([[undefined, false]]);
    // Two * items split the columns in a way only the tables know: no origins rather than wrong ones.
    expect(origins('SELECT n.*, r.* FROM nation n, region r', 7)).to.deep.equal(Array.from({ length: 7 }, () => [undefined, false]));
    expect(origins('VALUES 1', 1)).to.deep.equal([[undefined, false]]);
  });
});
