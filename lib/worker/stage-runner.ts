// What a worker runs for a fragment task (distributed-plan.ts, task-protocol.ts). A fragment reads its
// splits of a table, read as the table's connector reads them, and its inputs' Parquet files pulled from
// the producers; every fragment but the root writes its output as Parquet (DuckDB's COPY: no row passes
// through JavaScript), one file or one per consumer bucket; the root finishes the query, its pages
// rendered as any query's. Each derives its SQL from the user's statement here, after planning that
// statement as a user's (the SQL gate, catalog access and the statement's own errors hold as for any
// task); the coordinator only names splits, producers and buckets.
import type { Engine, Execution, ExecutionProgress, Plan, PlanAbort, RowBatch } from '../engine/engine.types.js';
import { existsSync, readdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { quoteIdentifier, quoteString } from '../sql/sql-formatter.js';
import type { Session } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { distributedPlanOf } from '../cluster/distributed-plan.js';
import { fragmentDuckDbSql, inputSourceSql, type VirtualSource } from '../cluster/stage-sql.js';
import { MAX_BUCKETS, type FragmentOutput } from '../cluster/task-protocol.js';
import type { DistributedPlan, PlanChoices, PlanFragment } from '../planner/fragment.types.js';
import type { Connectors } from '../connectors/connectors.js';
import type { Split } from '../connectors/connector.types.js';
import type { ParquetFooter } from '../connectors/hive/hive-splits.js';
import { stageTrace } from '../cluster/stage-trace.js';
import { BUCKET_COLUMN, bucketedRowsSql } from './bucket-rows.js';
import { scheduledFragment } from '../cluster/inline-fragments.js';

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
 * Plans the user's statement as any task would (its errors are the user's), then derives its distributed
 * plan as the coordinator did (distributed-plan.ts, with the coordinator's choices). Planning it also
 * generates the tpch schema into this worker's own cache when the cache lacks it (a worker on another
 * machine): the generator's parts are the same files everywhere, so the splits the coordinator named exist.
 * A query's tasks on this worker (a leaf, its join stage, the root) share one derivation (planCache): at
 * tiny scale deriving took a fifth of a worker's CPU, one plan per task.
 */
async function fragmentsOf(engine: StageEngine, sql: string, session: Session, task: Pick<FragmentTask, 'queryId' | 'choices'>, abort: PlanAbort | undefined, connectors: Connectors, derive: DerivePlan): Promise<{ plan: DistributedPlan; columns: Plan['columns'] }> {
  const key = task.queryId === undefined ? undefined : planKey(task.queryId, sql, session, task.choices, connectors, derive);
  if (key === undefined) return deriveFragments(engine, sql, session, task, abort, connectors, derive);
  let kept = planCache.get(key);
  if (kept) {
    // Most recently used last: the oldest goes first when the cache is full.
    planCache.delete(key);
    planCache.set(key, kept);
  } else {
    // Kept while it is derived too: the query's tasks posted here at once (Q9's four leaves at sf1) wait
    // for one derivation instead of each planning the statement and deriving its plan again. It is no
    // task's to stop (a task ended early leaves it to the others); a failure is not kept.
    const deriving = deriveFragments(engine, sql, session, task, undefined, connectors, derive);
    kept = deriving;
    planCache.set(key, deriving);
    if (planCache.size > PLAN_CACHE_SIZE) planCache.delete(planCache.keys().next().value!);
    deriving.catch(() => {
      if (planCache.get(key) === deriving) planCache.delete(key);
    });
  }
  const derived = await kept;
  if (abort?.aborted) throw abort.reason;
  return derived;
}

