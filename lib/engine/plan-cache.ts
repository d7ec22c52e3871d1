// Analysed queries by text and session (the plan cache), the render statements prepared on each pooled
// connection, and what each connection's catalog.schema is: state that lets a repeated query skip
// parsing and preparing. Any statement that is not a query empties it.
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';
import type { OutputColumn, Session } from '../protocol/types.js';

export interface CachedQueryPlan {
  columns: OutputColumn[];
  renderSql: string;
  /**
   * The last run returned one small chunk: run it materialized (one thread-pool round trip instead of
   * stream + two fetches). Learned per plan; DDL and DML empty the cache, so data growth relearns it.
   */
  small?: boolean;
  /** The statement names a table: its scans are profiled (engine/scan-profile.ts). */
  readsTables: boolean;
  /**
   * The statement names no table at all, as written (no table, view, metadata table such as `t$partitions`,
   * exchange table or table function, and no EXECUTE): it may run on the small-query instance, which has
   * no catalog attached (small-queries.ts). `readsTables` alone misses names the translation reads as text.
   */
  tableFree?: true;
  /**
   * The query start its SQL holds (current_timestamp and its kin, Session.startTime): the plan serves only
   * that query (get), and its render statement is run unprepared, not kept on the connection.
   */
  queryStart?: number;
}

/** At most one DuckDB chunk of rendered rows: small enough to materialize. */
export const SMALL_RESULT = { rows: 2048, bytes: 64 * 1024 };

/**
 * Analysed queries by text, catalog, schema and time zone: a repeated query skips parsing, naming and
 * preparing (4-6 DuckDB round trips) and only runs. Any statement that is not a query (DDL, DML, SET)
 * may change what a query means, so it empties the cache; so does a tpch schema's views replaced.
 */
export class PlanCache {
  private readonly plans = new Map<string, CachedQueryPlan>();
  constructor(private readonly maxEntries = 1000) {}

  /** How often a plan was found (a repeated query only ran) and render statements DuckDB prepared (EnginePlanStats). */
  readonly counts = { reused: 0, renderPrepares: 0 };
  /** Query plans analysed and kept (counted by the engine as it sets them). */
  analysed = 0;

  /**
   * What a plan depends on besides the text: the session's catalog and schema (names resolve against
   * them, and their absence is an error), its time zone, its user (current_user is part of the plan) and
   * its header family (prestodb clients get timestamps in milliseconds).
   */
  static key(sql: string, session: Session): string {
    return `${session.catalog ?? '\u0001'}\u0000${session.schema ?? '\u0001'}\u0000${session.timeZone ?? ''}\u0000${session.user}\u0000${session.prefix}\u0000${sql}`;
  }

  /** `queryStart`: the asking query's start; a plan printed with another query's start is not found (it is replaced when planned again). */
  get(key: string, queryStart?: number): CachedQueryPlan | undefined {
    const plan = this.plans.get(key);
    if (plan?.queryStart !== undefined && plan.queryStart !== queryStart) return undefined;
    if (plan) {
      this.counts.reused++;
      this.plans.delete(key); // most recently used last
      this.plans.set(key, plan);
    }
    return plan;
  }

  /** `since`: the generation when analysing began; a plan analysed across a clear() is not kept. */
  set(key: string, plan: CachedQueryPlan, since = this.currentGeneration): void {
    if (since !== this.currentGeneration) return;
    this.plans.set(key, plan);
    if (this.plans.size > this.maxEntries) this.plans.delete(this.plans.keys().next().value!);
  }

  /** The catalog.schema each pooled connection is on, so USE runs only when it changes. */
  schemaOf = new WeakMap<DuckDBConnection, string>();

  /**
   * Render statements prepared on each connection, so running a cached plan is one DuckDB call
   * (`connection.stream(sql)` is three: extract, prepare, stream). Valid for one cache generation.
   */
  private readonly prepared = new Map<DuckDBConnection, { generation: number; statements: Map<string, DuckDBPreparedStatement> }>();
  private currentGeneration = 0;

  /** Bumped by every clear(): what the catalog was when a plan was analysed. */
  get generation(): number {
    return this.currentGeneration;
  }

  /** Call only while `connection` is held by the caller and idle: stale statements are destroyed here. */
  async preparedOn(connection: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement> {
    let entry = this.prepared.get(connection);
    if (!entry || entry.generation !== this.currentGeneration) {
      for (const statement of entry?.statements.values() ?? []) statement.destroySync();
      entry = { generation: this.currentGeneration, statements: new Map() };
      this.prepared.set(connection, entry);
    }
    let statement = entry.statements.get(sql);
    if (statement) {
      entry.statements.delete(sql); // most recently used last
    } else {
      statement = await connection.prepare(sql);
      this.counts.renderPrepares++;
      if (entry.statements.size >= MAX_PREPARED_PER_CONNECTION) {
        const [oldestSql, oldest] = entry.statements.entries().next().value!;
        entry.statements.delete(oldestSql);
        oldest.destroySync();
      }
    }
    entry.statements.set(sql, statement);
    return statement;
  }

  /** At engine close, once every connection (of `connections`, when given) is back and idle. */
  destroyPrepared(connections?: readonly DuckDBConnection[]): void {
    for (const connection of connections ?? [...this.prepared.keys()]) {
      for (const statement of this.prepared.get(connection)?.statements.values() ?? []) statement.destroySync();
      this.prepared.delete(connection);
    }
  }

  clear(): void {
    this.plans.clear();
    this.schemaOf = new WeakMap(); // DDL may have dropped the schema a connection is on
    this.currentGeneration++; // statements prepared before DDL are dropped at their connection's next use
  }
}

const MAX_PREPARED_PER_CONNECTION = 256;
