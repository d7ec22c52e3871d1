// A Plan whose rows are computed in JavaScript (SHOW ..., DESCRIBE, EXPLAIN, session statements):
// results are small, so rows are rendered as Presto JSON with JSON.stringify.
import type { Execution, ExecutionProgress, Plan, RowBatch } from '../engine.types.js';
import type { OutputColumn, SessionUpdates } from '../../protocol/types.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import { toVivaceError } from '../duckdb-errors.js';

/** A cell: varchar as string, bigint/integer as number, boolean, or null. */
export type Cell = string | number | bigint | boolean | null;

export interface ValuesPlanOptions {
  columns: OutputColumn[];
  updateType?: string;
  sessionUpdates?: SessionUpdates;
  /** Produces the rows when the plan executes (the connection is still held then). */
  rows?: () => Promise<Cell[][]>;
  /** Gives the connection back: once the rows exist, on cancel, or when the plan is released. */
  release: () => void;
  /** Stops work in flight (EXPLAIN ANALYZE runs the query). */
  interrupt?: () => void;
  /** Undo what planning did when the plan will never execute (START TRANSACTION began one). */
  onAbandon?: () => void;
}

const canceled = () => new VivaceError('USER_CANCELED', 'Query was canceled');

export function valuesPlan(options: ValuesPlanOptions): Plan {
  let executed = false;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    options.release();
  };
  return {
    columns: options.columns,
    ...(options.updateType ? { updateType: options.updateType } : {}),
    ...(options.sessionUpdates ? { sessionUpdates: options.sessionUpdates } : {}),
    execute() {
      if (executed) throw new VivaceError('GENERIC_INTERNAL_ERROR', 'Plan already executed');
      if (released) throw new VivaceError('GENERIC_INTERNAL_ERROR', 'Plan was released');
      executed = true;
      return new ValuesExecution(options.rows ?? (async () => []), release, options.interrupt);
    },
    release() {
      if (executed) return;
      if (!released) options.onAbandon?.();
      release();
    },
  };
}

/** Rows already known, as a plan that needs no connection. */
export function staticRowsPlan(columns: OutputColumn[], rows: Cell[][], extra: Partial<ValuesPlanOptions> = {}): Plan {
  return valuesPlan({ columns, rows: async () => rows, release: () => undefined, ...extra });
}

class ValuesExecution implements Execution {
  private rendered?: string[];
  private position = 0;
  private isCanceled = false;
  private inFlight = false;
  private failure?: VivaceError;
  private processedRows = 0;
  private processedBytes = 0;
  private millis = 0;

  constructor(
    private readonly produce: () => Promise<Cell[][]>,
    private readonly release: () => void,
    private readonly interrupt?: () => void,
  ) {}

  get exhausted(): boolean {
    return this.rendered !== undefined && this.position >= this.rendered.length;
  }

  async next(targetBytes: number): Promise<RowBatch | null> {
    if (this.isCanceled) throw canceled();
    if (this.failure) throw this.failure;
    if (!this.rendered) {
      const started = performance.now();
      this.inFlight = true;
      try {
        const rows = await this.produce();
        this.rendered = rows.map(renderRow);
      } catch (err) {
        this.failure = this.isCanceled ? canceled() : toVivaceError(err);
        throw this.failure;
      } finally {
        this.inFlight = false;
        this.millis += performance.now() - started;
        this.release();
      }
      if (this.isCanceled) throw canceled();
    }
    const rows = this.rendered;
    if (this.position >= rows.length) return null;
    const parts: string[] = [];
    let bytes = 0;
    while (this.position < rows.length) {
      const row = rows[this.position]!;
      const size = Buffer.byteLength(row) + (parts.length > 0 ? 1 : 0);
      if (parts.length > 0 && bytes + size > targetBytes) break;
      parts.push(row);
      bytes += size;
      this.position++;
    }
    this.processedRows += parts.length;
    this.processedBytes += bytes;
    return { json: parts.join(','), rows: parts.length, bytes };
  }

  cancel(): void {
    if (this.isCanceled) return;
    this.isCanceled = true;
    if (this.inFlight) this.interrupt?.();
    else this.release();
  }

  progress(): ExecutionProgress {
    // The rows come from the catalogs' metadata (SHOW ..., DESCRIBE): what is read of it is what is shown.
    const rows = this.processedRows;
    const bytes = this.processedBytes;
    return { processedRows: rows, processedBytes: bytes, outputRows: rows, outputBytes: bytes, cpuTimeMillis: Math.round(this.millis) };
  }
}

function renderRow(row: Cell[]): string {
  return JSON.stringify(row.map((v) => (typeof v === 'bigint' ? Number(v) : v)));
}
