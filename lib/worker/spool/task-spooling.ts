// Which of a task's pages go to the spool: a query whose client asked for the spooling protocol has its
// first rows inline, within protocol.spooling.inlining.max-rows and max-size (Trino's inlining limits),
// and every page past them written as a segment of the worker's spool; pages then grow to
// protocol.spooling.initial-segment-size. A spool without room leaves the page inline.
import type { QueryDataEncoding } from '../../protocol/spooling/query-data-encoding.js';
import type { SegmentSpool, WrittenSegment } from './segment-spool.js';
import type { TaskPage } from '../worker-task.js';

export interface InliningPolicy {
  inliningEnabled: boolean;
  inliningMaxRows: number;
  inliningMaxBytes: number;
  /** JSON bytes of rows per spooled segment. */
  segmentBytes: number;
}

/** What of a task the spooling needs: its query, the encoding its client asked for. */
export interface SpoolingTask {
  readonly queryId: string;
  readonly queryDataEncoding?: QueryDataEncoding;
}

export class TaskSpooling {
  /** A page's segment, once: a retried GET of the same token answers the same segment. */
  private readonly segments = new WeakMap<TaskPage, Promise<WrittenSegment | undefined>>();
  private readonly inlined = new WeakMap<SpoolingTask, { rows: number; bytes: number }>();

  constructor(
    readonly spool: SegmentSpool,
    private readonly policy: InliningPolicy,
  ) {}

  /** The size of the task's next page: a spooled segment's, once its rows no longer go inline. */
  targetBytes(task: SpoolingTask, requested: number): number {
    if (task.queryDataEncoding === undefined || !this.pastInlining(task)) return requested;
    return Math.max(requested, this.policy.segmentBytes);
  }

  /** The segment a page's rows were written to, or undefined: the rows go inline. */
  segmentOf(task: SpoolingTask, page: TaskPage): Promise<WrittenSegment | undefined> {
    const batch = page.batch;
    const encoding = task.queryDataEncoding;
    if (encoding === undefined || batch === null || batch.rows === 0) return Promise.resolve(undefined);
    let segment = this.segments.get(page);
    if (segment === undefined) {
      segment = this.inline(task, batch.rows, batch.bytes) ? Promise.resolve(undefined) : this.spool.write(task.queryId, encoding, batch.json, batch.rows);
      this.segments.set(page, segment);
    }
    return segment;
  }

  /** Whether rows of this size still go inline (counted against the task's inlining budget when they do). */
  private inline(task: SpoolingTask, rows: number, bytes: number): boolean {
    const { inliningEnabled, inliningMaxRows, inliningMaxBytes } = this.policy;
    if (!inliningEnabled) return false;
    const so = this.inlined.get(task) ?? { rows: 0, bytes: 0 };
    if (so.rows + rows > inliningMaxRows || so.bytes + bytes > inliningMaxBytes) {
      this.inlined.set(task, { rows: Infinity, bytes: Infinity });
      return false;
    }
    this.inlined.set(task, { rows: so.rows + rows, bytes: so.bytes + bytes });
    return true;
  }

  private pastInlining(task: SpoolingTask): boolean {
    return !this.policy.inliningEnabled || this.inlined.get(task)?.rows === Infinity;
  }
}