/** The statement planned as a user's and its distributed plan derived, its tables checked (fragmentsOf). */
async function deriveFragments(engine: StageEngine, sql: string, session: Session, task: Pick<FragmentTask, 'queryId' | 'choices'>, abort: PlanAbort | undefined, connectors: Connectors, derive: DerivePlan): Promise<{ plan: DistributedPlan; columns: Plan['columns'] }> {
  const columns = await userColumns(engine, sql, session, task, abort);
  const plan = derive(sql, session, connectors, task.choices);
  if (!plan) throw bad('The statement does not split into fragments');
  // A fragment reads the tables' files as they are: a user with a mask or row filter on one never gets
  // here from the coordinator (it runs such a query as one task), and a request that asks anyway is refused.
  for (const table of plan.tables) {
    if (engine.readsGuarded(session.user, table)) {
      throw new VivaceError('PERMISSION_DENIED', `Access Denied: ${table.catalog}.${table.schema}.${table.table} has a column mask or row filter for this user: it is not read in stages`);
    }
  }
  return { plan, columns };
}

/**
 * The user's statement planned as a user's: its columns. A plan reading a catalog one worker holds
 * (choices.held: memory) has tasks on other workers too, which find none of its tables: there the
 * statement's tables are not found and its columns are none (the coordinator takes the statement's
 * columns, and its access checks, from the tasks on the holder, which plans it whole: its pinned
 * fragment and its root).
 */
async function userColumns(engine: StageEngine, sql: string, session: Session, task: Pick<FragmentTask, 'choices'>, abort: PlanAbort | undefined): Promise<Plan['columns']> {
  try {
    const user = await engine.plan(sql, session, abort);
    const columns = user.columns;
    user.release();
    return columns;
  } catch (err) {
    const elsewhere = err instanceof VivaceError && (err.errorName === 'TABLE_NOT_FOUND' || err.errorName === 'SCHEMA_NOT_FOUND');
    if (elsewhere && (task.choices?.held?.length ?? 0) > 0) return [];
    throw err;
  }
}

/**
 * Plans the user's statement and derives its plan into the cache as planFragment will (a task does it while
 * its inputs are pulled or its producers here still run, off the path from its inputs to its COPY).
 */
export async function prepareFragments(engine: StageEngine, sql: string, session: Session, task: Pick<FragmentTask, 'queryId' | 'choices'>, connectors: Connectors, abort?: PlanAbort, derive: DerivePlan = distributedPlanOf): Promise<void> {
  await fragmentsOf(engine, sql, session, task, abort, connectors, derive);
}

/** Queries whose derived plans a worker keeps (a few running at once, each with several tasks here). */
const PLAN_CACHE_SIZE = 32;
const planCache = new Map<string, Promise<{ plan: DistributedPlan; columns: Plan['columns'] }>>();
/** Each node's connectors and each derivation (a spec's hand-built plans) by a number of its own, for the key. */
const identities = new WeakMap<object, number>();
const identityOf = (o: object): number => {
  let id = identities.get(o);
  if (id === undefined) identities.set(o, (id = nextIdentity++));
  return id;
};
let nextIdentity = 0;

/**
 * A derivation's key: the query and everything the derivation reads (the statement, the whole session with
 * its user, the coordinator's choices, the node's connectors), so a task that differs in any of them (a
 * request naming another query's id with other text) derives its own plan.
 */
function planKey(queryId: string, sql: string, session: Session, choices: PlanChoices | undefined, connectors: Connectors, derive: DerivePlan): string {
  return JSON.stringify([queryId, sql, session, choices ?? null, identityOf(connectors), identityOf(derive)]);
}

/** DuckDB's type of each Presto integer type. */
const INTEGRAL: Record<string, string> = { bigint: 'BIGINT', integer: 'INTEGER', smallint: 'SMALLINT', tinyint: 'TINYINT' };

function checkSlice(split: Split): void {
  if (!Number.isSafeInteger(split.slices) || split.slices < 1 || split.slices > MAX_SLICES) throw bad(`A split's slices must be 1 to ${MAX_SLICES}`);
  if (!Number.isSafeInteger(split.slice) || split.slice < 0 || split.slice >= split.slices) throw bad('A split\'s slice must be 0 to slices - 1');
}

/** How a worker derives a statement's plan (distributedPlanOf; a spec may give hand-built plans). */
export type DerivePlan = typeof distributedPlanOf;

