// A DuckDB with the engine's macros and small tables in lake.s (the catalog the planner specs split), made
// by each describe block's own SQL: the data of the property specs over generated statements; and a plan's
// answer beside the one-task answer.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DistributedPlan } from '../../lib/planner/fragment.types.js';
import { plannerDuckDb, rowsOf, runPlan, sortedRows, translate } from './fragment-runner.js';

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

/** A column `name` of random integers 0..n-1 (NULL with probability `nulls`), for a CREATE TABLE ... AS SELECT. */
export const randomInts = (name: string, n: number, nulls: number, type = 'INTEGER'): string =>
  `CASE WHEN random() < ${nulls} THEN NULL ELSE CAST(floor(random() * ${n}) AS ${type}) END AS ${name}`;

/** A column `name` of random letters among the first n (NULL with probability `nulls`). */
export const randomLetters = (name: string, n: number, nulls: number): string =>
  `CASE WHEN random() < ${nulls} THEN NULL ELSE chr(97 + CAST(floor(random() * ${n}) AS INTEGER)) END AS ${name}`;

/** The plan's answer and the one-task answer, each in canonical order unless `ordered`. */
export async function planAnswers(connection: DuckDBConnection, sql: string, plan: DistributedPlan, options: { tasks: number; catalog: string; schema: string }, ordered: boolean) {
  const actual = await runPlan(connection, plan, options);
  const expected = await rowsOf(connection, translate(sql, options));
  return ordered ? { actual, expected } : { actual: sortedRows(actual), expected: sortedRows(expected) };
}
