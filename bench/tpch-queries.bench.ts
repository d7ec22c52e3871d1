// The 22 TPC-H queries at sf1 through the engine (tpch catalog, generated cold into a fresh directory),
// each beside plain DuckDB's time on the same Parquet files in the same run, and checked against the
// official answers at sf1 (rounded to 2 places). Prints a table, the cold generation time and the
// cached reopen time. Run alone: node --import tsx bench/tpch-queries.bench.ts
//   TPCH_BENCH_DIR=DIR  reuse (and keep) a data directory instead of a fresh temporary one
//   TPCH_BENCH_RUNS=N   runs per query, best time reported (default 1)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { createDuckDbEngine } from '../lib/engine/duckdb-engine.js';
import type { Engine } from '../lib/engine/engine.types.js';
import { readManifest } from '../lib/connectors/tpch/tpch-generation.js';
import type { Session } from '../lib/protocol/types.js';
import { TPCH_QUERIES } from '../lib/tpch/queries/tpch-queries.js';
import { TPCH_ANSWERS_SF1, type TpchAnswer } from './tpch-answers-sf1.js';
import { executionRows } from '../lib/engine/row-batch.js';

export interface TpchQueryFigure {
  query: number;
  vivaceMs?: number;
  duckdbMs?: number;
  rows?: number;
  /** 'ok', or what differs from the official answer, or the error */
  answer: string;
}

export interface TpchQueriesFigures {
  /** false when the data directory already held the schema (generationSeconds is then a cached open) */
  cold: boolean;
  generationSeconds: number;
  reopenSeconds: number;
  queries: TpchQueryFigure[];
  q1FirstRow?: string;
}

const SCHEMA = 'sf1';
const THREADS = 2;
export const sessionOn = (schema: string): Session => ({
  prefix: 'X-Trino-', user: 'bench', clientTags: [], properties: {}, preparedStatements: {},
  remoteUserAddress: '127.0.0.1', startTime: 0, catalog: 'tpch', schema,
});
const session = sessionOn(SCHEMA);

/** `sql` on the engine with the session on tpch.`schema`, its rows as the protocol's JSON values. */
export async function runOnEngine(engine: Engine, sql: string, schema = SCHEMA): Promise<unknown[][]> {
  const plan = await engine.plan(sql, schema === SCHEMA ? session : sessionOn(schema));
  return executionRows(plan.execute());
}

/** Plain DuckDB (THREADS threads) with a view per table of tpch.`schema`'s Parquet parts under `dataDirectory`. */
export async function plainDuckDb(dataDirectory: string, schema = SCHEMA): Promise<DuckDBConnection> {
  const manifest = readManifest(join(dataDirectory, 'tpch', schema));
  if (!manifest) throw new Error(`no tpch.${schema} under ${dataDirectory}`);
  const instance = await DuckDBInstance.create(':memory:', { threads: String(THREADS), autoinstall_known_extensions: 'false', autoload_known_extensions: 'false' });
  const connection = await instance.connect();
  for (const [table, { files }] of Object.entries(manifest.tables)) {
    const list = files.map((f) => `'${join(dataDirectory, 'tpch', schema, f)}'`).join(', ');
    await connection.run(`CREATE VIEW ${table} AS SELECT * FROM read_parquet([${list}])`);
  }
  return connection;
}

function sameValue(actual: unknown, expected: string, prefix: boolean): boolean {
  const text = typeof actual === 'number' ? String(actual) : String(actual ?? 'NULL').trim();
  if (prefix) return text.startsWith(expected);
  if (/^-?\d+\.\d+$/.test(expected)) return typeof actual === 'number' && Math.abs(actual - Number(expected)) <= 0.01;
  return text === expected.trim();
}

/** 'ok' or the first difference from the official answer. */
export function checkAnswer(rows: unknown[][], answer: TpchAnswer): string {
  if (answer.erratum) {
    const corrected = { ...answer, first: answer.first.replace(answer.erratum.official, answer.erratum.computed), erratum: undefined };
    const result = checkAnswer(rows, corrected);
    return result === 'ok' ? `ok (answer file's erratum: ${answer.erratum.official} for ${answer.erratum.computed})` : result;
  }
  if (rows.length !== answer.rowCount) return `${rows.length} rows, expected ${answer.rowCount}`;
  const expected = answer.first.split('\n').map((line, i) => [i, line] as const);
  if (answer.last) expected.push([rows.length - 1, answer.last]);
  for (const [i, line] of expected) {
    const values = line.split('|');
    const row = rows[i]!;
    if (row.length !== values.length) return `row ${i + 1}: ${row.length} columns, expected ${values.length}`;
    const column = values.findIndex((v, j) => !sameValue(row[j], v, answer.prefixColumns?.includes(j) ?? false));
    if (column >= 0) return `row ${i + 1} column ${column + 1}: ${JSON.stringify(row[column])}, expected ${values[column]}`;
  }
  return 'ok';
}

