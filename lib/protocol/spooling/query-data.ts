// The spooling protocol's `data` object (Trino's QueryData: {"encoding", "segments"}), rendered from a
// page of rows: rows the coordinator holds become inline segments (base64 of the encoded rows), rows a
// worker spooled become spooled segments that name where to download and acknowledge them.
import type { RowBatch, SpooledSegment } from '../../engine/engine.types.js';
import { encodeSegment, segmentJson, type QueryDataEncoding, type SegmentMetadata } from './query-data-encoding.js';

/** Where a spooled segment's bytes are fetched: the worker that wrote it (STORAGE), or this coordinator (COORDINATOR_PROXY). */
export interface SegmentLinks {
  /** Base URI that serves /v1/spooled/{download,ack}/{id}; absent: the segment's own worker. */
  proxyBase?: string;
  compressionThreshold?: number;
}

/** A page's parts in row order: the batches it joined (RowBatch.parts), or itself. */
const partsOf = (page: RowBatch): readonly RowBatch[] => page.parts ?? [page];

/** `"data"`'s JSON for a page with rows; `rowOffset`: the index of its first row in the whole result. */
export function renderQueryData(page: RowBatch, encoding: QueryDataEncoding, rowOffset: number, links: SegmentLinks = {}): string {
  const segments: string[] = [];
  let offset = rowOffset;
  for (const part of partsOf(page)) {
    if (part.rows === 0) continue;
    segments.push(part.spooled ? spooledSegment(part.spooled, offset, links) : inlineSegment(part, encoding, offset, links));
    offset += part.rows;
  }
  return `{"encoding":${JSON.stringify(encoding)},"segments":[${segments.join(',')}]}`;
}

function inlineSegment(part: RowBatch, encoding: QueryDataEncoding, rowOffset: number, links: SegmentLinks): string {
  const encoded = encodeSegment(segmentJson(part.json), part.rows, encoding, links.compressionThreshold);
  const metadata: SegmentMetadata = { rowOffset, rowsCount: part.rows, segmentSize: encoded.segmentSize };
  if (encoded.uncompressedSize !== undefined) metadata.uncompressedSize = encoded.uncompressedSize;
  return `{"type":"inline","data":"${encoded.bytes.toString('base64')}","metadata":${JSON.stringify(metadata)}}`;
}

function spooledSegment(segment: SpooledSegment, rowOffset: number, links: SegmentLinks): string {
  const base = links.proxyBase ?? segment.workerUri;
  const metadata: SegmentMetadata = { rowOffset, rowsCount: segment.rowsCount, segmentSize: segment.segmentSize };
  if (segment.uncompressedSize !== undefined) metadata.uncompressedSize = segment.uncompressedSize;
  metadata.expiresAt = segment.expiresAt;
  const uri = `${base}/v1/spooled/download/${segment.id}`;
  const ackUri = `${base}/v1/spooled/ack/${segment.id}`;
  return `{"type":"spooled","uri":${JSON.stringify(uri)},"ackUri":${JSON.stringify(ackUri)},"metadata":${JSON.stringify(metadata)}}`;
}
