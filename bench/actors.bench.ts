// What the coordinator's actor layer costs per SELECT 1 (issue 25), without HTTP, a worker or DuckDB: a
// coordinator over a canned one-row engine takes each query as the statement routes do (start, wait past
// planning, wait for results, take the page, read the final view) and renders the three responses. Prints
// the CPU per query (user + system, this process) and the bytes allocated per query, sampled by V8's heap
// profiler with collected objects kept: allocation drives the scavenges, and unlike CPU on the shared
// 2 cores it reads the same from run to run, so it compares two builds where the cluster's figures cannot.
// Usage: node dist/bench/actors.bench.js [queries=20000]   (allocation over a fifth of them, at most 3,000)
import { Session } from 'node:inspector/promises';
import { createCoordinator } from '../lib/actors/coordinator.js';
import { hasResultsReady, isPastPlanning, toQueryView } from '../lib/actors/query-view.js';
import type { Engine, Execution, Plan } from '../lib/engine/engine.types.js';
import { parseSession } from '../lib/protocol/session-headers.js';
import { renderStatement } from '../lib/protocol/statement-response.js';

/** One row, one BIGINT column, whatever the statement: the engine's share stays near nothing. */
const oneRowEngine: Engine = {
  plan: (): Promise<Plan> =>
    Promise.resolve({
      columns: [{ name: '_col0', type: { base: 'bigint' } }],
      execute: (): Execution => {
        let read = false;
        return {
          next: () => {
            const batch = read ? null : { json: '[1]', rows: 1, bytes: 3 };
            read = true;
            return Promise.resolve(batch);
          },
          get exhausted() {
            return read;
          },
          cancel: () => {},
          progress: () => ({ processedRows: read ? 1 : 0, processedBytes: read ? 8 : 0, cpuTimeMillis: 0 }),
        };
      },
      release: () => {},
    }),
  close: () => Promise.resolve(),
};

const coordinator = createCoordinator({ engine: oneRowEngine });
const headers = { 'x-trino-user': 'bench' };
const base = 'http://127.0.0.1:8080';

async function selectOne(): Promise<void> {
  const session = { ...parseSession(headers, { remoteAddress: '127.0.0.1', now: coordinator.now(), prefix: 'X-Trino-' }), user: 'bench' };
  const { tracked } = coordinator.start('SELECT 1', session);
  const posted = await coordinator.waitFor(tracked, isPastPlanning, 1000);
  renderStatement(posted, { infoUri: `${base}/ui/query.html?${posted.queryId}`, nextUri: `${base}/v1/statement/${posted.queryId}/${tracked.slug.token(1)}` }, 'trino');
  await coordinator.waitFor(tracked, hasResultsReady, 1000);
  const ref = tracked.ref!;
  ref.send({ type: 'results.take' });
  const page = toQueryView(ref.getSnapshot());
  renderStatement(page, { infoUri: `${base}/ui/query.html?${page.queryId}`, nextUri: `${base}/v1/statement/${page.queryId}/${tracked.slug.token(2)}` }, 'trino', page.page);
  // The tracker records the end on the next turn (setImmediate), as after the response that ended it.
  await new Promise<void>((resolve) => setImmediate(resolve));
  const last = coordinator.view(tracked);
  renderStatement(last, { infoUri: `${base}/ui/query.html?${last.queryId}` }, 'trino');
}

interface ProfileNode {
  selfSize: number;
  children: ProfileNode[];
}
const allocated = (node: ProfileNode): number => node.children.reduce((sum, child) => sum + allocated(child), node.selfSize);

const queries = Number(process.argv[2] ?? 20_000);
for (let i = 0; i < 3000; i++) await selectOne(); // warm-up: compiled code, the history filled to its bound
const cpu = process.cpuUsage();
for (let i = 0; i < queries; i++) await selectOne();
const used = process.cpuUsage(cpu);

const sampled = Math.min(3000, Math.ceil(queries / 5));
const inspector = new Session();
inspector.connect();
await inspector.post('HeapProfiler.enable');
await inspector.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
for (let i = 0; i < sampled; i++) await selectOne();
const { profile } = await inspector.post('HeapProfiler.stopSampling');
inspector.disconnect();
await coordinator.stop();

process.stdout.write(
  `${JSON.stringify({
    queries,
    cpuMicrosPerQuery: Math.round((used.user + used.system) / queries),
    allocatedKiBPerQuery: Math.round(allocated(profile.head as ProfileNode) / sampled / 1024),
  })}\n`,
);
