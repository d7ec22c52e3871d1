// A distributed plan as the scheduler and the workers see it: fragments cut at exchanges, as Trino's
// PlanFragmenter cuts them (stage id = fragment id, the root is fragment 0). Each fragment is a plain
// Trino query over its inputs, which the worker translates as any statement: the scanned table stands
// for the task's splits (connector.types.ts splitSourceSql) and each source's exchange table stands for
// the files its producers wrote for this task. The planner is pure and deterministic: a worker derives
// the same fragments from the user's statement, its session and the coordinator's choices, so no SQL
// travels between nodes.
import type { Expression } from '../sql/ast.js';
import type { ScannedTable } from '../connectors/connector.types.js';

/** The catalog and schema of the tables that stand for fragments' outputs: vivace_stage.exchange.f{id}. */
export const EXCHANGE_CATALOG = 'vivace_stage';
export const EXCHANGE_SCHEMA = 'exchange';
export const exchangeTableOf = (fragmentId: number): ScannedTable => ({ catalog: EXCHANGE_CATALOG, schema: EXCHANGE_SCHEMA, table: `f${fragmentId}` });

/**
 * How a fragment's tasks are made (Trino's PartitioningHandle): SOURCE, one task per group of splits of
 * its scan (every alive worker); HASH, one task per bucket (the scheduler's bucket count); SINGLE, one task.
 */
export type FragmentPartitioning = 'SOURCE' | 'HASH' | 'SINGLE';

/**
 * How a fragment's output is laid out for its consumer (Trino's output partitioning scheme). SINGLE: one
 * file per producing task, all read by the one consumer task. BROADCAST: one file per producing task, read
 * whole by every consumer task. HASH: one file per consumer bucket per producing task, rows placed by the
 * hash of `keys` (output column names), bucket b read only by the consumer's task b.
 */
/**
 * How a fragment's output reaches its consumer. HASH's replicateNullsAndAny: a row whose key is NULL, and
 * one row of each task, go to every bucket (a partitioned semi-join's source: replicated-semis.ts).
 */
export type OutputPartitioning = { kind: 'SINGLE' } | { kind: 'BROADCAST' } | { kind: 'HASH'; keys: readonly string[]; replicateNullsAndAny?: true };

/** An input of a fragment: another fragment's output, read through its exchange table. */
export interface FragmentSource {
  fragmentId: number;
  /** The table the fragment's SQL names for it (exchangeTableOf). */
  table: ScannedTable;
}

export interface PlanFragment {
  id: number;
  partitioning: FragmentPartitioning;
  /**
   * SOURCE: the table whose splits the tasks read, and the WHERE its connector prunes splits by. `whole`:
   * each split a whole file, never a slice of one (a subquery over the table's partitioning column runs in
   * these tasks: correlated-subqueries.ts colocatedWith).
   */
  scan?: { table: ScannedTable; where?: Expression; whole?: true };
  /** The fragments this one reads (their `output` says how). */
  sources: readonly FragmentSource[];
  output: OutputPartitioning;
  /** The fragment's Trino SQL (a query) over its scan table and its sources' exchange tables. */
  sql: string;
  /** The names of its output columns, in order (HASH keys name some of them). */
  columns: readonly string[];
  /**
   * Its exchange tables hold no zoned value (timestamp with time zone): no fragment of its plan makes one
   * or reads a table that may hold one (lib/cluster/distributed-plan.ts), so its translation reads no value
   * through the zoned macros, as a tpch query's does (lib/sql/zoned-timestamps.ts mayMeetZones).
   */
  zoneFree?: true;
  /**
   * The catalog whose one worker holds its tables (memory): this SINGLE fragment's task runs on that
   * worker, which alone reads them (PlanChoices.held). Absent: any worker.
   */
  holder?: string;
  /**
   * Read in place (lib/cluster/inline-fragments.ts): a one-task fragment over small tables every worker
   * reads alike, or forwarding whole inputs to a one-task consumer, which is no stage of its own: each
   * consumer task runs its SQL itself where it reads the fragment's exchange table.
   */
  inline?: true;
  /**
   * A broadcast build over a table whose parts are cut on the column it joins the probe's scan on, which
   * is cut on it too (tpch's orders to lineitem on orderkey at sf1: distributed-planner.ts colocatedBuild):
   * read in place by the probe's tasks whatever its size (inline-fragments.ts), each reading the table
   * whole with its filters, where DuckDB's dynamic filters from the task's own keys prune it.
   */
  colocated?: true;
}

/** Choices the coordinator made from statistics, which a worker is given to derive the same plan. */
export interface PlanChoices {
  /** The FROM's relations (by position) in the order they are joined: the first is the probe side's start. */
  order: readonly number[];
  /** Each join's distribution, in that order (one fewer than `order`). */
  joins: readonly ('BROADCAST' | 'PARTITIONED')[];
  /** Whether each relation (by position) is read over its splits (SOURCE) or whole by one task (SINGLE). */
  split: readonly boolean[];
  /**
   * Whether each semi-join's subquery (in the query's order) runs in two stages over its table's splits;
   * 'PARTITIONED': so, and partitioned with its probe rather than broadcast (semi-stages.ts).
   */
  semis?: readonly (boolean | 'PARTITIONED')[];
  /** Whether each table of a correlated subquery (correlated-subqueries.ts, in the query's order) is read over its splits. */
  correlated?: readonly boolean[];
  /** Dynamic filters between broadcast builds (dynamic-filters.ts): [filtered, filtering] relation positions. */
  dynamicFilters?: readonly (readonly [number, number])[];
  /** Each derived table's sub-plan choices, in the FROM's order (outer-joins.ts), at most MAX_SUB_PLAN_DEPTH deep. */
  derived?: readonly PlanChoices[];
  /** A set operation's branches in the query's order (union-stages.ts); the union's own order, joins and split are then empty. */
  branches?: readonly BranchChoices[];
  /**
   * The catalogs one worker holds (memory) whose tables a gathered plan reads whole in a fragment pinned
   * to that worker (gather-planner.ts): a worker's own catalogs need not hold them, so it is told.
   */
  held?: readonly string[];
  /** The fragments (by id) read in place by their consumers (PlanFragment.inline): top choices only. */
  inline?: readonly number[];
  /**
   * A scattered scan (lib/spooling/scattered-scan.ts): the plan is its root alone, read over its table's
   * splits by one task per worker, each spooling its own rows for the client. Top choices only.
   */
  scattered?: true;
}

/**
 * How a set operation's branch is planned, which a worker is told (its layouts need not split as the
 * coordinator's do): over one table's splits (its windows, two aggregation stages or a scan), whole in
 * one task, by the join planner, or gathered.
 */
export const BRANCH_KINDS = ['fixed', 'single', 'join', 'gathered'] as const;
export type BranchKind = (typeof BRANCH_KINDS)[number];

/** A branch's kind and the choices its planner made, every field kept (derived, correlated, ...). */
export interface BranchChoices {
  kind: BranchKind;
  choices: PlanChoices;
}

/** Most levels of sub-plans (derived tables in derived tables) a plan has; a deeper query is gathered. */
export const MAX_SUB_PLAN_DEPTH = 8;

export interface DistributedPlan {
  /** Root first (id 0), then every fragment once, each after its consumers (a WITH query's rows may have two). */
  fragments: readonly PlanFragment[];
  choices: PlanChoices;
  /** Every table the plan reads (a user who reads one through a mask or row filter runs the query as one task). */
  tables: readonly ScannedTable[];
}
