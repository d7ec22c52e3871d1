// Spooled segments' zstd and LZ4 compression on one worker thread shared by the worker process. An 8 MB
// segment takes tens of milliseconds to compress, which on the main thread would hold every other query's
// requests (pages, segment downloads, announcements) for that long. lz4-napi's async compress would run on
// libuv's pool, the threads DuckDB's node API works on. Segments queue on the thread, one at a time; the
// bytes are the same as encodeSegment's (query-data-encoding.ts gives the level and the LZ4 rule; a spec
// compares them).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
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

interface Pending {
  resolve: (bytes: Buffer) => void;
  reject: (err: Error) => void;
}

let thread: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 0;

function start(): Worker {
  const require = createRequire(import.meta.url);
  const started = new Worker(THREAD_SOURCE, {
    eval: true,
    workerData: { zstdPath: require.resolve('@bokuweb/zstd-wasm'), lz4Path: require.resolve('lz4-napi'), zstdLevel: ZSTD_LEVEL, lz4Prefix: LZ4_NAPI_SIZE_PREFIX },
  });
  started.on('message', ({ id, bytes, error }: { id: number; bytes?: Uint8Array; error?: string }) => {
    const waiting = pending.get(id);
    if (!waiting) return;
    pending.delete(id);
    if (pending.size === 0) started.unref();
    if (bytes) waiting.resolve(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    else waiting.reject(new Error(`segment compression failed: ${error ?? 'unknown'}`));
  });
  const fail = (err: Error) => {
    if (thread === started) thread = undefined;
    for (const waiting of pending.values()) waiting.reject(err);
    pending.clear();
  };
  started.on('error', fail);
  started.on('exit', (code) => fail(new Error(`segment compression thread exited with code ${code}`)));
  return started;
}

/**
 * `json` compressed as `encoding` on the compression thread. `json` is handed over when it owns its whole
 * memory (then the caller must not use it again), copied otherwise.
 */
export function compressOffThread(json: Buffer, encoding: CompressedEncoding): Promise<Buffer> {
  thread ??= start();
  const target = thread;
  const id = nextId++;
  const owned = json.byteOffset === 0 && json.byteLength === json.buffer.byteLength && json.buffer instanceof ArrayBuffer;
  const payload = owned ? new Uint8Array(json.buffer) : new Uint8Array(json);
  return new Promise<Buffer>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    // Referenced only while a segment is under way: an idle thread never keeps the process alive.
    if (pending.size === 1) target.ref();
    target.postMessage({ id, encoding, json: payload }, [payload.buffer as ArrayBuffer]);
  });
}

/** For specs: the thread ends (a later call starts another). */
export async function stopCompressionThread(): Promise<void> {
  const t = thread;
  thread = undefined;
  if (t) await t.terminate();
}
