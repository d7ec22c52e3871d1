// What a worker runs for a stage task (stage-planner.ts). A leaf scans its splits of a tpch table and
// writes its partial rows as one Parquet file (DuckDB's COPY: no row passes through JavaScript); a root
// reads the leaves' files and finishes the query, its pages rendered as any query's. Both derive their
// SQL from the user's statement here, after planning that statement as a user's (the SQL gate, catalog
// access and the statement's own errors hold as for any task); the coordinator only names splits.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Engine, Execution, ExecutionProgress, Plan, PlanAbort, RowBatch } from '../engine/engine.types.js';
import { tpchSchema } from '../engine/catalogs/tpch-schemas.js';
import { quoteString } from '../sql/sql-formatter.js';
import type { Session } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { cachedStages, type StagePlan } from '../cluster/stage-planner.js';
import { manifestOf } from '../cluster/staged-query.js';
import { inputSourceSql, leafDuckDbSql, rootDuckDbSql, splitSourceSql, type Split } from '../cluster/stage-sql.js';
import { executionRows } from '../engine/row-batch.js';

/** An engine that also plans the project's own DuckDB SQL (DuckDbEngine.planOwnSql). */
export interface StageEngine extends Engine {
  planOwnSql: Engine['plan'];
}

/** Most slices a part may be cut into (a request naming more is refused). */
export const MAX_SLICES = 1024;

const bad = (message: string) => new VivaceError('INVALID_ARGUMENTS', message, { httpStatus: 400 });

/**
 * Plans the user's statement as any task would (its errors are the user's), then its stages. Planning it
 * also generates the tpch schema into this worker's own cache when the cache lacks it (a worker on another
 * machine): the generator's parts are the same files everywhere, so the splits the coordinator named exist.
 */
async function stagesOf(engine: Engine, sql: string, session: Session, abort?: PlanAbort): Promise<{ stages: StagePlan; user: Plan }> {
  const user = await engine.plan(sql, session, abort);
  const stages = cachedStages(sql, session);
  if (!stages) {
    user.release();
    throw bad('The statement does not split into a leaf and a root stage');
  }
  return { stages, user };
}

/** Absolute paths of `splits` of the stage's table, each checked against the table's manifest. */
function splitPaths(stages: StagePlan, splits: readonly Split[], tpchDirectory: string): (file: string) => string {
  const schema = tpchSchema(stages.table.schema);
  const schemaDirectory = schema && join(tpchDirectory, schema.directory);
  const manifest = schemaDirectory === undefined ? undefined : manifestOf(schemaDirectory);
  const files = new Set(manifest?.tables[stages.table.table]?.files ?? []);
  if (splits.length === 0) throw bad('A leaf task needs at least one split');
  for (const split of splits) {
    if (!files.has(split.file)) throw bad(`Split ${JSON.stringify(split.file.slice(0, 200))} is no part of tpch.${stages.table.schema}.${stages.table.table} here`);
    if (!Number.isSafeInteger(split.slices) || split.slices < 1 || split.slices > MAX_SLICES) throw bad(`A split's slices must be 1 to ${MAX_SLICES}`);
    if (!Number.isSafeInteger(split.slice) || split.slice < 0 || split.slice >= split.slices) throw bad('A split\'s slice must be 0 to slices - 1');
  }
  return (file) => join(schemaDirectory!, file);
}

/**
 * The leaf's plan: executing it writes the partial rows of `splits` to `outputFile` (Parquet) and ends
 * without rows; its update count is the number of partial rows written (the rows the exchange carries),
 * its progress the rows and bytes of its splits.
 */
export async function planLeaf(engine: StageEngine, sql: string, session: Session, splits: readonly Split[], tpchDirectory: string, outputFile: string, abort?: PlanAbort): Promise<Plan> {
  const { stages, user } = await stagesOf(engine, sql, session, abort);
  // The statement's columns travel with the leaf's plan: the coordinator needs no other plan for them.
  const columns = user.columns;
  user.release();
  const pathOf = splitPaths(stages, splits, tpchDirectory);
  const source = splitSourceSql(splits, pathOf);
  const copy = `COPY (${leafDuckDbSql(stages, session, source)}) TO ${quoteString(outputFile)} (FORMAT parquet)`;
  const own = await engine.planOwnSql(copy, session, abort);
  return { columns, execute: () => new LeafExecution(engine, own, session, splits.map((s) => ({ ...s, path: pathOf(s.file) }))), release: () => own.release() };
}

/** The rows of the project's own small query (counts over Parquet metadata), as JSON values. */
async function ownRows(engine: StageEngine, sql: string, session: Session): Promise<unknown[][]> {
  return executionRows((await engine.planOwnSql(sql, session)).execute(), 1 << 16);
}

