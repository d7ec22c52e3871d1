// A DuckDB with the engine's macros and small tables in lake.s (the catalog the planner specs split), made
// by each describe block's own SQL: the data of the property specs over generated statements.
import type { DuckDBConnection } from '@duckdb/node-api';
import { plannerDuckDb } from './fragment-runner.js';

/** Mocha hooks holding such a DuckDB, seeded (a failure replays), its tables made by `tables`. */
export function withLakeDuckDb(seed: number, tables: readonly string[]): () => DuckDBConnection {
  let db: Awaited<ReturnType<typeof plannerDuckDb>> | undefined;
  before(async () => {
    db = await plannerDuckDb();
    for (const sql of ['ATTACH \':memory:\' AS lake', 'CREATE SCHEMA lake.s', `SELECT setseed(${seed})`, ...tables]) await db.connection.run(sql);
  });
  after(() => db?.close());
  return () => db!.connection;
}