/** A fragment task as its worker runs it: the stage it was given, with each input's files pulled here. */
export interface FragmentTask {
  /** The task's query: its tasks on one worker share the derived plan (fragmentsOf). */
  queryId?: string;
  fragmentId: number;
  splits?: readonly Split[];
  inputs: readonly { fragmentId: number; files: readonly string[]; bucket?: number; buckets?: number }[];
  output?: FragmentOutput;
  choices?: PlanChoices;
}

/** Where a producer writes: its one file, or (HASH) a directory whose bucket b is bucketFile(directory, b). */
export type FragmentTarget = ({ file: string } | { directory: string }) & {
  /** The Parquet codec of the files (exchange.compression-codec; default uncompressed, as Trino's NONE). */
  compression?: 'uncompressed' | 'lz4' | 'zstd';
};

/**
 * How exchange files are encoded: Parquet's v2 encodings (DELTA_BINARY_PACKED integers, DELTA_BYTE_ARRAY
 * strings) and dictionaries of at most 1 KiB. DuckDB builds a dictionary per row group and column until it
 * overflows; most exchanged columns are join keys that overflow it (orderkey, partkey), and the small limit
 * gives up on them early while a column of few values (quantity, shipmode, brand) keeps its dictionary. At
 * sf1, half of lineitem written in two buckets, DuckDB's CPU (median of 5-7, one thread) and the files,
 * against v1 with DuckDB's default dictionaries: Q21's fragment 5 (orderkey, suppkey, two dates) 241 ms
 * and 11.1 MB against 305-340 ms and 26.2 MB; Q9's six numeric columns 510 ms and 42.6 MB against 623 ms
 * and 83.8 MB; Q17's partkey, quantity, extendedprice 380 ms and 33.4 MB against 461 ms and 50.3 MB; four
 * string columns 900 ms and 92 MB against 1080 ms and 126 MB. No dictionaries at all cost the same CPU but
 * wrote Q17's 55 MB and Q16's part columns 6.1 MB against 0.6 MB; limits of 16 KiB and more cost more CPU.
 * Snappy, LZ4 or ZSTD level 1 on top cost more CPU than the bytes they save on a local disk.
 */
const ENCODING = ', PARQUET_VERSION v2, DICTIONARY_SIZE_LIMIT 1024';

/**
 * An exchange carries a multiset of rows: a consumer reads several producers' files at once, and every
 * fragment that orders rows orders them itself (the root's ORDER BY, a partial TopN's own), so the COPY
 * need not keep its input's order. Without it DuckDB's single-file COPY writes from each thread as it goes:
 * the same rows as a single file in 144 ms of CPU against 171 ms (median of 7, 2 threads); the partitioned
 * COPY (HASH) costs the same either way.
 */
const UNORDERED = ', PRESERVE_ORDER false';

/** COPY's options for an exchange file of `target`. */
const copyOptions = (target: FragmentTarget, extra = ''): string => `(FORMAT parquet, COMPRESSION ${target.compression ?? 'uncompressed'}${ENCODING}${UNORDERED}${extra})`;

/** Bucket `b`'s file of a HASH output written under `directory`. */
export const bucketFile = (directory: string, bucket: number): string => join(directory, `bucket-${bucket}.parquet`);

/**
 * The Presto types whose values compare equal across types under SQL `=`: hashed as DOUBLE (1 = 1.0 = 1.00;
 * DuckDB hashes -0.0 as 0.0). A date and a timestamp (without zone) hash as TIMESTAMP: Trino compares a date
 * with a timestamp as its midnight.
 */
const NUMERIC: ReadonlySet<string> = new Set(['bigint', 'integer', 'smallint', 'tinyint', 'double', 'real', 'decimal']);
/** The column of a HASH output's bucket while DuckDB partitions by it (not in the files). */

/**
 * Checks a fragment task against the fragment the worker derived: its splits (SOURCE only), one input per
 * source fragment (a bucket exactly when that source's output is HASH), its output as the fragment's.
 */
