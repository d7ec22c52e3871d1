// A segment's bytes back to the JSON text of its rows, as a client of the spooling protocol reads them:
// sizes checked against the metadata (as trino-python-client does), then plain, zstd or raw LZ4.
import { decompress as zstdDecompress, init as zstdInit } from '@bokuweb/zstd-wasm';
import { uncompressSync as lz4Uncompress } from 'lz4-napi';

await zstdInit();

export class SegmentDecodingError extends Error {}

/** The rows' JSON (one array of row arrays) of a segment's bytes; throws SegmentDecodingError when they do not match the metadata. */
export function decodeSegmentBytes(bytes: Buffer, encoding: string, metadata: { segmentSize: number; uncompressedSize?: number }): Buffer {
  if (bytes.length !== metadata.segmentSize) throw new SegmentDecodingError(`Segment of ${bytes.length} bytes where its metadata says ${metadata.segmentSize}`);
  if (metadata.uncompressedSize === undefined) return bytes;
  let plain: Buffer;
  if (encoding === 'json+zstd') plain = Buffer.from(zstdDecompress(bytes));
  else if (encoding === 'json+lz4') {
    // lz4-napi reads lz4_flex's block after a 4-byte little-endian size: the raw block gets it in front.
    const prefixed = Buffer.alloc(bytes.length + 4);
    prefixed.writeUInt32LE(metadata.uncompressedSize, 0);
    bytes.copy(prefixed, 4);
    plain = lz4Uncompress(prefixed);
  } else throw new SegmentDecodingError(`Compressed segment in encoding ${encoding}`);
  if (plain.length !== metadata.uncompressedSize) throw new SegmentDecodingError(`Segment decompressed to ${plain.length} bytes where its metadata says ${metadata.uncompressedSize}`);
  return plain;
}
