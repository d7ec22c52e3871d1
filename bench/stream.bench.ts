// Figure c: a wide result (16 columns of mixed types) streamed to a plain client following nextUri,
// beside the same rows rendered to JSON in this process by the engine itself (its own renderer,
// Engine.plan(...).execute().next(1 MB) until null): the cost of the protocol and HTTP on top.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig } from '../lib/config.js';
import { createDuckDbEngine } from '../lib/engine/duckdb-engine.js';
import type { Session } from '../lib/protocol/types.js';
import { PrestoHttpClient, type PageMode } from './http-client.js';

/**
 * Deterministic rows: 16 columns of bigint, integer, smallint, tinyint, double, real, decimal, varchar, date,
 * timestamp, boolean and NULLs. In Presto SQL (the engine refuses DuckDB's range()): i counts through a
 * cross join of two sequences (Presto's sequence holds at most 10,000 entries), up to 10 million rows.
 */
export function wideResultSql(rows: number): string {
  const thousands = Math.max(1, Math.ceil(rows / 1000));
  return `SELECT
  i AS id,
  CAST(i % 1000003 AS INTEGER) AS k_int,
  CAST(i % 30000 AS SMALLINT) AS k_small,
  CAST(i % 100 AS TINYINT) AS k_tiny,
  CAST(i AS DOUBLE) * 1.25 AS x_double,
  CAST(i % 4096 AS REAL) AS x_real,
  CAST(i % 10000000 AS DECIMAL(12, 2)) AS price,
  CAST(i AS DECIMAL(20, 4)) AS amount,
  'customer#' || CAST(i AS VARCHAR) AS name,
  CASE i % 3 WHEN 0 THEN 'AIR' WHEN 1 THEN 'RAIL' ELSE 'SHIP' END AS mode,
  date_add('day', i % 2500, DATE '1992-01-01') AS ship_date,
  date_add('second', i % 31536000, TIMESTAMP '2020-01-01 00:00:00') AS event_time,
  i % 2 = 0 AS is_even,
  CASE WHEN i % 10 = 0 THEN NULL ELSE i * 7 END AS maybe_big,
  CAST(i % 7 AS INTEGER) + 1 AS day_of_week,
  i * 3 + 1 AS other_big
FROM (SELECT a * 1000 + b AS i FROM UNNEST(sequence(0, ${thousands - 1})) AS x(a) CROSS JOIN UNNEST(sequence(0, 999)) AS y(b)) AS t
WHERE i < ${rows}`;
}

export interface StreamFigures {
  rows: number;
  bytes: number;
  seconds: number;
  pages?: number;
}

/** A session as parseSession would build it for `X-Presto-User: bench`. */
export const benchSession = (): Session => ({
  prefix: 'X-Presto-',
  user: 'bench',
  clientTags: [],
  properties: {},
  preparedStatements: {},
  remoteUserAddress: '127.0.0.1',
  startTime: Date.now(),
});

/** The engine alone, in this process: plan, execute, next(targetResultBytes) until null. */
export async function renderInProcess(sql: string): Promise<StreamFigures> {
  const config = defaultConfig();
  const tempDirectory = mkdtempSync(join(tmpdir(), 'vivace-bench-engine-'));
  const engine = await createDuckDbEngine({
    tempDirectory,
    memoryLimit: config.engineMemoryLimit,
    threads: config.engineThreads,
    maxConnections: 2,
  });
  try {
    const start = performance.now();
    const execution = (await engine.plan(sql, benchSession())).execute();
    let rows = 0;
    let bytes = 0;
    let pages = 0;
    for (let batch = await execution.next(config.targetResultBytes); batch; batch = await execution.next(config.targetResultBytes)) {
      rows += batch.rows;
      bytes += batch.bytes;
      pages++;
    }
    return { rows, bytes, pages, seconds: (performance.now() - start) / 1000 };
  } finally {
    await engine.close();
    rmSync(tempDirectory, { recursive: true, force: true });
  }
}

/** The whole protocol over HTTP: POST, GET nextUri until none. */
export async function streamOverHttp(url: string, sql: string, mode: PageMode): Promise<StreamFigures> {
  const client = new PrestoHttpClient(url, 1);
  try {
    const start = performance.now();
    const outcome = await client.query(sql, mode);
    return { rows: outcome.rows, bytes: outcome.bytes, pages: outcome.requests, seconds: (performance.now() - start) / 1000 };
  } finally {
    client.close();
  }
}
