// Runs a DistributedPlan in one DuckDB, as the cluster would run it on workers: each SOURCE task reads its
// own slice of the scanned table, each fragment's output is kept per task (with its bucket for a HASH
// output), and a consumer task reads the outputs meant for it: all of a SINGLE or BROADCAST output, its
// bucket of a HASH one. Every fragment's Trino SQL goes through the real DuckDB translation. A spec
// harness: it proves a plan's answer without processes, so the planner's specs test the tree alone.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { join } from 'node:path';
import { CONNECTION_SETUP_SQL } from '../../lib/engine/presto-macros.js';
import { parquetViewSql } from '../../lib/connectors/tpch/tpch-schemas.js';
import { tpchTableColumns } from '../../lib/connectors/tpch/tpch-metadata.js';
import { TPCH_TABLES } from '../../lib/tpch/index.js';
import { formatType } from '../../lib/protocol/presto-type.js';
import type { PlannerMetadata } from '../../lib/planner/planner.types.js';
import { generatedTiny } from '../support/generated-tiny.js';
import { parseStatement } from '../../lib/sql/index.js';
import { translateStatement } from '../../lib/sql/duckdb-translation.js';
import { quoteIdentifier } from '../../lib/sql/sql-formatter.js';
import { bucketedRowsSql } from '../../lib/worker/bucket-rows.js';
import type { DistributedPlan, PlanFragment } from '../../lib/planner/fragment.types.js';

/** DuckDB's numeric types (the worker hashes Presto's numeric types as DOUBLE). */
const NUMERIC = /^(?:U?TINYINT|U?SMALLINT|U?INTEGER|U?BIGINT|U?HUGEINT|FLOAT|DOUBLE|DECIMAL\(\d+,\d+\))$/u;

export interface RunOptions {
  /** Tasks of a SOURCE fragment (slices of its table) and of a HASH fragment (buckets). */
  tasks: number;
  catalog?: string;
  schema?: string;
  /**
   * The column each table's parts are cut on (TableLayout.partitionedOn): a SOURCE fragment reading whole
   * parts (scan.whole) reads, in each task, the rows whose value of it hashes to the task, as a part
   * holds every row of each of its values.
   */
  partitionedOn?: Readonly<Record<string, string>>;
}

/** Rows as JSON values (order kept), for comparing answers. */
export async function rowsOf(connection: DuckDBConnection, sql: string): Promise<unknown[][]> {
  const reader = await connection.runAndReadAll(sql);
  return reader.getRowsJson() as unknown[][];
}

/** Rows in a canonical order, for answers whose order the query leaves open. */
export const sortedRows = (rows: unknown[][]): unknown[][] => rows.map((r) => ({ r, k: JSON.stringify(r) })).sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0)).map((e) => e.r);

export function translate(sql: string, options: RunOptions, virtualTable?: (catalog: string, schema: string, table: string) => string | undefined): string {
  return translateStatement(parseStatement(sql), sql, {
    catalog: options.catalog,
    schema: options.schema,
    timeZone: 'UTC',
    user: 'spec',
    databaseOf: (c) => c,
    ...(virtualTable ? { virtualTable } : {}),
  }).sql;
}

/** The root's rows of `plan`. */
export async function runPlan(connection: DuckDBConnection, plan: DistributedPlan, options: RunOptions): Promise<unknown[][]> {
  const byId = new Map(plan.fragments.map((f) => [f.id, f]));
  const consumerOf = new Map<number, PlanFragment>();
  for (const f of plan.fragments) for (const s of f.sources) consumerOf.set(s.fragmentId, f);
  const taskCount = (f: PlanFragment) => (f.partitioning === 'SINGLE' ? 1 : options.tasks);
  /** Output tables of a fragment's tasks. */
  const outputs = new Map<number, string[]>();
  const prefix = `run${Math.floor(Math.random() * 1e9)}`;

  const run = async (f: PlanFragment): Promise<void> => {
    for (const s of f.sources) if (!outputs.has(s.fragmentId)) await run(byId.get(s.fragmentId)!);
    const tables: string[] = [];
    for (let task = 0; task < taskCount(f); task++) {
      const sources = new Map<string, string>();
      for (const s of f.sources) {
        const producer = byId.get(s.fragmentId)!;
        const parts = outputs.get(s.fragmentId)!.map((t) => (producer.output.kind === 'HASH' ? `SELECT * EXCLUDE (vivace_bucket) FROM ${t} WHERE vivace_bucket = ${task}` : `SELECT * FROM ${t}`));
        sources.set(`${s.table.catalog}.${s.table.schema}.${s.table.table}`, parts.join(' UNION ALL '));
      }
      if (f.scan) {
        const t = f.scan.table;
        const name = `${t.catalog}.${t.schema}.${t.table}`;
        const whole = `${quoteIdentifier(t.catalog)}.${quoteIdentifier(t.schema)}.${quoteIdentifier(t.table)}`;
        const on = f.scan.whole ? options.partitionedOn?.[t.table] : undefined;
        if (f.scan.whole && on === undefined) throw new Error(`Fragment ${f.id} reads whole parts of ${name}: give its partitioning column`);
        sources.set(name, on !== undefined
          ? `SELECT * FROM ${whole} WHERE hash(${quoteIdentifier(on)}) % ${options.tasks} = ${task}`
          : `SELECT * EXCLUDE (vivace_n) FROM (SELECT *, row_number() OVER () AS vivace_n FROM ${whole}) WHERE vivace_n % ${options.tasks} = ${task}`);
      }
      const sql = translate(f.sql, options, (c, s, t) => sources.get(`${c}.${s}.${t}`));
      const output = `${prefix}_f${f.id}_t${task}`;
      const consumer = consumerOf.get(f.id);
      if (f.output.kind === 'HASH' && consumer) {
        const buckets = taskCount(consumer);
        // Numeric keys hashed as DOUBLE, as the worker hashes them (stage-runner.ts): 1 = 1.0 lands alike.
        const types = new Map((await rowsOf(connection, `DESCRIBE SELECT * FROM (${sql})`)).map((r) => [String(r[0]), String(r[1])]));
        const keys = f.output.keys.map((k) => (NUMERIC.test(types.get(k) ?? '') ? `CAST(${quoteIdentifier(k)} AS DOUBLE)` : quoteIdentifier(k)));
        // The worker's placement (bucket-rows.ts), a key's NULLs and a row replicated where the output says so.
        await connection.run(`CREATE TEMP TABLE ${output} AS ${bucketedRowsSql(sql, keys, buckets, f.output.replicateNullsAndAny ? f.output.keys.map(quoteIdentifier) : undefined)}`);
      } else {
        await connection.run(`CREATE TEMP TABLE ${output} AS ${sql}`);
      }
      tables.push(output);
    }
    outputs.set(f.id, tables);
  };
  const root = byId.get(0)!;
  for (const s of root.sources) await run(byId.get(s.fragmentId)!);
  const sources = new Map(root.sources.map((s) => [`${s.table.catalog}.${s.table.schema}.${s.table.table}`, outputs.get(s.fragmentId)!.map((t) => `SELECT * FROM ${t}`).join(' UNION ALL ')]));
  return rowsOf(connection, translate(root.sql, options, (c, s, t) => sources.get(`${c}.${s}.${t}`)));
}

