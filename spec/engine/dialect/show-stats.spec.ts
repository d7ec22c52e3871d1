// SHOW STATS FOR table / (query): Trino's columns and a row per column plus the summary row, computed on the data.
import { expect } from 'chai';
import type { Engine } from '../../../lib/engine/engine.types.js';
import { newEngine, runSql, testSession } from '../engine-helpers.js';

describe('dialect: SHOW STATS', () => {
  let engine: Engine;
  before(async () => {
    engine = await newEngine(1);
    await runSql(engine, 'CREATE TABLE memory.default.stats (id bigint, name varchar, d date)');
    await runSql(engine, "INSERT INTO memory.default.stats VALUES (1, 'ab', DATE '2020-01-01'), (2, NULL, DATE '2020-03-01'), (3, 'cde', NULL), (3, 'ab', NULL)");
  });
  after(() => engine.close());

  it('answers Trino\'s columns: sizes of variable-width columns, distinct counts, null fractions, ranges, the row count', async () => {
    const out = await runSql(engine, 'SHOW STATS FOR memory.default.stats');
    expect(out.plan.columns.map((c) => `${c.name}:${c.type.base}`)).to.deep.equal([
      'column_name:varchar', 'data_size:double', 'distinct_values_count:double', 'nulls_fraction:double', 'row_count:double', 'low_value:varchar', 'high_value:varchar',
    ]);
    expect(out.rows).to.deep.equal([
      ['id', null, 3, 0, null, '1', '3'],
      ['name', 7, 2, 0.25, null, null, null],
      ['d', null, 2, 0.5, null, '2020-01-01', '2020-03-01'],
      [null, null, null, null, 4, null, null],
    ]);
  });

  it('reads a query, through the gate and the translation like any statement', async () => {
    const out = await runSql(engine, 'SHOW STATS FOR (SELECT id FROM stats WHERE id > 1)');
    expect(out.rows).to.deep.equal([['id', null, 2, 0, null, '2', '3'], [null, null, null, null, 3, null, null]]);
    const refused = await engine.plan("SHOW STATS FOR (SELECT * FROM TABLE(read_text('/etc/passwd')))", testSession()).catch((e: unknown) => e);
    expect(refused).to.include({ errorName: 'FUNCTION_NOT_FOUND' });
  });
});