export const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const start = performance.now();
  const result = await work();
  return [result, performance.now() - start];
};

export async function runTpchQueriesBench(log: (line: string) => void = (line) => process.stdout.write(`${line}\n`)): Promise<TpchQueriesFigures> {
  const keep = process.env.TPCH_BENCH_DIR;
  const runs = Math.max(1, Number(process.env.TPCH_BENCH_RUNS ?? 1));
  const dataDirectory = keep ?? mkdtempSync(join(tmpdir(), 'vivace-tpch-bench-'));
  const open = () => createDuckDbEngine({ tempDirectory: join(dataDirectory, 'spill'), dataDirectory, threads: THREADS, maxConnections: 2, tpch: { log } });
  try {
    const cold = readManifest(join(dataDirectory, 'tpch', SCHEMA)) === undefined;
    log(`TPC-H queries at tpch.${SCHEMA}: data directory ${dataDirectory}${cold ? '' : ' (already generated: no cold figure)'}`);
    let engine = await open();
    const [, generationMs] = await timed(() => runOnEngine(engine, `SELECT count(*) FROM tpch.${SCHEMA}.region`));
    await engine.close();
    const [reopened, reopenMs] = await timed(async () => {
      const e = await open();
      await runOnEngine(e, `SELECT count(*) FROM tpch.${SCHEMA}.region`);
      return e;
    });
    engine = reopened;
    const plain = await plainDuckDb(dataDirectory);
    const figures: TpchQueriesFigures = { cold, generationSeconds: generationMs / 1000, reopenSeconds: reopenMs / 1000, queries: [] };
    for (const query of TPCH_QUERIES) {
      const figure: TpchQueryFigure = { query: query.number, answer: '' };
      try {
        let rows: unknown[][] = [];
        for (let run = 0; run < runs; run++) {
          const [result, ms] = await timed(() => runOnEngine(engine, query.sql));
          rows = result;
          figure.vivaceMs = Math.min(figure.vivaceMs ?? Infinity, ms);
        }
        figure.rows = rows.length;
        figure.answer = checkAnswer(rows, TPCH_ANSWERS_SF1[query.number]!);
        // Q1's sums and averages are doubles (printed with 2 places), count_order a bigint.
        if (query.number === 1) figures.q1FirstRow = rows[0]!.map((v, j) => (j >= 2 && j <= 8 ? Number(v).toFixed(2) : String(v))).join(' ');
      } catch (err) {
        figure.answer = `error: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`;
      }
      try {
        for (let run = 0; run < runs; run++) {
          const [, ms] = await timed(() => plain.runAndReadAll(query.sql));
          figure.duckdbMs = Math.min(figure.duckdbMs ?? Infinity, ms);
        }
      } catch (err) {
        figure.answer += ` (duckdb error: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]})`;
      }
      figures.queries.push(figure);
    }
    plain.closeSync();
    await engine.close();
    printTable(figures, log);
    return figures;
  } finally {
    if (keep === undefined) rmSync(dataDirectory, { recursive: true, force: true });
  }
}

function printTable(figures: TpchQueriesFigures, log: (line: string) => void): void {
  const ms = (n?: number) => (n === undefined ? '-' : n.toFixed(0));
  log(`sf1 generation through the catalog (${figures.cold ? 'cold' : 'NOT cold: cached'}, first query included): ${figures.generationSeconds.toFixed(1)} s`);
  log(`cached reopen (engine start + first sf1 query): ${figures.reopenSeconds.toFixed(2)} s`);
  log(`${'query'.padEnd(6)} ${'vivace ms'.padStart(10)} ${'duckdb ms'.padStart(10)} ${'ratio'.padStart(6)} ${'rows'.padStart(6)}  answer`);
  for (const f of figures.queries) {
    const ratio = f.vivaceMs !== undefined && f.duckdbMs ? (f.vivaceMs / f.duckdbMs).toFixed(2) : '-';
    log(`${`Q${f.query}`.padEnd(6)} ${ms(f.vivaceMs).padStart(10)} ${ms(f.duckdbMs).padStart(10)} ${ratio.padStart(6)} ${String(f.rows ?? '-').padStart(6)}  ${f.answer}`);
  }
  const total = (pick: (f: TpchQueryFigure) => number | undefined) => figures.queries.reduce((s, f) => s + (pick(f) ?? 0), 0);
  log(`${'total'.padEnd(6)} ${ms(total((f) => f.vivaceMs)).padStart(10)} ${ms(total((f) => f.duckdbMs)).padStart(10)}`);
  log(`answers matching the official sf1 answers: ${figures.queries.filter((f) => f.answer.startsWith('ok')).length}/22`);
  if (figures.q1FirstRow) log(`Q1 first row: ${figures.q1FirstRow}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runTpchQueriesBench().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