function checkTask(fragment: PlanFragment, plan: DistributedPlan, task: FragmentTask): void {
  const splits = task.splits ?? [];
  if (fragment.partitioning === 'SOURCE' && fragment.scan) {
    if (splits.length === 0) throw bad('A leaf task needs at least one split');
  } else if (splits.length > 0) throw bad(`Fragment ${fragment.id} reads no splits`);
  for (const split of splits) checkSlice(split);
  // Its SQL reads rows sharing a key across the task's splits (correlated-subqueries.ts colocatedWith): whole parts only.
  if (fragment.scan?.whole && splits.some((s) => s.slices !== 1)) throw bad(`Fragment ${fragment.id} reads whole parts, no slices`);
  // A source read in place (inline-fragments.ts) is no input: this task runs its SQL itself.
  const sources = new Set(scheduledFragment(plan, fragment).sources.map((s) => s.fragmentId));
  const named = new Set(task.inputs.map((i) => i.fragmentId));
  if (named.size !== task.inputs.length || named.size !== sources.size || [...named].some((id) => !sources.has(id))) {
    throw bad(`stage.inputs must name each source fragment of fragment ${fragment.id} once (${[...sources].join(', ') || 'none'})`);
  }
  for (const input of task.inputs) {
    const producer = plan.fragments.find((f) => f.id === input.fragmentId)!;
    if (input.files.length === 0) throw bad(`Input ${input.fragmentId} needs at least one task`);
    if ((producer.output.kind === 'HASH') !== (input.bucket !== undefined)) throw bad(`Input ${input.fragmentId} ${producer.output.kind === 'HASH' ? 'needs' : 'has no'} bucket`);
    if (input.bucket !== undefined && (input.buckets === undefined || input.bucket < 0 || input.bucket >= input.buckets || input.buckets > MAX_BUCKETS)) throw bad(`Input ${input.fragmentId}'s bucket is out of range`);
  }
  if (fragment.id === 0) {
    if (task.output && task.output.kind !== 'SINGLE') throw bad('The root fragment has no output to write');
  } else if (!task.output || task.output.kind !== fragment.output.kind) {
    throw bad(`Fragment ${fragment.id}'s output is ${fragment.output.kind}`);
  }
}

/** The DuckDB SQL of a fragment over this task's splits and inputs. */
async function fragmentSql(engine: StageEngine, plan: DistributedPlan, fragment: PlanFragment, task: FragmentTask, session: Session, connectors: Connectors): Promise<string> {
  const sources: VirtualSource[] = [];
  if (fragment.scan && (task.splits?.length ?? 0) > 0) {
    const { table } = fragment.scan;
    const connector = connectors.of(table.catalog);
    if (!connector?.splitSourceSql) throw bad(`Catalog ${table.catalog} has no splits to read here`);
    const footerOf = engine.parquetFooter?.bind(engine);
    sources.push({ table, source: await connector.splitSourceSql(table, task.splits!, footerOf ? { parquetFooter: footerOf } : {}) });
  }
  sources.push(...exchangeSources(plan, fragment, task, session, 0));
  return fragmentDuckDbSql(fragment, session, sources);
}

/**
 * The SQL of each exchange table `fragment` reads: its input's files, or for a source read in place
 * (inline-fragments.ts) that source's own SQL under its output's column names, over its own sources alike.
 */
function exchangeSources(plan: DistributedPlan, fragment: PlanFragment, task: FragmentTask, session: Session, depth: number): VirtualSource[] {
  return fragment.sources.map((source) => {
    const producer = plan.fragments.find((f) => f.id === source.fragmentId)!;
    if (producer.inline && depth < plan.fragments.length) {
      return { table: source.table, source: namedOutputSql(producer, fragmentDuckDbSql(producer, session, exchangeSources(plan, producer, task, session, depth + 1))) };
    }
    const input = task.inputs.find((i) => i.fragmentId === source.fragmentId)!;
    return { table: source.table, source: inputSourceSql(input.files) };
  });
}

/**
 * A fragment task's plan. The root's (fragment 0) pages the statement's rows; any other's execution
 * writes its output to `target` (Parquet: one file, or one per bucket placed by the hash of the output's
 * keys) and ends without rows, its update count the rows written (the rows the exchange carries), its
 * progress the rows and bytes its scans read. Either plan's columns are the user's statement's.
 */
