// Renders the statement response (QueryResults) as JSON text. Rows arrive pre-rendered from the engine,
// so they are spliced in as they are rather than parsed and re-serialized: as text, or as bytes when the
// engine handed bytes (the response is then the pieces to write in order, and its rows are never decoded).
import type { RowBatch } from '../engine/engine.types.js';
import { outputColumn } from './presto-type.js';
import type { QueryView } from './query-view.types.js';
import { statementStats } from './statement-stats.js';
import type { OutputColumn, ProtocolDialect } from './types.js';
import { batchText, TEXT_PAGE_MAX_BYTES } from '../engine/row-batch.js';
import { renderQueryData, type SegmentLinks } from './spooling/query-data.js';

export interface StatementLinks {
  infoUri: string;
  nextUri?: string;
  partialCancelUri?: string;
  /** Where spooled segments are fetched (spooling protocol). */
  segments?: SegmentLinks;
}

/** Columns rendered once per query and dialect: every response of the query repeats them. */
const columnsJson = new WeakMap<readonly OutputColumn[], Partial<Record<ProtocolDialect, string>>>();

function renderColumns(columns: readonly OutputColumn[], dialect: ProtocolDialect): string {
  let byDialect = columnsJson.get(columns);
  if (!byDialect) columnsJson.set(columns, (byDialect = {}));
  return (byDialect[dialect] ??= JSON.stringify(columns.map((c) => outputColumn(c, dialect))));
}

/**
 * Whether the response for `page` is the last one, without a nextUri. As Trino's Query.getNextResult: a
 * response that carries rows always links to a next one, even when the query is already FINISHED, and
 * only the response after the last rows (or a FAILED one) ends the stream. So a response without nextUri
 * never carries rows, and a client that reads the last response again (trino-client's iterator returns it
 * once more with `done: true`, which Malloy reads) cannot double a page.
 */
export function isLastResponse(view: QueryView, page: RowBatch | undefined): boolean {
  return view.state === 'FAILED' || (view.done && (page === undefined || page.rows === 0));
}

export function renderStatement(view: QueryView, links: StatementLinks, dialect: ProtocolDialect, page?: RowBatch): string | readonly Buffer[] {
  let head = `{"id":${JSON.stringify(view.queryId)},"infoUri":${JSON.stringify(links.infoUri)}`;
  if (links.partialCancelUri !== undefined) head += `,"partialCancelUri":${JSON.stringify(links.partialCancelUri)}`;
  if (links.nextUri !== undefined) head += `,"nextUri":${JSON.stringify(links.nextUri)}`;
  if (view.columns !== undefined) head += `,"columns":${renderColumns(view.columns, dialect)}`;
  let tail = `,"stats":${JSON.stringify(statementStats(view))}`;
  if (view.error !== undefined) tail += `,"error":${JSON.stringify(view.error)}`;
  tail += ',"warnings":[]';
  if (view.updateType !== undefined) {
    tail += `,"updateType":${JSON.stringify(view.updateType)}`;
    if (view.updateCount !== undefined) tail += `,"updateCount":${view.updateCount}`;
  }
  tail += '}';
  // `data` is absent, never `[]`, when the page has no rows, the last response included: as Trino
  // (`data` is NON_EMPTY) and prestodb ("client implementations do not properly handle empty list of
  // data"). Of the clients in spec/clients, presto-client calls its data callback once more with `[]`
  // for an empty list; trino-client, lento and presto-js-client read both alike.
  const rows = page !== undefined && page.rows > 0 ? page.json : undefined;
  if (rows === undefined) return head + tail;
  // Spooling protocol: segments, whose row offsets count from the result's first row (outputRows has this page's).
  const encoding = view.session.queryDataEncoding;
  if (encoding !== undefined) return `${head},"data":${renderQueryData(page!, encoding, view.outputRows - page!.rows, links.segments)}${tail}`;
  // A small page as text (a worker's few rows arrive as bytes): one string body is the cheaper write.
  if (typeof rows === 'string' || page!.bytes <= TEXT_PAGE_MAX_BYTES) return `${head},"data":[${batchText(page!)}]${tail}`;
  return [Buffer.from(`${head},"data":[`, 'utf8'), ...rows, Buffer.from(`]${tail}`, 'utf8')];
}
