// The spooling protocol's configuration: Trino's property names (SpoolingConfig, QueryDataEncodingConfig,
// the filesystem spooling manager's fs.segment.ttl) and the one of our own, the spool directory's cap.
import { parseDataSize } from '../protocol/data-size.js';
import { parseDuration } from '../protocol/duration.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { QUERY_DATA_ENCODINGS, DEFAULT_COMPRESSION_THRESHOLD, type QueryDataEncoding } from '../protocol/spooling/query-data-encoding.js';
import type { SegmentLinks } from '../protocol/spooling/query-data.js';

export type RetrievalMode = 'STORAGE' | 'COORDINATOR_PROXY';

export interface SpoolingConfig {
  /** protocol.spooling.enabled (true here; Trino's code default is false, its docs say true) */
  spoolingEnabled: boolean;
  /** protocol.spooling.shared-secret-key: 256 bits, base64, the same on every node; absent: derived (spool-key.ts) */
  spoolingSharedSecretKey?: Buffer;
  /** protocol.spooling.retrieval-mode: STORAGE (the worker serves its segments) or COORDINATOR_PROXY */
  spoolingRetrievalMode: RetrievalMode;
  /** protocol.spooling.inlining.enabled / max-rows / max-size: a worker's page within both goes inline */
  spoolingInliningEnabled: boolean;
  spoolingInliningMaxRows: number;
  spoolingInliningMaxBytes: number;
  /** protocol.spooling.initial-segment-size: JSON bytes of rows per spooled segment */
  spoolingSegmentBytes: number;
  /** protocol.spooling.encoding.{json,json+zstd,json+lz4}.enabled */
  spoolingJsonEnabled: boolean;
  spoolingJsonZstdEnabled: boolean;
  spoolingJsonLz4Enabled: boolean;
  /** protocol.spooling.encoding.compression.threshold: smaller segments stay plain JSON */
  spoolingCompressionThreshold: number;
  /** fs.segment.ttl: a segment not acknowledged is removed this long after it was written */
  spoolingSegmentTtlMs: number;
  /** vivace.spooling.max-size: bytes a worker's spool directory may hold; past it a page goes inline */
  spoolingMaxBytes: number;
  /** vivace.spooling.memory-size: bytes of unacknowledged segments a worker serves from memory before writing the oldest to its spool directory */
  spoolingMemoryBytes: number;
}

/** Segments' bytes a worker holds in memory by default: eight 8 MB segments. */
export const DEFAULT_SPOOL_MEMORY_BYTES = 64 << 20;

export function defaultSpoolingConfig(): SpoolingConfig {
  return {
    spoolingEnabled: true,
    spoolingRetrievalMode: 'STORAGE',
    spoolingInliningEnabled: true,
    spoolingInliningMaxRows: 1000,
    spoolingInliningMaxBytes: 128 * 1024,
    spoolingSegmentBytes: 8 << 20,
    spoolingJsonEnabled: true,
    spoolingJsonZstdEnabled: true,
    spoolingJsonLz4Enabled: true,
    spoolingCompressionThreshold: DEFAULT_COMPRESSION_THRESHOLD,
    spoolingSegmentTtlMs: 12 * 3_600_000,
    spoolingMaxBytes: 4 * 1024 ** 3,
    spoolingMemoryBytes: DEFAULT_SPOOL_MEMORY_BYTES,
  };
}

const bool = (value: string, key: string): boolean => {
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === 'false') return v === 'true';
  throw new VivaceError('INVALID_ARGUMENTS', `${key} must be true or false: ${value}`);
};