/** Runs the leaf's COPY to its end, then reads what it wrote and read from the files' metadata. */
class LeafExecution implements Execution {
  updateCount?: number;
  exhausted?: boolean;
  private stats: ExecutionProgress = { processedRows: 0, processedBytes: 0, cpuTimeMillis: 0 };
  private readonly started = Date.now();
  private readonly running: Execution;

  constructor(
    private readonly engine: StageEngine,
    copy: Plan,
    private readonly session: Session,
    private readonly splits: readonly (Split & { path: string })[],
  ) {
    this.running = copy.execute();
  }

  async next(targetBytes: number): Promise<RowBatch | null> {
    if (this.exhausted) return null;
    while (await this.running.next(targetBytes)) { /* COPY's one row: the rows written (its updateCount) */ }
    // What was written: DuckDB's COPY answers its count of rows (the engine's count row, read above).
    const written = this.running.updateCount;
    // What was read: each split file's rows, from the footers of parts not known already (a part is
    // written once; its rows are kept by path, size and time).
    const paths = [...new Set(this.splits.map((s) => s.path))];
    const known = new Map(paths.map((path) => [path, partRows.get(path)] as const));
    const unknown = paths.filter((path) => known.get(path) === undefined);
    const rowsOf = new Map<string, number>();
    if (unknown.length > 0) {
      // A plan of parquet_file_metadata run a second time fails inside DuckDB 1.5 ("dereference
      // unique_ptr that is NULL", then the database is invalidated): each such query's text is new.
      const counts = await ownRows(this.engine, `SELECT file_name, num_rows, ${metadataQueries++} FROM parquet_file_metadata([${unknown.map(quoteString).join(', ')}])`, this.session);
      for (const [file, n] of counts) rowsOf.set(String(file), (rowsOf.get(String(file)) ?? 0) + Number(n));
      for (const path of unknown) partRows.remember(path, rowsOf.get(path) ?? 0);
    }
    this.updateCount = Number(written ?? 0);
    let rows = 0;
    let bytes = 0;
    for (const split of this.splits) {
      const part = known.get(split.path) ?? partRows.get(split.path) ?? { rows: rowsOf.get(split.path) ?? 0, bytes: 0 };
      // file_row_number % slices = slice holds every slices-th row from row `slice` on.
      const mine = Math.max(0, Math.floor((part.rows - split.slice + split.slices - 1) / split.slices));
      rows += mine;
      bytes += part.rows === 0 ? 0 : Math.round((part.bytes * mine) / part.rows);
    }
    this.stats = { processedRows: rows, processedBytes: bytes, cpuTimeMillis: Date.now() - this.started };
    this.exhausted = true;
    return null;
  }

  cancel(): void {
    this.running.cancel();
  }

  progress(): ExecutionProgress {
    return this.stats;
  }
}

/** Rows and bytes of the tpch parts leaves read, by path; an entry holds while the file's size and time do. */
class PartRows {
  private readonly entries = new Map<string, { rows: number; bytes: number; mtimeMs: number }>();

  get(path: string): { rows: number; bytes: number } | undefined {
    const entry = this.entries.get(path);
    if (!entry) return undefined;
    const now = statOf(path);
    return now && now.size === entry.bytes && now.mtimeMs === entry.mtimeMs ? entry : undefined;
  }

  remember(path: string, rows: number): void {
    const now = statOf(path);
    if (!now) return;
    // Bounded: the parts of a few scale factors' tables, never every file ever named.
    if (this.entries.size >= MAX_KNOWN_PARTS) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(path, { rows, bytes: now.size, mtimeMs: now.mtimeMs });
  }
}

const MAX_KNOWN_PARTS = 4096;
let metadataQueries = 0;
const partRows = new PartRows();

function statOf(path: string): { size: number; mtimeMs: number } | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** The root's plan over the leaves' Parquet files: the user's statement's columns, the combined rows. */
export async function planRoot(engine: StageEngine, sql: string, session: Session, inputFiles: readonly string[], abort?: PlanAbort): Promise<Plan> {
  const { stages, user } = await stagesOf(engine, sql, session, abort);
  const columns = user.columns;
  user.release();
  if (inputFiles.length === 0) throw bad('A root task needs at least one input');
  const own = await engine.planOwnSql(rootDuckDbSql(stages, session, inputSourceSql(inputFiles)), session, abort);
  if (own.columns.length !== columns.length) {
    own.release();
    throw new VivaceError('GENERIC_INTERNAL_ERROR', `The root stage has ${own.columns.length} columns, the statement ${columns.length}`);
  }
  return { columns, execute: () => own.execute(), release: () => own.release() };
}
