// The spooling protocol's encodings (Trino's QueryDataEncoder): which one a client gets, and a segment's
// bytes and metadata from rendered rows. `json` is the rows as one JSON array; `json+zstd` one zstd frame
// with its content size in the header; `json+lz4` a raw LZ4 block. Under the compression threshold a
// segment stays plain JSON without uncompressedSize, whatever the encoding (CompressedQueryDataEncoder).
import { compress as zstdCompress, init as zstdInit } from '@bokuweb/zstd-wasm';
import { compressSync as lz4CompressSync } from 'lz4-napi';

export const QUERY_DATA_ENCODINGS = ['json', 'json+zstd', 'json+lz4'] as const;
export type QueryDataEncoding = (typeof QUERY_DATA_ENCODINGS)[number];

/** protocol.spooling.encoding.compression.threshold: Trino's default, 8kB. */
export const DEFAULT_COMPRESSION_THRESHOLD = 8 * 1024;

/** Longest header value looked at: a client lists three encodings, not thousands. */
const MAX_HEADER_LENGTH = 1024;

/**
 * The first encoding of the client's list (Query-Data-Encoding: comma-separated, its order wins:
 * PreferredQueryDataEncoderSelector) that the server supports and has enabled; undefined: answer arrays.
 */
export function chooseEncoding(header: string | undefined, enabled: readonly QueryDataEncoding[] = QUERY_DATA_ENCODINGS): QueryDataEncoding | undefined {
  if (header === undefined || header.length > MAX_HEADER_LENGTH) return undefined;
  for (const part of header.split(',')) {
    const name = part.trim();
    const found = enabled.find((e) => e === name);
    if (found) return found;
  }
  return undefined;
}

export function isQueryDataEncoding(value: unknown): value is QueryDataEncoding {
  return typeof value === 'string' && (QUERY_DATA_ENCODINGS as readonly string[]).includes(value);
}

/** A segment's metadata as the wire names it (DataAttribute): only these keys, JSON numbers. */
export interface SegmentMetadata {
  rowOffset: number;
  rowsCount: number;
  segmentSize: number;
  uncompressedSize?: number;
  expiresAt?: string;
}

export interface EncodedSegment {
  bytes: Buffer;
  rowsCount: number;
  segmentSize: number;
  /** Only when compressed. */
  uncompressedSize?: number;
}

const OPEN = Buffer.from('[');
const CLOSE = Buffer.from(']');

/** The rows (RowBatch.json: rows joined by commas, no brackets) as the one JSON array a segment decodes to. */
export function segmentJson(rows: string | readonly Buffer[]): Buffer {
  if (typeof rows === 'string') return Buffer.from(`[${rows}]`, 'utf8');
  return Buffer.concat([OPEN, ...rows, CLOSE]);
}

await zstdInit();

/** zstd level: 1 compressed our JSON rows faster and no larger than 3 (zstd's default) in the measurement of the commit that chose the library. */
export const ZSTD_LEVEL = 1;

/** lz4-napi writes lz4_flex's block after a 4-byte little-endian size; Trino's raw block (airlift Lz4Compressor) has none. */
export const LZ4_NAPI_SIZE_PREFIX = 4;

/** Whether a segment of `jsonBytes` goes as plain JSON: always under `json`, and under `threshold` bytes whatever the encoding (Trino's compression threshold). */
export const staysPlain = (encoding: QueryDataEncoding, jsonBytes: number, threshold: number): boolean => encoding === 'json' || jsonBytes < threshold;

/** The JSON array `json` encoded as `encoding` asks, left plain under `threshold` bytes. */
export function encodeSegment(json: Buffer, rowsCount: number, encoding: QueryDataEncoding, threshold = DEFAULT_COMPRESSION_THRESHOLD): EncodedSegment {
  if (staysPlain(encoding, json.length, threshold)) return { bytes: json, rowsCount, segmentSize: json.length };
  const bytes = encoding === 'json+zstd' ? Buffer.from(zstdCompress(json, ZSTD_LEVEL)) : lz4Block(json);
  return { bytes, rowsCount, segmentSize: bytes.length, uncompressedSize: json.length };
}

/** A raw LZ4 block (Trino's airlift Lz4Compressor). */
function lz4Block(json: Buffer): Buffer {
  return lz4CompressSync(json).subarray(LZ4_NAPI_SIZE_PREFIX);
}
