// Figure c through the spooling protocol (issue 23): the same rows as the direct stream (c0), fetched by a
// client that asks for one encoding (X-Trino-Query-Data-Encoding), follows nextUri at the coordinator for the
// segments' addresses, downloads each spooled segment from the worker that wrote it and acknowledges it,
// and decodes every segment as lib/client does (sizes checked against the metadata, zstd or LZ4 undone:
// decodeSegmentBytes). Like c0's no-parse client it does not JSON.parse the rows: it counts them from each
// segment's rowsCount, so the client's CPU stays the protocol's. Downloads are one at a time, in row order
// (lib/client/segment-reader.ts, the Python client's lazy cursor).
import http from 'node:http';
import { decodeSegmentBytes } from '../lib/protocol/spooling/query-data-decoding.js';
import type { QueryDataEncoding } from '../lib/protocol/spooling/query-data-encoding.js';
import { watchLoadCpu, workerPids, type LoadCpu } from './process-cpu.js';
import type { RunningCluster } from './cluster-process.js';
import type { StreamFigures } from './stream.bench.js';

export const SPOOLED_ENCODINGS: readonly QueryDataEncoding[] = ['json', 'json+zstd', 'json+lz4'];

export interface SpooledStreamFigures extends StreamFigures {
  encoding: QueryDataEncoding;
  /** Bytes of the statement responses (from the coordinator). */
  statementBytes: number;
  /** Bytes of the spooled segments downloaded (from the workers) and of the inline ones (base64-decoded). */
  segmentBytes: number;
  /** JSON bytes every segment decoded to. */
  jsonBytes: number;
  inlineSegments: number;
  spooledSegments: number;
}

export interface SpooledRun {
  figures: SpooledStreamFigures;
  /** Coordinator first, then the workers (`workerIds`' order); undefined without /proc. */
  cpu: LoadCpu | undefined;
  workerIds: string[];
}

interface Segment {
  type?: string;
  data?: string;
  uri?: string;
  ackUri?: string;
  metadata?: { rowOffset?: number; rowsCount?: number; segmentSize?: number; uncompressedSize?: number };
}

interface StatementPage {
  nextUri?: string;
  data?: { encoding?: string; segments?: Segment[] } | unknown[];
  error?: { message?: string };
  stats?: { state?: string };
}

