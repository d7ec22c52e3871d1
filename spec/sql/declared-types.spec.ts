// What a query's output columns declare beyond DuckDB's types: literal and cast types, and the
// declared types of table columns (tpch's varchar bounds) read through the FROM clause.
import { expect } from 'chai';
import { parseStatement } from '../../lib/sql/parser.js';
import { declaredOutputs, type DeclaredContext } from '../../lib/sql/declared-types.js';
import type { PrestoType } from '../../lib/protocol/types.js';

const NATION = new Map<string, PrestoType>([
  ['nationkey', { base: 'bigint' }], ['name', { base: 'varchar', length: 25 }], ['regionkey', { base: 'bigint' }], ['comment', { base: 'varchar', length: 152 }],
]);
const REGION = new Map<string, PrestoType>([['regionkey', { base: 'bigint' }], ['name', { base: 'varchar', length: 25 }], ['comment', { base: 'varchar', length: 152 }]]);

const context: DeclaredContext = {
  catalog: 'tpch',
  schema: 'tiny',
  tableColumns: (t) => (t.catalog === 'tpch' && t.schema === 'tiny' ? (t.table === 'nation' ? NATION : t.table === 'region' ? REGION : undefined) : undefined),
};
const types = (sql: string, names: string[] = []) => declaredOutputs(parseStatement(sql), context, names)?.map((d) => d.type);

describe('declared output types', () => {
  it('reads column references through tables, aliases and joins, where exactly one table has the column', () => {
    expect(types('SELECT name, n.comment, nationkey + 1 FROM nation n')).to.deep.equal([{ base: 'varchar', length: 25 }, { base: 'varchar', length: 152 }, undefined]);
    expect(types('SELECT n.name, r.name, nationkey, comment FROM tpch.tiny.nation n JOIN region r ON true')).to.deep.equal([
      { base: 'varchar', length: 25 }, { base: 'varchar', length: 25 }, { base: 'bigint' }, undefined,
    ]);
  });

  it('gives a lone * over one known table its columns by output name', () => {
    expect(types('SELECT * FROM nation', ['nationkey', 'name', 'regionkey', 'comment'])).to.deep.equal([...NATION.values()]);
  });

  it('declares nothing through relations it cannot see into: CTEs of the same name, subqueries, USING joins', () => {
    expect(types('WITH nation AS (SELECT 1 AS name) SELECT name FROM nation')).to.deep.equal([undefined]);
    expect(types('SELECT name FROM (SELECT name FROM nation) t')).to.deep.equal([undefined]);
    expect(types('SELECT name FROM nation JOIN region USING (regionkey)')).to.deep.equal([undefined]);
    expect(types('SELECT name FROM nation', [])).to.deep.equal([{ base: 'varchar', length: 25 }]);
    expect(declaredOutputs(parseStatement('SELECT name FROM nation'), { tableColumns: context.tableColumns })?.[0]?.type).to.equal(undefined);
  });

  it('prefers what a literal or cast declares', () => {
    expect(types("SELECT CAST(name AS varchar(3)), 'ab', NULL FROM nation")).to.deep.equal([{ base: 'varchar', length: 3 }, { base: 'varchar', length: 2 }, { base: 'unknown' }]);
  });
});
