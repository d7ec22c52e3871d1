// The rows of a spooling-protocol `data` object ({"encoding", "segments"}), as Trino's CLI reads them:
// inline segments decoded from base64, spooled ones downloaded (without credentials: the id is the key)
// and acknowledged, each decoded (json, json+zstd, json+lz4) and checked against its metadata.
import { decodeSegmentBytes } from '../protocol/spooling/query-data-decoding.js';
import { JsonNumber, parseJsonText, type JsonValue } from './json-text.js';

export interface SegmentFetcher {
  /** The bytes at a spooled segment's uri; rejects on anything but a 2xx. */
  download(uri: string): Promise<Buffer>;
  /** Fire and forget: the client has the segment. */
  acknowledge(uri: string): void;
}

type JsonObject = { [key: string]: JsonValue };

const isObject = (v: JsonValue | undefined): v is JsonObject => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof JsonNumber);
const count = (v: JsonValue | undefined): number | undefined => (v instanceof JsonNumber && /^\d+$/.test(v.text) ? Number(v.text) : undefined);

export class SegmentError extends Error {}

export function isQueryData(data: JsonValue | undefined): data is JsonObject {
  return isObject(data) && typeof data.encoding === 'string' && Array.isArray(data.segments);
}

export async function readSegments(data: JsonObject, fetcher: SegmentFetcher): Promise<JsonValue[][]> {
  const encoding = data.encoding as string;
  const rows: JsonValue[][] = [];
  for (const segment of data.segments as JsonValue[]) {
    if (!isObject(segment) || !isObject(segment.metadata)) throw new SegmentError('A segment without metadata');
    const segmentSize = count(segment.metadata.segmentSize);
    const uncompressedSize = count(segment.metadata.uncompressedSize);
    const rowsCount = count(segment.metadata.rowsCount);
    if (segmentSize === undefined) throw new SegmentError('A segment without segmentSize');
    let bytes: Buffer;
    if (segment.type === 'inline' && typeof segment.data === 'string') bytes = Buffer.from(segment.data, 'base64');
    else if (segment.type === 'spooled' && typeof segment.uri === 'string') {
      bytes = await fetcher.download(segment.uri);
      if (typeof segment.ackUri === 'string') fetcher.acknowledge(segment.ackUri);
    } else throw new SegmentError(`A segment of unknown type ${JSON.stringify(segment.type)}`);
    let decoded: JsonValue;
    try {
      decoded = parseJsonText(decodeSegmentBytes(bytes, encoding, { segmentSize, ...(uncompressedSize === undefined ? {} : { uncompressedSize }) }).toString('utf8'));
    } catch (err) {
      throw new SegmentError(`Cannot decode a ${encoding} segment: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!Array.isArray(decoded) || (rowsCount !== undefined && decoded.length !== rowsCount)) throw new SegmentError(`A ${encoding} segment whose rows are not its rowsCount`);
    for (const row of decoded) if (Array.isArray(row)) rows.push(row);
  }
  return rows;
}
