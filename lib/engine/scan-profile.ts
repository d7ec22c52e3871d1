// What a statement's table scans read, from DuckDB's profiler: a pooled connection profiles the statements
// that read tables into its own small JSON file (the node API has no call for the profile), and an
// execution reads it once its statement has ended. Profiling costs a statement about 0.3-0.45 ms of CPU
// (tpch.tiny lineitem's aggregate: ~10%), so it is switched on only while statements that name a table
// run: a run of SELECT 1 never pays it, and switching costs one PRAGMA (which the locked configuration
// still allows). The metrics are what this file and EXPLAIN ANALYZE read (the profiler's settings are
// locked after start-up), without EXTRA_INFO: it alone cost ~15% more, and EXPLAIN ANALYZE takes those
// details from the plain plan instead.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { isProcessAlive } from '../connectors/process-alive.js';

/**
 * Rows and bytes (DuckDB's in-memory size of the columns read) the table scans of one statement produced,
 * and the peak of DuckDB's buffer memory and of its spill files the profile reports for it.
 */
export interface ScanCounts {
  rows: number;
  bytes: number;
  /**
   * DuckDB's SYSTEM_PEAK_BUFFER_MEMORY: the most buffer memory the instance held (every connection's
   * statements together: DuckDB does not attribute it to a statement) while this connection's
   * statements ran. DuckDB keeps it per connection and never resets it (checked on 1.5: a SELECT 1 after
   * a GROUP BY reports the GROUP BY's peak, and a statement run beside a big one reports the big one's),
   * so it bounds the statement's own peak from above; it is the statement's own when the connection's
   * first statement, or when the instance ran nothing else and it raised the mark. The instance's
   * memory_limit bounds it, which is what a memory limit of a task is compared against.
   */
  peakMemoryBytes: number;
  /** DuckDB's SYSTEM_PEAK_TEMP_DIR_SIZE: the most bytes of spill files, with the same scope. */
  peakSpillBytes: number;
}

export const NO_SCANS: Readonly<ScanCounts> = Object.freeze({ rows: 0, bytes: 0, peakMemoryBytes: 0, peakSpillBytes: 0 });

/**
 * Where the profiles go: a private directory in shared memory when the system has one (written per
 * statement, so a disk file system cost 0.4-0.9 ms a statement against 0.05 ms on tmpfs), else in
 * `fallback`. Named after the process, so one a crashed process left behind is removed by the next.
 */
export function profileDirectory(fallback: string): string {
  for (const parent of ['/dev/shm', fallback]) {
    try {
      mkdirSync(parent, { recursive: true });
      removeAbandoned(parent);
      return mkdtempSync(join(parent, `${PREFIX}${process.pid}-`));
    } catch {
      // not writable: the next one
    }
  }
  throw new Error(`No directory for DuckDB's profiles in ${fallback}`);
}

const PREFIX = 'vivace-profile-';

function removeAbandoned(parent: string): void {
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length).split('-')[0]);
    if (Number.isSafeInteger(pid) && pid > 0 && !isProcessAlive(pid)) rmSync(join(parent, name), { recursive: true, force: true });
  }
}

const METRICS = JSON.stringify(Object.fromEntries([
  'OPERATOR_TYPE', 'OPERATOR_NAME', 'OPERATOR_CARDINALITY', 'RESULT_SET_SIZE',
  // for EXPLAIN ANALYZE (explain-format.ts)
  'OPERATOR_TIMING', 'OPERATOR_ROWS_SCANNED', 'CPU_TIME', 'LATENCY', 'BLOCKED_THREAD_TIME', 'CUMULATIVE_ROWS_SCANNED', 'TOTAL_BYTES_READ',
  // a task's peak memory (ScanCounts.peakMemoryBytes): two numbers at the profile's root
  'SYSTEM_PEAK_BUFFER_MEMORY', 'SYSTEM_PEAK_TEMP_DIR_SIZE',
].map((metric) => [metric, 'true'])));

interface ProfileNode {
  /** At the root only. */
  system_peak_buffer_memory?: number;
  system_peak_temp_dir_size?: number;
  operator_type?: string;
  operator_name?: string;
  operator_cardinality?: number;
  result_set_size?: number;
  children?: ProfileNode[];
}

/**
 * DuckDB's sources of rows that are no table: UNNEST (of an array, as the translation writes Trino's
 * UNNEST and sequence) and the series functions. Trino reads no table for them either.
 */
const NOT_TABLES: ReadonlySet<string> = new Set(['UNNEST', 'RANGE', 'GENERATE_SERIES']);

/** Adds the table scans of a profile tree: DuckDB's TABLE_SCAN operators (tables, Parquet files, the system tables' functions). */
function addScans(node: ProfileNode, into: ScanCounts): void {
  if (node.operator_type === 'TABLE_SCAN' && !NOT_TABLES.has(node.operator_name ?? '')) {
    into.rows += node.operator_cardinality ?? 0;
    into.bytes += node.result_set_size ?? 0;
  }
  for (const child of node.children ?? []) addScans(child, into);
}

const byteCount = (n: unknown): number => (typeof n === 'number' && Number.isSafeInteger(n) && n > 0 ? n : 0);

export class ScanProfiles {
  private readonly files = new WeakMap<DuckDBConnection, string>();
  /** Connections whose profiler is on now. */
  private readonly profiling = new WeakSet<DuckDBConnection>();
  private count = 0;

  constructor(readonly directory: string) {}

  /** Turns profiling on for a new connection (before the engine's configuration is locked). */
  async setUp(connection: DuckDBConnection): Promise<void> {
    const file = join(this.directory, `c${this.count++}.json`);
    // In this order: the output's extension must match a format already chosen.
    await connection.run(`PRAGMA enable_profiling = 'json'`);
    await connection.run(`SET custom_profiling_settings = '${METRICS}'`);
    await connection.run(`SET profiling_output = '${file.split("'").join("''")}'`);
    // Off until a statement that reads tables runs (the format and the file stay chosen).
    await connection.run('PRAGMA disable_profiling');
    this.files.set(connection, file);
  }

  /**
   * Call right before a statement starts, on the connection it runs on: the profiler is switched on for a
   * statement that reads tables (`profile`) and off for one that does not. The profile left by the
   * connection's last statement goes, so one that writes none (DuckDB answers some from metadata alone,
   * count(*) of Parquet) reads nothing.
   */
  async begin(connection: DuckDBConnection, profile: boolean): Promise<void> {
    const file = this.files.get(connection);
    if (file === undefined) return;
    if (profile !== this.profiling.has(connection)) {
      await connection.run(profile ? 'PRAGMA enable_profiling' : 'PRAGMA disable_profiling');
      if (profile) this.profiling.add(connection);
      else this.profiling.delete(connection);
    }
    if (profile) rmSync(file, { force: true });
  }

  /** What the connection's last statement scanned; nothing when it was not profiled or left no profile. */
  read(connection: DuckDBConnection): ScanCounts {
    const file = this.files.get(connection);
    if (file === undefined || !this.profiling.has(connection)) return NO_SCANS;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return NO_SCANS;
    }
    const counts = { rows: 0, bytes: 0, peakMemoryBytes: 0, peakSpillBytes: 0 };
    try {
      const root = JSON.parse(text) as ProfileNode;
      addScans(root, counts);
      counts.peakMemoryBytes = byteCount(root.system_peak_buffer_memory);
      counts.peakSpillBytes = byteCount(root.system_peak_temp_dir_size);
    } catch {
      return NO_SCANS;
    }
    return counts;
  }

  close(): void {
    rmSync(this.directory, { recursive: true, force: true });
  }
}
