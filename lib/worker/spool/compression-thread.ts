// Spooled segments' zstd and LZ4 compression on one worker thread shared by the worker process. An 8 MB
// segment takes tens of milliseconds to compress, which on the main thread would hold every other query's
// requests (pages, segment downloads, announcements) for that long. lz4-napi's async compress would run on
// libuv's pool, the threads DuckDB's node API works on. Segments queue on the thread, one at a time; the
// bytes are the same as encodeSegment's (query-data-encoding.ts gives the level and the LZ4 rule; a spec
// compares them).
import { createRequire } from 'node:module';
import { ThreadQueue } from '../../thread-queue.js';
import { LZ4_NAPI_SIZE_PREFIX, ZSTD_LEVEL } from '../../protocol/spooling/query-data-encoding.js';

export type CompressedEncoding = 'json+zstd' | 'json+lz4';

/** An eval'd CommonJS script: it runs the same under tsx and from dist, and loads both libraries' CommonJS builds. */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const zstd = require(workerData.zstdPath);
const lz4 = require(workerData.lz4Path);
const ready = zstd.init();
function compress(encoding, json) {
  if (encoding === 'json+zstd') return zstd.compress(json, workerData.zstdLevel);
  return lz4.compressSync(Buffer.from(json.buffer, json.byteOffset, json.byteLength)).subarray(workerData.lz4Prefix);
}
parentPort.on('message', async ({ id, encoding, json }) => {
  try {
    await ready;
    const bytes = compress(encoding, json);
    // A copy of its own: zstd's output is a view of the wasm memory, LZ4's of napi's buffer.
    const out = new Uint8Array(bytes.byteLength);
    out.set(bytes);
    parentPort.postMessage({ id, bytes: out }, [out.buffer]);
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message || err) });
  }
});
`;

const require = createRequire(import.meta.url);
const thread = new ThreadQueue<{ encoding: CompressedEncoding; json: Uint8Array }, { bytes?: Uint8Array; error?: string }>('segment compression', THREAD_SOURCE, {
  zstdPath: require.resolve('@bokuweb/zstd-wasm'),
  lz4Path: require.resolve('lz4-napi'),
  zstdLevel: ZSTD_LEVEL,
  lz4Prefix: LZ4_NAPI_SIZE_PREFIX,
});

/**
 * `json` compressed as `encoding` on the compression thread. `json` is handed over when it owns its whole
 * memory (then the caller must not use it again), copied otherwise.
 */
export async function compressOffThread(json: Buffer, encoding: CompressedEncoding): Promise<Buffer> {
  const owned = json.byteOffset === 0 && json.byteLength === json.buffer.byteLength && json.buffer instanceof ArrayBuffer;
  const payload = owned ? new Uint8Array(json.buffer) : new Uint8Array(json);
  const { bytes, error } = await thread.request({ encoding, json: payload }, [payload.buffer as ArrayBuffer]);
  if (!bytes) throw new Error(`segment compression failed: ${error ?? 'unknown'}`);
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** For specs: the thread ends (a later call starts another). */
export const stopCompressionThread = (): Promise<void> => thread.stop();
