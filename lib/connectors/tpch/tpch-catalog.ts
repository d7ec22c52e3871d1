// The `tpch` catalog, as Trino's tpch connector: the listed schemas (tiny, sf1, sf100 ... sf100000) and any
// other name the connector accepts (sf10, sf0.1), each with the eight TPC-H tables, attached to the engine's
// DuckDB as an in-memory database of views. A schema's data is generated on first use by worker processes
// into <directory>/<scale factor> as Parquet, then reused at later starts; until then a listed schema's
// tables are typed placeholder views (listed, described, not readable), and another name has no DuckDB
// schema until a statement reads it.
import { readdirSync, rmSync } from 'node:fs';
import { statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { defaultLogger } from '../../log/logger.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import { TPCH_TABLES } from '../../tpch/index.js';
import { generateSchema, readManifest, type TpchManifest } from './tpch-generation.js';
import type { TpchSchema } from './tpch-schemas.js';
import { TPCH_CATALOG, TPCH_SCHEMAS, createSchemaSql, parquetViewSql, placeholderViewSql, schemasOfTables, tpchSchema } from './tpch-schemas.js';
import type { TableReference } from '../../sql/duckdb-translation.js';
import { isProcessAlive } from '../process-alive.js';

export interface TpchCatalogOptions {
  /** The catalog's name as users write it (its file's: `tiny` for tiny.properties); its DuckDB database stays `tpch`. Default tpch. */
  catalog?: string;
  /** Where generated schemas live (default: <dataDirectory>/tpch). */
  directory?: string;
  /** Worker processes per generation (default: cores, at most 8; one below scale factor 0.1). */
  workers?: number;
  /** Free bytes on the directory's file system (default: fs.statfs); injectable for tests. */
  freeDiskBytes?: (directory: string) => Promise<number>;
  /** Progress lines (default: `tpch_generation` info lines on the process's logger). */
  log?: (line: string) => void;
  /**
   * A schema's placeholder views were replaced by the views over its data: what a plan analysed before
   * read through them is stale (the engine empties its plan cache and the statements prepared on it).
   */
  onViewsReplaced?: () => void;
}

export interface TpchCatalog {
  /**
   * Resolves when every tpch schema among `tables` (what a user's statement names) is on disk; undefined
   * when there is nothing to wait for. The project's own SQL reads no tpch data.
   */
  beforePlan(tables: () => readonly TableReference[]): Promise<void> | undefined;
  /** Generates a schema now (if not yet) and resolves when its views read the data. */
  ensureSchema(schema: string): Promise<void>;
  close(): void;
}

async function statfsFreeBytes(directory: string): Promise<number> {
  const stats = await statfs(directory);
  return stats.bavail * stats.bsize;
}

/** Temporary directories of generations whose process is gone (crashed mid-way). */
function removeAbandonedTemporaries(directory: string): void {
  let names: string[];
  try {
    names = readdirSync(directory);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = /^\.tmp-[^-]+-(\d+)-/.exec(name)?.[1];
    if (pid === undefined || isProcessAlive(Number(pid))) continue;
    rmSync(join(directory, name), { recursive: true, force: true });
  }
}

/** The views of schema `schema` over a generated scale factor (manifest.schema names its directory). */
function viewsSql(directory: string, schema: string, manifest: TpchManifest): string[] {
  const schemaDirectory = join(directory, manifest.schema);
  return TPCH_TABLES.map((t) => parquetViewSql(schema, t, manifest.tables[t.name]!.files.map((f) => join(schemaDirectory, f))));
}

export async function attachTpchCatalog(instance: DuckDBInstance, options: TpchCatalogOptions & { directory: string }): Promise<TpchCatalog> {
  const { directory } = options;
  const catalog = options.catalog ?? TPCH_CATALOG;
  // By default an info line of the process's log (a worker's stderr carries JSON lines only).
  const log = options.log ?? ((line: string) => defaultLogger().info({ component: 'tpch', event: 'tpch_generation', message: line }));
  const freeDiskBytes = options.freeDiskBytes ?? statfsFreeBytes;
  removeAbandonedTemporaries(directory);
  // A connection of its own for DDL, so generation never holds one of the pool's.
  const connection: DuckDBConnection = await instance.connect();
  const ready = new Set<string>();
  const statements = [`ATTACH IF NOT EXISTS ':memory:' AS ${TPCH_CATALOG}`];
  for (const schema of TPCH_SCHEMAS) {
    statements.push(createSchemaSql(schema.name));
    const manifest = readManifest(join(directory, schema.directory));
    if (manifest) {
      statements.push(...viewsSql(directory, schema.name, manifest));
      ready.add(schema.name);
    } else {
      for (const table of TPCH_TABLES) statements.push(placeholderViewSql(schema, table));
    }
  }
  await connection.run(statements.join(';\n'));

  /** Generations by directory (one per scale factor however spelled), views by schema name. */
  const generations = new Map<string, Promise<TpchManifest>>();
  const pending = new Map<string, Promise<void>>();
  const abort = new AbortController();
  let ddl: Promise<unknown> = Promise.resolve();
  const serialDdl = (sql: string) => {
    const run = ddl.then(() => connection.run(sql));
    ddl = run.catch(() => undefined);
    return run;
  };

  const generate = (schema: TpchSchema): Promise<TpchManifest> => {
    let generation = generations.get(schema.directory);
    if (generation === undefined) {
      // One generation per scale factor however many statements wait for it; a failure lets the next one retry.
      generation = (async () => readManifest(join(directory, schema.directory))
        ?? await generateSchema({ directory, schema, workers: options.workers, freeDiskBytes, log, signal: abort.signal }))()
        .finally(() => generations.delete(schema.directory));
      generations.set(schema.directory, generation);
    }
    return generation;
  };

  const ensureSchema = (name: string): Promise<void> => {
    const schema = tpchSchema(name);
    if (schema === undefined) return Promise.reject(new VivaceError('SCHEMA_NOT_FOUND', `Schema '${catalog}.${name}' does not exist`));
    if (ready.has(schema.name)) return Promise.resolve();
    let views = pending.get(schema.name);
    if (views === undefined) {
      views = (async () => {
        const manifest = await generate(schema);
        await serialDdl([createSchemaSql(schema.name), ...viewsSql(directory, schema.name, manifest)].join(';\n'));
        ready.add(schema.name);
        options.onViewsReplaced?.();
      })().catch((err: unknown) => {
        if (err instanceof VivaceError) throw err;
        throw new VivaceError('GENERIC_INTERNAL_ERROR', `Generating ${catalog}.${schema.name} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }).finally(() => pending.delete(schema.name));
      pending.set(schema.name, views);
    }
    return views;
  };

  return {
    beforePlan(tables) {
      const missing = [...schemasOfTables(tables(), catalog)].filter((s) => !ready.has(s));
      if (missing.length === 0) return undefined;
      return Promise.all(missing.map(ensureSchema)).then(() => undefined);
    },
    ensureSchema,
    close() {
      abort.abort();
      connection.closeSync();
    },
  };
}
