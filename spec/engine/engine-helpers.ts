// Shared setup for engine specs: one DuckDB engine per spec file and a helper that drains a statement.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import type { Engine, Plan } from '../../lib/engine/engine.types.js';
import type { Session } from '../../lib/protocol/types.js';
import { batchText, executionRows } from '../../lib/engine/row-batch.js';

/** A session on memory.default, as most clients set one; a spec of sessions without them overrides both. */
export function testSession(overrides: Partial<Session> = {}): Session {
  return {
    prefix: 'X-Trino-', user: 'test', catalog: 'memory', schema: 'default', clientTags: [], properties: {}, preparedStatements: {},
    remoteUserAddress: '127.0.0.1', startTime: 0, ...overrides,
  };
}

/**
 * A fresh engine in its own temp directory, removed again when the engine closes. `ownSql`: plan in
 * DuckDB's dialect past the SQL gate (for specs of the row encoding of DuckDB types Presto SQL cannot
 * spell); otherwise statements go through the gate as a user's do.
 */
export async function newEngine(maxConnections = 4, { ownSql = false } = {}): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), 'vivace-engine-spec-'));
  const engine = await createDuckDbEngine({ tempDirectory: dir, threads: 2, maxConnections });
  return {
    plan: ownSql ? (sql, session) => engine.planOwnSql(sql, session) : (sql, session) => engine.plan(sql, session),
    async close() {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Outcome {
  plan: Plan;
  /** Rows as the JSON text of one array: `[[1,"a"],[2,"b"]]` */
  json: string;
  rows: unknown[][];
  updateCount?: number;
}

export async function runSql(engine: Engine, sql: string, session = testSession(), targetBytes = 1 << 20): Promise<Outcome> {
  const plan = await engine.plan(sql, session);
  const execution = plan.execute();
  const parts: string[] = [];
  for (;;) {
    const batch = await execution.next(targetBytes);
    if (!batch) break;
    parts.push(batchText(batch));
  }
  const json = `[${parts.join(',')}]`;
  return { plan, json, rows: JSON.parse(json) as unknown[][], updateCount: execution.updateCount };
}

/** The single row of `sql` as JSON text without brackets: `1,"a"`. */
export async function rowText(engine: Engine, sql: string, session?: Session): Promise<string> {
  const { json } = await runSql(engine, sql, session);
  return json.slice(2, -2);
}

/** Executes a plan to its end: its rows, and its update count when it has one. */
export async function drainPlan(plan: Plan): Promise<{ rows: unknown[][]; updateCount?: number }> {
  const execution = plan.execute();
  const rows = await executionRows(execution);
  return { rows, ...(execution.updateCount === undefined ? {} : { updateCount: execution.updateCount }) };
}