export async function planFragment(engine: StageEngine, sql: string, session: Session, task: FragmentTask, connectors: Connectors, target: FragmentTarget | undefined, abort?: PlanAbort, derive: DerivePlan = distributedPlanOf): Promise<Plan> {
  const { plan, columns } = await fragmentsOf(engine, sql, session, task, abort, connectors, derive);
  const traceId = `${task.queryId ?? ''}.${task.fragmentId}`;
  stageTrace('w.derived', traceId);
  const fragment = plan.fragments.find((f) => f.id === task.fragmentId);
  if (!fragment) throw bad(`The statement's plan has no fragment ${task.fragmentId}`);
  checkTask(fragment, plan, task);
  const sqlOf = await fragmentSql(engine, plan, fragment, task, session, connectors);
  stageTrace('w.sql', traceId);
  if (fragment.id === 0) return planRootSql(engine, sqlOf, session, columns, abort);
  // A producer's files carry the fragment's column names (its consumers' SQL names them), whatever
  // DuckDB would name an unaliased item (o.orderpriority is "vivace_group_value(...)" once translated).
  const inner = namedOutputSql(fragment, sqlOf);
  if (!target) throw new VivaceError('GENERIC_INTERNAL_ERROR', `Fragment ${fragment.id} has nowhere to write`);
  const output = task.output!;
  if (output.kind !== 'HASH' || !('directory' in target)) {
    if (!('file' in target)) throw new VivaceError('GENERIC_INTERNAL_ERROR', 'A single output needs a file');
    const own = await engine.planOwnSql(`COPY (${inner}) TO ${quoteString(target.file)} ${copyOptions(target)}`, session, abort);
    const file = target.file;
    return { columns, execute: () => new LeafExecution(own, undefined, () => sizeOf([file]), traceId), release: () => own.release() };
  }
  const keys = fragment.output.kind === 'HASH' ? fragment.output.keys : [];
  const shape = await engine.planOwnSql(`SELECT * FROM (${inner}) LIMIT 0`, session, abort);
  const shapeColumns = shape.columns;
  shape.release();
  const hashed = keys.map((key) => {
    const at = fragment.columns.indexOf(key);
    const column = at < 0 ? undefined : shapeColumns[at];
    if (!column) throw new VivaceError('GENERIC_INTERNAL_ERROR', `Fragment ${fragment.id} has no output column ${key} to hash`);
    const name = quoteIdentifier(column.name);
    return NUMERIC.has(column.type.base) ? `CAST(${name} AS DOUBLE)` : column.type.base === 'date' || column.type.base === 'timestamp' ? `CAST(${name} AS TIMESTAMP)` : name;
  });
  // One pass: every row gets its bucket, and DuckDB writes a directory per bucket (vivace_bucket=b/).
  const replicated = fragment.output.kind === 'HASH' && fragment.output.replicateNullsAndAny ? keys.map((key) => quoteIdentifier(shapeColumns[fragment.columns.indexOf(key)]!.name)) : undefined;
  const copy = `COPY (${bucketedRowsSql(inner, hashed, output.buckets, replicated)}) TO ${quoteString(target.directory)} ${copyOptions(target, `, PARTITION_BY (${BUCKET_COLUMN})`)}`;
  const own = await engine.planOwnSql(copy, session, abort);
  const finish = () => placeBuckets(engine, session, inner, target, output.buckets);
  const written = () => sizeOf(Array.from({ length: output.buckets }, (_, b) => bucketFile(target.directory, b)));
  return { columns, execute: () => new LeafExecution(own, finish, written, traceId), release: () => own.release() };
}

/**
 * Each bucket's rows as one file, bucketFile(directory, b): DuckDB's file of the bucket moved there, an
 * empty file with the columns for a bucket without rows (its consumer reads it as any), several merged.
 */
