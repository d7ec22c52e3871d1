// Reads the spooling protocol as a client does: decodes inline segments, downloads spooled ones (with no
// credentials, as Trino's clients), checks each segment's metadata against its bytes, and acknowledges.
import { expect } from 'chai';
import { decodeSegmentBytes } from '../../lib/protocol/spooling/query-data-decoding.js';
import { request, validateStatement } from './http.js';

/** A zstd frame's content size from its header (RFC 8878 3.1.1.1), as Python's zstandard reads it; undefined when absent. */
export function zstdContentSize(frame: Buffer): number | undefined {
  expect(frame.readUInt32LE(0)).to.equal(0xfd2fb528);
  const descriptor = frame[4]!;
  const fcsFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const dictFlag = descriptor & 3;
  const fcsBytes = [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag]!;
  if (fcsBytes === 0) return undefined;
  const at = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][dictFlag]!;
  if (fcsBytes === 1) return frame[at]!;
  if (fcsBytes === 2) return frame.readUInt16LE(at) + 256;
  if (fcsBytes === 4) return frame.readUInt32LE(at);
  return Number(frame.readBigUInt64LE(at));
}

/** A segment's bytes as JSON text, checked as the Python client checks them (sizes, zstd content size). */
export function decodeSegment(bytes: Buffer, encoding: string, metadata: { segmentSize: number; uncompressedSize?: number }): string {
  if (metadata.uncompressedSize !== undefined) {
    expect(encoding).to.be.oneOf(['json+zstd', 'json+lz4']);
    if (encoding === 'json+zstd') expect(zstdContentSize(bytes)).to.equal(metadata.uncompressedSize);
  }
  return decodeSegmentBytes(bytes, encoding, metadata).toString('utf8');
}

export interface SpooledRead {
  rows: unknown[][];
  responses: any[];
  segments: any[];
  /** The rows' JSON text of each segment, in order. */
  texts: string[];
}

/** The rows of a `data` object, downloading spooled segments; offsets must run on from `offset`. */
export async function readQueryData(data: any, offset: number, options: { ack?: boolean } = {}): Promise<{ rows: unknown[][]; texts: string[] }> {
  const rows: unknown[][] = [];
  const texts: string[] = [];
  for (const segment of data.segments) {
    expect(segment.metadata.rowOffset).to.equal(offset + rows.length);
    let bytes: Buffer;
    if (segment.type === 'inline') bytes = Buffer.from(segment.data, 'base64');
    else {
      const res = await fetch(segment.uri, { headers: { 'Accept-Encoding': 'identity' } });
      expect(res.status, `download ${segment.uri}`).to.equal(200);
      bytes = Buffer.from(await res.arrayBuffer());
      if (options.ack !== false) expect((await fetch(segment.ackUri)).status).to.be.oneOf([200, 204]);
    }
    const text = decodeSegment(bytes, data.encoding, segment.metadata);
    const decoded = JSON.parse(text) as unknown[][];
    expect(decoded).to.have.length(segment.metadata.rowsCount);
    texts.push(text);
    rows.push(...decoded);
  }
  return { rows, texts };
}

/** A statement run to its end asking for `encodings`: every response validated, the rows decoded in order. */
export async function runSpooled(url: string, sql: string, encodings: string, headers: Record<string, string> = { 'X-Trino-User': 'alice' }, options: { ack?: boolean } = {}): Promise<SpooledRead> {
  const prefix = Object.keys(headers)[0]!.startsWith('X-Presto-') ? 'X-Presto-' : 'X-Trino-';
  const first = await request('POST', `${url}/v1/statement`, { body: sql, headers: { ...headers, [`${prefix}Query-Data-Encoding`]: encodings } });
  if (first.status !== 200) throw new Error(`POST answered ${first.status}: ${first.text}`);
  validateStatement(first.body, true);
  const responses = [first.body];
  const rows: unknown[][] = [];
  const texts: string[] = [];
  const segments: any[] = [];
  let current = first.body;
  for (;;) {
    if (current.data !== undefined && !Array.isArray(current.data)) {
      const read = await readQueryData(current.data, rows.length, options);
      segments.push(...current.data.segments);
      rows.push(...read.rows);
      texts.push(...read.texts);
    } else if (current.data !== undefined) rows.push(...current.data);
    if (!current.nextUri) break;
    const next = await request('GET', current.nextUri);
    if (next.status !== 200) throw new Error(`GET ${current.nextUri} answered ${next.status}: ${next.text}`);
    validateStatement(next.body, false);
    current = next.body;
    responses.push(current);
  }
  if (current.stats?.state === 'FAILED') throw new Error(`${sql}: ${JSON.stringify(current.error)}`);
  return { rows, responses, segments, texts };
}
