// Renders the statement response (QueryResults) as JSON text. Rows arrive pre-rendered from the engine,
// so they are spliced in as a string rather than parsed and re-serialized.
import type { RowBatch } from '../engine/engine.types.js';
import { outputColumn } from './presto-type.js';
import type { QueryView } from './query-view.types.js';
import { statementStats } from './statement-stats.js';
import type { ProtocolDialect } from './types.js';

export interface StatementLinks {
  infoUri: string;
  nextUri?: string;
  partialCancelUri?: string;
}

export function renderStatement(view: QueryView, links: StatementLinks, dialect: ProtocolDialect, page?: RowBatch): string {
  const head: Record<string, unknown> = { id: view.queryId, infoUri: links.infoUri };
  if (links.partialCancelUri !== undefined) head.partialCancelUri = links.partialCancelUri;
  if (links.nextUri !== undefined) head.nextUri = links.nextUri;
  if (view.columns !== undefined) head.columns = view.columns.map((c) => outputColumn(c, dialect));

  const tail: Record<string, unknown> = { stats: statementStats(view) };
  if (view.error !== undefined) tail.error = view.error;
  tail.warnings = [];
  if (view.updateType !== undefined) {
    tail.updateType = view.updateType;
    if (view.updateCount !== undefined) tail.updateCount = view.updateCount;
  }

  const headJson = JSON.stringify(head);
  const tailJson = JSON.stringify(tail);
  // `data` is omitted when the page has no rows (clients mishandle an empty list).
  const data = page !== undefined && page.rows > 0 ? `,"data":[${page.json}]` : '';
  return `${headJson.slice(0, -1)}${data},${tailJson.slice(1)}`;
}
