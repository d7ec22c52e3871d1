// A HASH output's placement (lib/worker/bucket-rows.ts) in real DuckDB: each row in the bucket its key's hash
// gives, and with replicateNullsAndAny each row whose key is NULL and the first row in every bucket, as
// Trino's partitioned semi-join source is placed (AddExchanges.visitSemiJoin, replicateNullsAndAny).
import { expect } from 'chai';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { bucketedRowsSql, BUCKET_COLUMN } from '../../lib/worker/bucket-rows.js';

describe('worker: the buckets a HASH output places its rows in', () => {
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  before(async () => {
    instance = await DuckDBInstance.create(':memory:', { threads: '1' });
    connection = await instance.connect();
  });
  after(() => {
    connection.closeSync();
    instance.closeSync();
  });

  // Ten keys, then a NULL key last (not the first row), then another NULL.
  const INNER = `SELECT * FROM (VALUES ${[...Array.from({ length: 10 }, (_, i) => `(${i + 1}, 'r${i + 1}')`), "(NULL, 'n1')", "(NULL, 'n2')"].join(', ')}) AS t(k, tag)`;
  const placed = async (sql: string) => {
    const rows = (await connection.runAndReadAll(`SELECT tag, list(CAST(${BUCKET_COLUMN} AS INTEGER) ORDER BY ${BUCKET_COLUMN}) FROM (${sql}) GROUP BY tag`)).getRows();
    return new Map(rows.map((r) => [String(r[0]), (r[1] as { items: number[] }).items]));
  };

  it('places each row once, by its key\'s hash', async () => {
    const buckets = await placed(bucketedRowsSql(INNER, ['"k"'], 4));
    expect(buckets.size).to.equal(12);
    for (const [tag, list] of buckets) expect(list, tag).to.have.length(1);
    // The same key, the same bucket: what a consumer of bucket b reads of either side of a join.
    const again = await placed(bucketedRowsSql(INNER, ['"k"'], 4));
    expect([...again]).to.deep.equal([...buckets]);
  });

  it('with its key\'s NULLs and a row replicated: those in every bucket, the others once', async () => {
    const buckets = await placed(bucketedRowsSql(INNER, ['"k"'], 4, ['"k"']));
    expect(buckets.get('n1')).to.deep.equal([0, 1, 2, 3]);
    expect(buckets.get('n2')).to.deep.equal([0, 1, 2, 3]);
    const everywhere = [...buckets].filter(([, list]) => list.length === 4).map(([tag]) => tag).sort();
    expect(everywhere, 'the NULLs and one other row').to.have.length(3);
    for (const [tag, list] of buckets) if (!everywhere.includes(tag)) expect(list, tag).to.have.length(1);
    // Its columns are the rows' and the bucket, as the consumer reads them.
    const columns = (await connection.runAndReadAll(`DESCRIBE ${bucketedRowsSql(INNER, ['"k"'], 4, ['"k"'])}`)).getRows().map((r) => [r[0], r[1]]);
    expect(columns).to.deep.equal([['k', 'INTEGER'], ['tag', 'VARCHAR'], [BUCKET_COLUMN, 'BIGINT']]);
    // An empty input: no row anywhere.
    expect((await placed(bucketedRowsSql(`${INNER} WHERE false`, ['"k"'], 4, ['"k"']))).size).to.equal(0);
  });
});