function call(agent: http.Agent, method: 'GET' | 'POST', url: string, headers: http.OutgoingHttpHeaders = {}, body?: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { agent, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        if (res.statusCode === 200) resolve(bytes);
        else reject(new Error(`${method} ${url} answered ${res.statusCode}: ${bytes.toString('utf8', 0, 300)}`));
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** `sql` to its end through the spooling protocol in `encoding`; rejects on an HTTP error, a failed query or a segment that does not decode. */
export async function spooledStreamOverHttp(url: string, sql: string, encoding: QueryDataEncoding): Promise<SpooledStreamFigures> {
  // One keep-alive socket per host: the coordinator's, and each worker's.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const acks: Promise<unknown>[] = [];
  const f: SpooledStreamFigures = { encoding, rows: 0, bytes: 0, seconds: 0, pages: 0, statementBytes: 0, segmentBytes: 0, jsonBytes: 0, inlineSegments: 0, spooledSegments: 0 };
  try {
    const start = performance.now();
    let next: string | undefined = `${url}/v1/statement`;
    let method: 'GET' | 'POST' = 'POST';
    while (next !== undefined) {
      const text = await call(agent, method, next, { 'X-Trino-User': 'bench', ...(method === 'POST' ? { 'X-Trino-Query-Data-Encoding': encoding } : {}) }, method === 'POST' ? sql : undefined);
      method = 'GET';
      f.statementBytes += text.length;
      f.pages!++;
      const page = JSON.parse(text.toString('utf8')) as StatementPage;
      if (page.error || page.stats?.state === 'FAILED') throw new Error(`${encoding}: ${page.error?.message ?? 'query failed'}`);
      if (Array.isArray(page.data)) throw new Error(`${encoding}: the server answered data arrays, not segments`);
      if (page.data) {
        if (page.data.encoding !== encoding) throw new Error(`asked for ${encoding}, got ${page.data.encoding}`);
        for (const segment of page.data.segments ?? []) await readSegment(agent, segment, f, acks);
      }
      next = page.nextUri;
    }
    f.seconds = (performance.now() - start) / 1000;
    f.bytes = f.statementBytes + f.segmentBytes;
    await Promise.allSettled(acks);
    return f;
  } finally {
    agent.destroy();
  }
}

async function readSegment(agent: http.Agent, segment: Segment, f: SpooledStreamFigures, acks: Promise<unknown>[]): Promise<void> {
  const { metadata } = segment;
  if (!metadata || metadata.rowOffset !== f.rows || metadata.rowsCount === undefined || metadata.segmentSize === undefined) {
    throw new Error(`${f.encoding}: a segment whose metadata does not follow on at row ${f.rows}: ${JSON.stringify(metadata)}`);
  }
  let bytes: Buffer;
  if (segment.type === 'inline' && segment.data !== undefined) {
    bytes = Buffer.from(segment.data, 'base64');
    f.inlineSegments++;
  } else if (segment.type === 'spooled' && segment.uri !== undefined) {
    bytes = await call(agent, 'GET', segment.uri, { 'Accept-Encoding': 'identity' });
    f.spooledSegments++;
    if (segment.ackUri !== undefined) acks.push(call(agent, 'GET', segment.ackUri).catch(() => undefined));
  } else throw new Error(`${f.encoding}: a segment of type ${segment.type}`);
  f.segmentBytes += bytes.length;
  const json = decodeSegmentBytes(bytes, f.encoding, { segmentSize: metadata.segmentSize, ...(metadata.uncompressedSize === undefined ? {} : { uncompressedSize: metadata.uncompressedSize }) });
  if (json[0] !== 0x5b || json[json.length - 1] !== 0x5d) throw new Error(`${f.encoding}: a segment that is not a JSON array`);
  f.jsonBytes += json.length;
  f.rows += metadata.rowsCount;
}

/** Each encoding in turn through `cluster`, with the CPU of its processes (coordinator first) and of this client. */
export async function measureSpooled(cluster: RunningCluster, sql: string, log: (line: string) => void): Promise<SpooledRun[]> {
  const runs: SpooledRun[] = [];
  for (const encoding of SPOOLED_ENCODINGS) {
    const workers = workerPids(cluster.pid);
    const watch = watchLoadCpu([cluster.pid, ...workers.values()]);
    const figures = await spooledStreamOverHttp(cluster.url, sql, encoding);
    const cpu = watch.stop();
    const { pages, rows, seconds, statementBytes, segmentBytes, spooledSegments, inlineSegments } = figures;
    log(`cluster, spooled ${encoding}: ${JSON.stringify({ rows, seconds: Number(seconds.toFixed(2)), statementBytes, segmentBytes, spooledSegments, inlineSegments, pages })}`);
    runs.push({ figures, cpu, workerIds: [...workers.keys()] });
  }
  return runs;
}

/** A row of the bench's table (run.ts): a figure beside its baseline and target. */
export interface BenchRow {
  figure: string;
  measured: string;
  baseline: string;
  ratio: string;
  target: string;
  verdict: 'ok' | 'MISS' | '-';
}

/** Largest share of all the fetch's CPU (the cluster's processes and the client) the coordinator may take (issue 23 §4). */
const COORDINATOR_SHARE_TARGET = 0.03;
/** Longest json spooled fetch against the engine alone's rendering of the same rows (issue 23 §4). */
const JSON_RATIO_TARGET = 1.15;

const secondsText = (micros: number) => `${(micros / 1e6).toFixed(2)} s`;
const megabytes = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

/** Figure c's rows and notes for the spooled runs, beside the engine alone (`engine`) and c0 (`direct`). */
export function spooledReport(runs: readonly SpooledRun[], engine: StreamFigures, direct: StreamFigures, expectedRows: number): { rows: BenchRow[]; notes: string[] } {
  const rows: BenchRow[] = [];
  const notes: string[] = [];
  for (const { figures: f, cpu, workerIds } of runs) {
    if (f.rows !== expectedRows) throw new Error(`spooled ${f.encoding} returned ${f.rows} rows, expected ${expectedRows}`);
    const ratio = f.seconds / engine.seconds;
    const all = cpu ? cpu.processes.reduce((sum, p) => sum + p.total, cpu.client) : undefined;
    const share = cpu && all ? cpu.processes[0]!.total / all : undefined;
    const judged = f.encoding === 'json';
    rows.push({
      figure: `c. stream, spooled ${f.encoding} via the workers`,
      measured: `${f.seconds.toFixed(2)} s, ${megabytes(f.bytes)} on the wire`,
      baseline: `engine ${engine.seconds.toFixed(2)} s, c0 ${direct.seconds.toFixed(2)} s`,
      ratio: `${ratio.toFixed(2)}x engine${share === undefined ? '' : `, coordinator ${(share * 100).toFixed(1)}% of CPU`}`,
      target: judged ? `<= ${JSON_RATIO_TARGET}x, coordinator < ${COORDINATOR_SHARE_TARGET * 100}%` : '',
      verdict: !judged ? '-' : ratio <= JSON_RATIO_TARGET && share !== undefined && share < COORDINATOR_SHARE_TARGET ? 'ok' : 'MISS',
    });
    const [coordinator, ...workers] = cpu?.processes ?? [];
    notes.push(
      `c. spooled ${f.encoding}: ${(f.statementBytes / 1e3).toFixed(1)} kB of statement responses in ${f.pages} requests, ${megabytes(f.segmentBytes)} of segments `
        + `(${f.spooledSegments} downloaded from the workers, ${f.inlineSegments} inline) decoding to ${megabytes(f.jsonBytes)} of JSON`
        + (cpu && coordinator && all
          ? `; CPU (/proc, all threads): coordinator ${secondsText(coordinator.total)}, ${workers.map((w, i) => `${workerIds[i]} ${secondsText(w.total)} (main thread ${secondsText(w.main)})`).join(', ')}, `
            + `this bench's client ${secondsText(cpu.client)}: ${secondsText(all)} in all, the coordinator ${((coordinator.total / all) * 100).toFixed(1)}% of it `
            + `(${((coordinator.total / (all - cpu.client)) * 100).toFixed(1)}% of the cluster's)`
          : ''),
    );
  }
  return { rows, notes };
}
