// The 22 TPC-H queries at tpch.tiny through the engine, each compared with the same query run by a
// separate plain DuckDB instance on CSV written here by the generator in this process (so the worker
// processes, the Parquet conversion, the catalog's views and the engine's rewriting and rendering are
// all checked against an independent path).
// Q8 and Q14 fail on purpose until the engine's division rewrite handles aggregate / aggregate:
// `sum(a) / sum(b)` fails with "Macro vivace_divide() has multiple overloads that match".
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { createDuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import type { Engine } from '../../lib/engine/engine.types.js';
import { TPCH_TABLES, writeTableCsv } from '../../lib/tpch/index.js';
import { TPCH_QUERIES } from '../../lib/tpch/queries/tpch-queries.js';
import { runSql, testSession } from '../engine/engine-helpers.js';

const SCALE_FACTOR = 0.01;
const quote = (s: string) => `'${s.replace(/'/g, "''")}'`;

async function referenceDuckDb(directory: string): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2', autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
  const connection = await instance.connect();
  for (const table of TPCH_TABLES) {
    const file = join(directory, `${table.name}.csv`);
    writeTableCsv(table.name, SCALE_FACTOR, 1, 1, file);
    const columns = table.columns.map((c) => `${quote(c.name)}: ${quote(c.type.toUpperCase())}`).join(', ');
    await connection.run(`CREATE TABLE ${table.name} AS SELECT * FROM read_csv(${quote(file)}, columns = {${columns}}, `
      + `delim = '|', header = false, auto_detect = false, quote = '', escape = '')`);
  }
  return connection;
}

const numeric = (v: unknown): number | undefined =>
  typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+(?:\.\d+)?(?:e[-+]?\d+)?$/i.test(v) ? Number(v) : undefined;

/** Same rows in the same order; doubles within a relative 1e-9 (sums may add in another order). */
function expectSameRows(actual: unknown[][], expected: unknown[][], label: string): void {
  expect(actual.length, `${label}: rows`).to.equal(expected.length);
  actual.forEach((row, i) => {
    expect(row.length, `${label} row ${i}: columns`).to.equal(expected[i]!.length);
    row.forEach((value, j) => {
      const want = expected[i]![j];
      const [a, e] = [numeric(value), numeric(want)];
      if (a !== undefined && e !== undefined) {
        expect(Math.abs(a - e), `${label} row ${i} column ${j}: ${a} vs ${e}`).to.be.at.most(1e-9 * Math.max(1, Math.abs(e)));
      } else {
        expect(value, `${label} row ${i} column ${j}`).to.equal(want);
      }
    });
  });
}

describe('TPC-H queries at tpch.tiny', function () {
  this.timeout(60_000);
  let directory: string;
  let engine: Engine;
  let reference: DuckDBConnection;
  const session = testSession({ catalog: 'tpch', schema: 'tiny' });

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'vivace-tpch-queries-'));
    mkdirSync(join(directory, 'csv'));
    engine = await createDuckDbEngine({ tempDirectory: join(directory, 'spill'), dataDirectory: directory, threads: 2, tpch: { log: () => {} } });
    // The catalog's worker generates while this process writes the reference CSV.
    const generated = runSql(engine, 'SELECT count(*) FROM tpch.tiny.region');
    reference = await referenceDuckDb(join(directory, 'csv'));
    await generated;
  });
  after(async () => {
    reference?.closeSync();
    await engine?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  for (const query of TPCH_QUERIES) {
    it(`Q${query.number} ${query.name}`, async () => {
      const { rows, plan } = await runSql(engine, query.sql, session);
      const expected = (await reference.runAndReadAll(query.sql)).getRowsJson() as unknown[][];
      expect(plan.columns.length).to.equal(expected[0]?.length ?? plan.columns.length);
      expectSameRows(rows, expected, `Q${query.number}`);
      if (query.number !== 15) expect(rows.length, 'a query with rows at sf 0.01').to.be.above(0);
    });
  }
});