const size = (value: string, key: string, min: number, max = Number.MAX_SAFE_INTEGER): number => {
  let bytes: number;
  try {
    bytes = parseDataSize(value);
  } catch (e) {
    throw new VivaceError('INVALID_ARGUMENTS', `${key}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!(bytes >= min && bytes <= max)) throw new VivaceError('INVALID_ARGUMENTS', `${key} must be from ${min}B to ${max}B: ${value}`);
  return Math.round(bytes);
};

function sharedSecretKey(value: string): Buffer {
  const key = Buffer.from(value.trim(), 'base64');
  if (key.length !== 32) throw new VivaceError('INVALID_ARGUMENTS', 'protocol.spooling.shared-secret-key must be 256 bits long (32 bytes, base64)');
  return key;
}

function retrievalMode(value: string): RetrievalMode {
  const v = value.trim().toUpperCase();
  if (v !== 'STORAGE' && v !== 'COORDINATOR_PROXY') throw new VivaceError('INVALID_ARGUMENTS', `protocol.spooling.retrieval-mode must be STORAGE or COORDINATOR_PROXY: ${value}`);
  return v;
}

const ENCODING_FIELDS = { json: 'spoolingJsonEnabled', 'json+zstd': 'spoolingJsonZstdEnabled', 'json+lz4': 'spoolingJsonLz4Enabled' } as const;

/** The encodings on, in Trino's order (the client's order decides among them). */
export function enabledEncodings(config: Pick<SpoolingConfig, (typeof ENCODING_FIELDS)[QueryDataEncoding]>): QueryDataEncoding[] {
  return QUERY_DATA_ENCODINGS.filter((e) => config[ENCODING_FIELDS[e]]);
}

const encodingSwitch = (encoding: QueryDataEncoding) => (v: string): Partial<SpoolingConfig> => ({
  [ENCODING_FIELDS[encoding]]: bool(v, `protocol.spooling.encoding.${encoding}.enabled`),
});

export const SPOOLING_PROPERTIES: Record<string, (value: string) => Partial<SpoolingConfig>> = {
  'protocol.spooling.enabled': (v) => ({ spoolingEnabled: bool(v, 'protocol.spooling.enabled') }),
  'protocol.spooling.shared-secret-key': (v) => ({ spoolingSharedSecretKey: sharedSecretKey(v) }),
  'protocol.spooling.retrieval-mode': (v) => ({ spoolingRetrievalMode: retrievalMode(v) }),
  'protocol.spooling.inlining.enabled': (v) => ({ spoolingInliningEnabled: bool(v, 'protocol.spooling.inlining.enabled') }),
  'protocol.spooling.inlining.max-rows': (v) => {
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < 0) throw new VivaceError('INVALID_ARGUMENTS', `protocol.spooling.inlining.max-rows must be a non-negative integer: ${v}`);
    return { spoolingInliningMaxRows: n };
  },
  'protocol.spooling.inlining.max-size': (v) => ({ spoolingInliningMaxBytes: size(v, 'protocol.spooling.inlining.max-size', 0) }),
  'protocol.spooling.initial-segment-size': (v) => ({ spoolingSegmentBytes: size(v, 'protocol.spooling.initial-segment-size', 1024, 1 << 30) }),
  'protocol.spooling.encoding.json.enabled': encodingSwitch('json'),
  'protocol.spooling.encoding.json+zstd.enabled': encodingSwitch('json+zstd'),
  'protocol.spooling.encoding.json+lz4.enabled': encodingSwitch('json+lz4'),
  // QueryDataEncodingConfig: @MinDataSize("1kB") @MaxDataSize("4MB").
  'protocol.spooling.encoding.compression.threshold': (v) => ({ spoolingCompressionThreshold: size(v, 'protocol.spooling.encoding.compression.threshold', 1024, 4 << 20) }),
  'fs.segment.ttl': (v) => {
    const ms = parseDuration(v);
    if (!(ms > 0 && ms <= 2 ** 31 - 1)) throw new VivaceError('INVALID_ARGUMENTS', `fs.segment.ttl must be a duration above 0s and up to 24d: ${v}`);
    return { spoolingSegmentTtlMs: Math.round(ms) };
  },
  'vivace.spooling.max-size': (v) => ({ spoolingMaxBytes: size(v, 'vivace.spooling.max-size', 0) }),
  // Held segments are counted against the worker's heap, so the cap stays well below Node's default old space.
  'vivace.spooling.memory-size': (v) => ({ spoolingMemoryBytes: size(v, 'vivace.spooling.memory-size', 0, 1 << 30) }),
};

/** Where the statement responses send clients for spooled segments: the coordinator itself under COORDINATOR_PROXY. */
export function segmentLinks(config: Pick<SpoolingConfig, 'spoolingRetrievalMode' | 'spoolingCompressionThreshold'>, coordinatorBase: string): SegmentLinks {
  return { compressionThreshold: config.spoolingCompressionThreshold, ...(config.spoolingRetrievalMode === 'COORDINATOR_PROXY' ? { proxyBase: coordinatorBase } : {}) };
}

/** A worker's spool and inlining limits from the configuration (worker-server.ts `spooling`). */
export function workerSpoolingOf(config: SpoolingConfig, key: Buffer, directory: string) {
  return {
    directory,
    key,
    maxBytes: config.spoolingMaxBytes,
    memoryBytes: config.spoolingMemoryBytes,
    ttlMs: config.spoolingSegmentTtlMs,
    compressionThreshold: config.spoolingCompressionThreshold,
    inliningEnabled: config.spoolingInliningEnabled,
    inliningMaxRows: config.spoolingInliningMaxRows,
    inliningMaxBytes: config.spoolingInliningMaxBytes,
    segmentBytes: config.spoolingSegmentBytes,
  };
}
