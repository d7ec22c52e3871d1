// Figure c: a wide result (tpch.sf1.lineitem: 16 columns of mixed types) streamed to a plain client following nextUri,
// beside the same rows rendered to JSON in this process by the engine itself (its own renderer,
// Engine.plan(...).execute().next(1 MB) until null): the cost of the protocol and HTTP on top.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig } from '../lib/config.js';
import { createDuckDbEngine } from '../lib/engine/duckdb-engine.js';
import type { Session } from '../lib/protocol/types.js';
import { PrestoHttpClient, type PageMode } from './http-client.js';

/** Rows of tpch.sf1.lineitem: the whole table is what issue 10 §5 asks to stream. */
export const LINEITEM_SF1_ROWS = 6_001_215;

/**
 * The real tpch.sf1.lineitem (16 columns: bigint, integer, decimal, varchar, date), read from the tpch
 * data of the user's cache directory (generated once, about 12 s): the whole table, or its first `rows`
 * rows for a quick run.
 */
export function wideResultSql(rows: number): string {
  return rows >= LINEITEM_SF1_ROWS ? 'SELECT * FROM tpch.sf1.lineitem' : `SELECT * FROM tpch.sf1.lineitem LIMIT ${rows}`;
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
    // The tpch data of the user's cache, which the server child reads too.
    dataDirectory: config.dataDirectory,
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
