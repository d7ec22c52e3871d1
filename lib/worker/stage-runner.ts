// What a worker runs for a stage task (planner/aggregate-stages.ts). A leaf scans its splits of a table, read as
// the table's connector reads them, and writes its partial rows as one Parquet file (DuckDB's COPY: no row passes through JavaScript); a root
// reads the leaves' files and finishes the query, its pages rendered as any query's. Both derive their
// SQL from the user's statement here, after planning that statement as a user's (the SQL gate, catalog
// access and the statement's own errors hold as for any task); the coordinator only names splits.
import type { Engine, Execution, ExecutionProgress, Plan, PlanAbort, RowBatch } from '../engine/engine.types.js';
import { quoteString } from '../sql/sql-formatter.js';
import type { Session } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { cachedStages, type StagePlan } from '../planner/aggregate-stages.js';
import { inputSourceSql, leafDuckDbSql, rootDuckDbSql } from '../cluster/stage-sql.js';
import type { Connectors } from '../connectors/connectors.js';
import type { Split } from '../connectors/connector.types.js';
import type { ParquetFooter } from '../connectors/hive/hive-splits.js';

/** An engine that also plans the project's own DuckDB SQL (DuckDbEngine.planOwnSql). */
export interface StageEngine extends Engine {
  planOwnSql: Engine['plan'];
  /** A Parquet file's row groups and columns (DuckDbEngine.parquetFooter): lake splits need it. */
  parquetFooter?(path: string): Promise<ParquetFooter>;
  /** Whether `user` reads `table` through a column mask or row filter (DuckDbEngine.readsGuarded). */
  readsGuarded(user: string, table: { catalog: string; schema: string; table: string }): boolean;
}

/** Most slices a part may be cut into (a request naming more is refused). */
export const MAX_SLICES = 1024;

const bad = (message: string) => new VivaceError('INVALID_ARGUMENTS', message, { httpStatus: 400 });

/**
 * Plans the user's statement as any task would (its errors are the user's), then its stages. Planning it
 * also generates the tpch schema into this worker's own cache when the cache lacks it (a worker on another
 * machine): the generator's parts are the same files everywhere, so the splits the coordinator named exist.
 */
async function stagesOf(engine: StageEngine, sql: string, session: Session, abort: PlanAbort | undefined, connectors: Connectors): Promise<{ stages: StagePlan; user: Plan }> {
  const user = await engine.plan(sql, session, abort);
  const stages = cachedStages(sql, session, connectors.splittable);
  if (!stages) {
    user.release();
    throw bad('The statement does not split into a leaf and a root stage');
  }
  // A stage reads the table's files as they are: a user with a mask or row filter on it never gets here
  // from the coordinator (it runs such a query as one task), and a request that asks anyway is refused.
  if (engine.readsGuarded(session.user, stages.table)) {
    user.release();
    throw new VivaceError('PERMISSION_DENIED', `Access Denied: ${stages.table.catalog}.${stages.table.schema}.${stages.table.table} has a column mask or row filter for this user: it is not read in stages`);
  }
  return { stages, user };
}

/** DuckDB's type of each Presto integer type. */
const INTEGRAL: Record<string, string> = { bigint: 'BIGINT', integer: 'INTEGER', smallint: 'SMALLINT', tinyint: 'TINYINT' };

function checkSlice(split: Split): void {
  if (!Number.isSafeInteger(split.slices) || split.slices < 1 || split.slices > MAX_SLICES) throw bad(`A split's slices must be 1 to ${MAX_SLICES}`);
  if (!Number.isSafeInteger(split.slice) || split.slice < 0 || split.slice >= split.slices) throw bad('A split\'s slice must be 0 to slices - 1');
}

/**
 * The leaf's plan: executing it writes the partial rows of `splits` to `outputFile` (Parquet) and ends
 * without rows; its update count is the number of partial rows written (the rows the exchange carries),
 * its progress the rows and bytes its COPY's scans read of its splits (the engine's profile, as for any
 * statement: a slice's rows only, and without the rows a filter pushed into the scan dropped).
 */