/** A DuckDB with the engine's macros, for running fragments as a worker's connection would. */
export async function plannerDuckDb(): Promise<{ connection: DuckDBConnection; close(): void }> {
  const instance = await DuckDBInstance.create(':memory:', { threads: '2' });
  const connection = await instance.connect();
  for (const sql of CONNECTION_SETUP_SQL) await connection.run(sql);
  return { connection, close: () => { connection.closeSync(); instance.closeSync(); } };
}

/** That DuckDB with tpch.tiny's tables as views over the generated parts (spec/support/generated-tiny.ts). */
export async function tinyDuckDb(): Promise<{ connection: DuckDBConnection; close(): void }> {
  const { directory, manifest } = await generatedTiny();
  const db = await plannerDuckDb();
  await db.connection.run('ATTACH \':memory:\' AS tpch');
  await db.connection.run('CREATE SCHEMA tpch.tiny');
  for (const t of TPCH_TABLES) await db.connection.run(parquetViewSql('tiny', t, manifest.tables[t.name]!.files.map((f) => join(directory, manifest.schema, f))));
  return db;
}

/** Mocha hooks holding a tinyDuckDb for a describe block (after `setup`): the getter answers its connection. */
export function withTinyDuckDb(setup?: (connection: DuckDBConnection) => Promise<void>): () => DuckDBConnection {
  let db: { connection: DuckDBConnection; close(): void } | undefined;
  before(async () => {
    db = await tinyDuckDb();
    await setup?.(db.connection);
  });
  after(() => db?.close());
  return () => db!.connection;
}

/** tpch.tiny's rows per table. */
export const TINY_ROWS: Readonly<Record<string, number>> = { lineitem: 60175, orders: 15000, customer: 1500, part: 2000, partsupp: 8000, supplier: 100, nation: 25, region: 5 };

/** Planner metadata of tpch.tiny, the tables `splits` names read over splits. */
export function tinyMetadata(splits: (table: string) => boolean): PlannerMetadata {
  return {
    table(t) {
      const columns = t.catalog === 'tpch' && t.schema === 'tiny' ? tpchTableColumns(t.table) : undefined;
      return columns && { columns: columns.map((c) => ({ name: c.name, type: formatType(c.type) })), splits: splits(t.table), rows: TINY_ROWS[t.table] };
    },
  };
}

/**
 * Small tables lake.s.<name> (k integer, g varchar, v bigint, 40 rows) in an attached `lake`, with repeated
 * keys (`keys` values), NULLs and a few groups, fixed by `seed` so a failure replays; `nullV`: v has NULLs too.
 */
export async function createSmallLakeTables(connection: DuckDBConnection, names: readonly string[], seed: number, keys = 12, nullV = false): Promise<void> {
  await connection.run('ATTACH \':memory:\' AS lake');
  await connection.run('CREATE SCHEMA lake.s');
  await connection.run(`SELECT setseed(${seed})`);
  const v = 'CAST(floor(random() * 10) AS BIGINT)';
  for (const t of names) {
    await connection.run(`CREATE TABLE lake.s.${t} AS SELECT CASE WHEN random() < 0.1 THEN NULL ELSE CAST(floor(random() * ${keys}) AS INTEGER) END AS k,
      CASE WHEN random() < 0.1 THEN NULL ELSE chr(97 + CAST(floor(random() * 4) AS INTEGER)) END AS g, ${nullV ? `CASE WHEN random() < 0.1 THEN NULL ELSE ${v} END` : v} AS v FROM range(40)`);
  }
}

/** The planner's metadata of those tables: the ones `splits` names read over splits. */
export function smallLakeMetadata(names: readonly string[], splits: (table: string) => boolean): PlannerMetadata {
  return {
    table(t) {
      if (t.catalog !== 'lake' || t.schema !== 's' || !names.includes(t.table)) return undefined;
      return { columns: [{ name: 'k', type: 'integer' }, { name: 'g', type: 'varchar' }, { name: 'v', type: 'bigint' }], splits: splits(t.table), rows: 40 };
    },
  };
}
