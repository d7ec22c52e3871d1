// Shared setup for the hive connector's specs: a temporary root, a HiveCatalogConfig over it, an engine
// with the catalog, and DuckDB opened directly to read back the files the statements wrote.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { createDuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import type { Engine } from '../../../lib/engine/engine.types.js';
import type { HiveCatalogConfig } from '../../../lib/connectors/catalog.types.js';
import { defaultHiveCatalog } from '../../../lib/connectors/hive/default-lake.js';
import { runSql, testSession, type Outcome } from '../../engine/engine-helpers.js';
import type { Session } from '../../../lib/protocol/types.js';

export interface HiveFixture {
  directory: string;
  root: string;
  config: HiveCatalogConfig;
  engine: Engine;
  session: Session;
  run(sql: string, session?: Session): Promise<Outcome>;
  /** The error a statement fails with. */
  failure(sql: string, session?: Session): Promise<{ errorName: string; message: string }>;
  /** Rows of DuckDB SQL run directly (outside the engine's sandbox), to read the files back. */
  direct(sql: string): Promise<unknown[][]>;
  close(): Promise<void>;
}

export async function hiveFixture(overrides: Partial<HiveCatalogConfig> = {}): Promise<HiveFixture> {
  const directory = mkdtempSync(join(tmpdir(), 'vivace-hive-spec-'));
  const root = join(directory, 'lake');
  mkdirSync(root, { recursive: true });
  const config: HiveCatalogConfig = { ...defaultHiveCatalog(root), ...overrides };
  const engine = await openEngine(directory, config);
  const instance = await DuckDBInstance.create(':memory:');
  const reader = await instance.connect();
  const session = testSession({ catalog: 'lake', schema: 'default' });
  const fixture: HiveFixture = {
    directory, root, config, engine: engine.engine, session,
    run: (sql, s = session) => runSql(fixture.engine, sql, s),
    async failure(sql, s = session) {
      try {
        await runSql(fixture.engine, sql, s);
      } catch (err) {
        const e = err as { errorName: string; message: string };
        return { errorName: e.errorName, message: e.message };
      }
      throw new Error(`expected a failure: ${sql}`);
    },
    async direct(sql) {
      return (await reader.runAndReadAll(sql)).getRows();
    },
    async close() {
      await fixture.engine.close();
      reader.closeSync();
      instance.closeSync();
      rmSync(directory, { recursive: true, force: true });
    },
  };
  return fixture;
}

/** An engine with the hive catalog over `config` (a node: its spill directory under `directory`). */
export async function openEngine(directory: string, config: HiveCatalogConfig, name = 'engine'): Promise<{ engine: Engine }> {
  const temp = join(directory, name);
  const engine = await createDuckDbEngine({ tempDirectory: temp, threads: 2, maxConnections: 4, tpch: false, hive: [config] });
  return { engine };
}

/** A fixture with schema `lake.s`, opened before the suite's tests and closed after them; call inside `describe`. */
export function useHiveFixture(overrides: Partial<HiveCatalogConfig> = {}): () => HiveFixture {
  let f: HiveFixture | undefined;
  before(async () => {
    f = await hiveFixture(overrides);
    await f.run('CREATE SCHEMA lake.s');
  });
  after(() => f?.close());
  return () => f!;
}