export async function planLeaf(engine: StageEngine, sql: string, session: Session, splits: readonly Split[], connectors: Connectors, outputFile: string, abort?: PlanAbort): Promise<Plan> {
  const { stages, user } = await stagesOf(engine, sql, session, abort, connectors);
  // The statement's columns travel with the leaf's plan: the coordinator needs no other plan for them.
  const columns = user.columns;
  user.release();
  if (splits.length === 0) throw bad('A leaf task needs at least one split');
  for (const split of splits) checkSlice(split);
  const connector = connectors.of(stages.table.catalog);
  if (!connector?.splitSourceSql) throw bad(`Catalog ${stages.table.catalog} has no splits to read here`);
  const footerOf = engine.parquetFooter?.bind(engine);
  const source = await connector.splitSourceSql(stages.table, splits, footerOf ? { parquetFooter: footerOf } : {});
  const copy = `COPY (${leafDuckDbSql(stages, session, source)}) TO ${quoteString(outputFile)} (FORMAT parquet)`;
  const own = await engine.planOwnSql(copy, session, abort);
  return { columns, execute: () => new LeafExecution(own), release: () => own.release() };
}

/** Runs the leaf's COPY to its end: no rows, its update count the rows written. */
class LeafExecution implements Execution {
  exhausted?: boolean;
  private readonly running: Execution;

  constructor(copy: Plan) {
    this.running = copy.execute();
  }

  get updateCount(): number | undefined {
    return this.exhausted ? Number(this.running.updateCount ?? 0) : undefined;
  }

  async next(targetBytes: number): Promise<RowBatch | null> {
    if (this.exhausted) return null;
    while (await this.running.next(targetBytes)) { /* COPY's one row: the rows written (its updateCount) */ }
    this.exhausted = true;
    return null;
  }

  cancel(): void {
    this.running.cancel();
  }

  progress(): ExecutionProgress {
    // What the COPY read, once it has run; no output rows (the partial rows go to the file).
    const { processedRows, processedBytes, cpuTimeMillis } = this.running.progress();
    return { processedRows, processedBytes, outputRows: 0, outputBytes: 0, cpuTimeMillis };
  }
}

/** The root's plan over the leaves' Parquet files: the user's statement's columns, the combined rows. */
export async function planRoot(engine: StageEngine, sql: string, session: Session, inputFiles: readonly string[], connectors: Connectors, abort?: PlanAbort): Promise<Plan> {
  const { stages, user } = await stagesOf(engine, sql, session, abort, connectors);
  const columns = user.columns;
  user.release();
  if (inputFiles.length === 0) throw bad('A root task needs at least one input');
  const rootSql = rootDuckDbSql(stages, session, inputSourceSql(inputFiles));
  let own = await engine.planOwnSql(rootSql, session, abort);
  if (own.columns.length !== columns.length) {
    own.release();
    throw new VivaceError('GENERIC_INTERNAL_ERROR', `The root stage has ${own.columns.length} columns, the statement ${columns.length}`);
  }
  // A sum of integers is DuckDB's HUGEINT, which Parquet holds as DOUBLE on the way from leaf to root: the
  // root's sum is then a double where the statement's is bigint (rendered 904052224.0). Back to the type.
  const integral = columns.map((c, i) => INTEGRAL[c.type.base] !== undefined && own.columns[i]!.type.base !== c.type.base);
  if (integral.some(Boolean)) {
    own.release();
    const items = columns.map((c, i) => (integral[i] ? `CAST(round(#${i + 1}) AS ${INTEGRAL[c.type.base]})` : `#${i + 1}`));
    own = await engine.planOwnSql(`SELECT ${items.join(', ')} FROM (${rootSql})`, session, abort);
  }
  const root = own;
  return { columns, execute: () => root.execute(), release: () => root.release() };
}
