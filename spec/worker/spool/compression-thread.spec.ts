// The spooled segments' compression thread (lib/worker/spool/compression-thread.ts): the same bytes as
// encodeSegment writes on the main thread, for zstd and LZ4, decoding back to the rows; and the main thread's
// event loop turns while a large segment compresses (on the main thread it would not turn at all).
import { expect } from 'chai';
import fc from 'fast-check';
import { compressOffThread, stopCompressionThread, type CompressedEncoding } from '../../../lib/worker/spool/compression-thread.js';
import { encodeSegment } from '../../../lib/protocol/spooling/query-data-encoding.js';
import { decodeSegmentBytes } from '../../../lib/protocol/spooling/query-data-decoding.js';
import { loopTurnsDuring } from '../../support/loop-turns.js';

const ENCODINGS: readonly CompressedEncoding[] = ['json+zstd', 'json+lz4'];

/** JSON rows of lineitem's shape, `n` of them, as one array. */
function rowsJson(n: number): Buffer {
  const rows: string[] = [];
  for (let i = 0; i < n; i++) rows.push(`[${i},${i % 7},"${(i * 2654435761) % 100000}","N","O","1996-03-13","DELIVER IN PERSON","TRUCK","egular courts above the"]`);
  return Buffer.from(`[${rows.join(',')}]`);
}

describe('worker spool: the compression thread', () => {
  after(() => stopCompressionThread());

  it('writes the bytes encodeSegment writes, for any JSON text, and they decode back', async () => {
    await fc.assert(
      fc.asyncProperty(fc.json({ maxDepth: 3 }), fc.constantFrom(...ENCODINGS), async (text, encoding) => {
        const json = Buffer.from(text.repeat(1 + Math.floor(9000 / (text.length + 1))));
        const expected = encodeSegment(Buffer.from(json), 1, encoding, 0).bytes;
        const bytes = await compressOffThread(Buffer.from(json), encoding);
        expect(bytes.equals(expected)).to.equal(true);
        expect(decodeSegmentBytes(bytes, encoding, { segmentSize: bytes.length, uncompressedSize: json.length }).equals(json)).to.equal(true);
      }),
      { numRuns: 40 },
    );
  });

  it('takes a slice of a larger buffer (copied, not handed over) and leaves the caller\'s bytes intact', async () => {
    const whole = rowsJson(2000);
    const slice = whole.subarray(1, whole.length - 1);
    const before = Buffer.from(slice);
    for (const encoding of ENCODINGS) {
      const bytes = await compressOffThread(slice, encoding);
      expect(bytes.equals(encodeSegment(before, 1, encoding, 0).bytes)).to.equal(true);
      expect(slice.equals(before)).to.equal(true);
    }
  });

  it('lets the event loop turn while a large segment compresses, and many segments queue in order', async () => {
    const json = rowsJson(60_000); // about 8 MB, a default segment
    for (const encoding of ENCODINGS) {
      const { turns, value: bytes } = await loopTurnsDuring(() => compressOffThread(Buffer.from(json), encoding));
      expect(turns, encoding).to.be.greaterThan(0);
      expect(decodeSegmentBytes(bytes, encoding, { segmentSize: bytes.length, uncompressedSize: json.length }).equals(json)).to.equal(true);
    }
    const many = await Promise.all(Array.from({ length: 8 }, (_, i) => compressOffThread(rowsJson(100 + i), i % 2 ? 'json+lz4' : 'json+zstd')));
    many.forEach((bytes, i) => {
      const json = rowsJson(100 + i);
      expect(decodeSegmentBytes(bytes, i % 2 ? 'json+lz4' : 'json+zstd', { segmentSize: bytes.length, uncompressedSize: json.length }).equals(json)).to.equal(true);
    });
  });
});
