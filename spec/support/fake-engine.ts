// An in-memory Engine for driving actors without DuckDB: each statement is looked up in a table of
// canned results, and every call is recorded so specs can assert on cancellation and release.
import type { PlanAbort } from '../../lib/engine/plan-abort.js';
import type { Engine, Execution, Plan, RowBatch } from '../../lib/engine/engine.types.js';
import type { OutputColumn, Session, SessionUpdates } from '../../lib/protocol/types.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';

export interface FakeResult {
  columns: OutputColumn[];
  rows: unknown[][];
  /** rows per batch */
  batchRows?: number;
  updateType?: string;
  sessionUpdates?: SessionUpdates;
  /** when set, plan() rejects with it */
  planError?: VivaceError;
  /** when set, the n-th next() (0-based) rejects with it */
  failAtBatch?: { index: number; error: VivaceError };
  /** next() stays pending until released through `gate` */
  gated?: boolean;
}

export class FakeEngine implements Engine {
  readonly planned: string[] = [];
  cancels = 0;
  releases = 0;
  openExecutions = 0;
  private gates: (() => void)[] = [];

  constructor(private readonly results: Record<string, FakeResult>) {}

  /** Let every gated next() call that is waiting proceed. */
  openGates(): void {
    const gates = this.gates;
    this.gates = [];
    for (const g of gates) g();
  }

  async plan(sql: string, _session: Session, _abort?: PlanAbort): Promise<Plan> {
    this.planned.push(sql);
    const result = this.results[sql];
    if (!result) throw new VivaceError('SYNTAX_ERROR', `line 1:1: unknown fake statement '${sql}'`, { location: { lineNumber: 1, columnNumber: 1 } });
    if (result.planError) throw result.planError;
    let released = false;
    return {
      columns: result.columns,
      updateType: result.updateType,
      sessionUpdates: result.sessionUpdates,
      execute: () => this.execute(result),
      release: () => {
        if (!released) {
          released = true;
          this.releases++;
        }
      },
    };
  }

  private execute(result: FakeResult): Execution {
    const batchRows = result.batchRows ?? 1000;
    let offset = 0;
    let index = 0;
    let canceled = false;
    let open = true;
    this.openExecutions++;
    const close = () => {
      if (open) {
        open = false;
        this.openExecutions--;
      }
    };
    return {
      next: async (): Promise<RowBatch | null> => {
        if (result.gated) await new Promise<void>((resolve) => this.gates.push(resolve));
        if (canceled) {
          close();
          throw new VivaceError('USER_CANCELED', 'Query was canceled');
        }
        if (result.failAtBatch && result.failAtBatch.index === index) {
          close();
          throw result.failAtBatch.error;
        }
        index++;
        if (offset >= result.rows.length) {
          close();
          return null;
        }
        const rows = result.rows.slice(offset, offset + batchRows);
        offset += rows.length;
        if (offset >= result.rows.length) close(); // as DuckDB's, it lets go once the last batch is read
        const json = rows.map((r) => JSON.stringify(r)).join(',');
        return { json, rows: rows.length, bytes: Buffer.byteLength(json) };
      },
      // Like DuckDB's executions, it knows when the batch it returned was the last one.
      get exhausted() {
        return index > 0 && offset >= result.rows.length && !canceled;
      },
      cancel: () => {
        if (!canceled) {
          canceled = true;
          this.cancels++;
        }
      },
      progress: () => ({ processedRows: offset, processedBytes: offset * 8, cpuTimeMillis: 0 }),
    };
  }

  async close(): Promise<void> {}
}

export const BIGINT_COLUMN = (name: string): OutputColumn => ({ name, type: { base: 'bigint' } });