async function placeBuckets(engine: StageEngine, session: Session, inner: string, target: FragmentTarget & { directory: string }, buckets: number): Promise<void> {
  const { directory } = target;
  for (let b = 0; b < buckets; b++) {
    const written = join(directory, `${BUCKET_COLUMN}=${b}`);
    const files = existsSync(written) ? readdirSync(written).filter((f) => f.endsWith('.parquet')).map((f) => join(written, f)) : [];
    const to = bucketFile(directory, b);
    if (files.length === 1) {
      renameSync(files[0]!, to);
      continue;
    }
    // LIMIT 0 runs nothing (DuckDB's optimizer empties it): the columns and their types only.
    const select = files.length === 0 ? `SELECT * FROM (${inner}) LIMIT 0` : `SELECT * FROM read_parquet([${files.map(quoteString).join(', ')}])`;
    await drainPlan(await engine.planOwnSql(`COPY (${select}) TO ${quoteString(to)} ${copyOptions(target)}`, session));
  }
}

/** A producer's DuckDB SQL with its output's column names (those its consumers' SQL names). */
const namedOutputSql = (fragment: PlanFragment, sql: string): string => (fragment.columns.length === 0 ? sql : `SELECT * FROM (${sql}) AS vivace_fragment(${fragment.columns.map(quoteIdentifier).join(', ')})`);

/** The bytes of the files there are of `files`. */
function sizeOf(files: readonly string[]): number {
  let bytes = 0;
  for (const file of files) bytes += statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  return bytes;
}

async function drainPlan(plan: Plan): Promise<void> {
  const execution = plan.execute();
  while (await execution.next(1 << 16)) { /* COPY's count row */ }
}

/** Fragment 1 of the two-stage plan over `splits`, written to `outputFile` (the leaf's shape). */
export function planLeaf(engine: StageEngine, sql: string, session: Session, splits: readonly Split[], connectors: Connectors, outputFile: string, abort?: PlanAbort): Promise<Plan> {
  return planFragment(engine, sql, session, { fragmentId: 1, splits, inputs: [], output: { kind: 'SINGLE' } }, connectors, { file: outputFile }, abort);
}

/** Runs the leaf's COPY to its end: no rows, its update count the rows written. */
class LeafExecution implements Execution {
  exhausted?: boolean;
  private readonly running: Execution;

  /** The bytes its files hold, once written (the bytes the exchange carries). */
  private outputBytes = 0;

  /**
   * `finish`: what runs once the COPY ended, before the task does (a HASH output's buckets placed);
   * `written`: the bytes of the files then.
   */
  constructor(copy: Plan, private readonly finish?: () => Promise<void>, private readonly written?: () => number, private readonly traceId = '') {
    this.running = copy.execute();
  }

  get updateCount(): number | undefined {
    return this.exhausted ? Number(this.running.updateCount ?? 0) : undefined;
  }

  async next(targetBytes: number): Promise<RowBatch | null> {
    if (this.exhausted) return null;
    stageTrace('w.copy', this.traceId);
    while (await this.running.next(targetBytes)) { /* COPY's one row: the rows written (its updateCount) */ }
    stageTrace('w.copied', this.traceId);
    await this.finish?.();
    stageTrace('w.placed', this.traceId);
    this.outputBytes = this.written?.() ?? 0;
    this.exhausted = true;
    return null;
  }

  cancel(): void {
    this.running.cancel();
  }

  progress(): ExecutionProgress {
    // What the COPY read, once it has run; no output rows (the partial rows go to the file).
    const { processedRows, processedBytes, cpuTimeMillis, peakMemoryBytes } = this.running.progress();
    return { processedRows, processedBytes, outputRows: 0, outputBytes: this.outputBytes, cpuTimeMillis, ...(peakMemoryBytes === undefined ? {} : { peakMemoryBytes }) };
  }
}

/** Fragment 0 of the two-stage plan over the leaves' Parquet files (the root's shape). */
export function planRoot(engine: StageEngine, sql: string, session: Session, inputFiles: readonly string[], connectors: Connectors, abort?: PlanAbort): Promise<Plan> {
  return planFragment(engine, sql, session, { fragmentId: 0, inputs: [{ fragmentId: 1, files: inputFiles }] }, connectors, undefined, abort);
}

/** The root's plan of its DuckDB SQL: the user's statement's columns, the final rows. */
async function planRootSql(engine: StageEngine, rootSql: string, session: Session, columns: Plan['columns'], abort?: PlanAbort): Promise<Plan> {
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
