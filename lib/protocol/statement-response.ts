// Renders the statement response (QueryResults) as JSON text. Rows arrive pre-rendered from the engine,
// so they are spliced in as a string rather than parsed and re-serialized.
import type { RowBatch } from '../engine/engine.types.js';
import { outputColumn } from './presto-type.js';
import type { QueryView } from './query-view.types.js';
import { statementStats } from './statement-stats.js';
import type { OutputColumn, ProtocolDialect } from './types.js';

export interface StatementLinks {
  infoUri: string;
  nextUri?: string;
  partialCancelUri?: string;
}

/** Columns rendered once per query and dialect: every response of the query repeats them. */
const columnsJson = new WeakMap<readonly OutputColumn[], Partial<Record<ProtocolDialect, string>>>();

function renderColumns(columns: readonly OutputColumn[], dialect: ProtocolDialect): string {
  let byDialect = columnsJson.get(columns);
  if (!byDialect) columnsJson.set(columns, (byDialect = {}));
  return (byDialect[dialect] ??= JSON.stringify(columns.map((c) => outputColumn(c, dialect))));
}

export function renderStatement(view: QueryView, links: StatementLinks, dialect: ProtocolDialect, page?: RowBatch): string {
  let body = `{"id":${JSON.stringify(view.queryId)},"infoUri":${JSON.stringify(links.infoUri)}`;
  if (links.partialCancelUri !== undefined) body += `,"partialCancelUri":${JSON.stringify(links.partialCancelUri)}`;
  if (links.nextUri !== undefined) body += `,"nextUri":${JSON.stringify(links.nextUri)}`;
  if (view.columns !== undefined) body += `,"columns":${renderColumns(view.columns, dialect)}`;
  // `data` is omitted when the page has no rows (clients mishandle an empty list).
  if (page !== undefined && page.rows > 0) body += `,"data":[${page.json}]`;
  body += `,"stats":${JSON.stringify(statementStats(view))}`;
  if (view.error !== undefined) body += `,"error":${JSON.stringify(view.error)}`;
  body += ',"warnings":[]';
  if (view.updateType !== undefined) {
    body += `,"updateType":${JSON.stringify(view.updateType)}`;
    if (view.updateCount !== undefined) body += `,"updateCount":${view.updateCount}`;
  }
  return `${body}}`;
}
