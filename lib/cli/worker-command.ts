// `vivace worker --coordinator URL [--port N] [--host H] [--node-id ID] [--data-dir DIR] [--config FILE]
// [--memory-catalog] [--nice N]`: a worker process with its own sandboxed DuckDB. It listens (port 0: any free port),
// prints `vivace worker <nodeId> listening on <url>` (the supervisor reads that line), announces itself to
// the coordinator's discovery, runs the tasks it is sent, and stops gracefully on PUT /v1/info/state.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { defaultConfig, EXCHANGE_CODECS, loadConfigFile, type CoordinatorConfig } from '../config.js';
import { createDuckDbEngine, type DuckDbEngineOptions } from '../engine/duckdb-engine.js';
import { SystemTablesBinding } from '../connectors/system/system-tables.js';
import { createLogger, setDefaultLogger, type Logger } from '../log/logger.js';
import { createAccessControl } from '../security/access-control.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { SystemSnapshots } from '../worker/system-snapshot.js';
import { startWorkerServer } from '../worker/worker-server.js';
import { spoolingKeyOf } from '../spooling/segment-id.js';
import { workerSpoolingOf } from '../spooling/spooling-config.js';
import { Announcer } from '../worker/announcer.js';
import { engineSizingOf } from './engine-options.js';
import { taskMemoryOf } from '../worker/task-memory.js';
import { sweepStaleSpill } from './stale-spill.js';
import { lowerOwnPriority, parseNice } from '../cluster/process-priority.js';
import { catalogDirectory, loadCatalogs } from '../connectors/catalog-files.js';
import { catalogStoreDirectory, dynamicCatalogSettings, type CatalogSync } from '../connectors/dynamic-catalogs.js';
import type { HiveCatalogConfig } from '../connectors/catalog.types.js';
import { connectorsOf } from '../connectors/connectors.js';
import { plannerMetadataOf } from '../cluster/planner-metadata.js';
import { distributedPlanFor } from '../planner/statement-plans.js';
import { inlineSmallFragments } from '../cluster/inline-fragments.js';

export const WORKER_USAGE = 'usage: vivace worker --coordinator URL [--port N] [--host HOST] [--node-id ID] [--data-dir DIR] [--config FILE] [--memory-catalog] [--nice N]';

/**
 * What a worker's engine adds to a node's sizing: a coordinator's short queries (a `SELECT 1`) are most of
 * what a worker may run, and those reading no table skip DuckDB's thread hand-off on an instance of one
 * thread (engine/small-queries.ts; issue 25 b2).
 */
export const WORKER_ENGINE_OPTIONS = { smallQueries: true } as const satisfies Partial<DuckDbEngineOptions>;

/** The file in the data directory that keeps a worker's node id across restarts. */
export const NODE_ID_FILE = 'node-id';
const MAX_NODE_ID_LENGTH = 128;

/** Trino's node.id rule, roughly: letters, digits, `-`, `_` and `.`, not empty, bounded. */
export function isValidNodeId(id: string): boolean {
  if (id === '' || id.length > MAX_NODE_ID_LENGTH) return false;
  for (const c of id) {
    const ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c === '-' || c === '_' || c === '.';
    if (!ok) return false;
  }
  return true;
}

/** The given id, else the one kept in the data directory, else a new one written there (so a restart keeps it). */
export function stableNodeId(dataDir: string, given?: string): string {
  if (given !== undefined) {
    if (!isValidNodeId(given)) throw new VivaceError('INVALID_ARGUMENTS', `--node-id must be 1 to ${MAX_NODE_ID_LENGTH} letters, digits, '-', '_' or '.': ${JSON.stringify(given.slice(0, 200))}`);
    return given;
  }
  const file = join(dataDir, NODE_ID_FILE);
  try {
    const kept = readFileSync(file, 'utf8').trim();
    if (isValidNodeId(kept)) return kept;
  } catch {
    // none yet
  }
  const id = randomUUID();
  writeFileSync(file, `${id}\n`);
  return id;
}

function coordinatorUrlOf(raw: string | undefined): string {
  if (raw === undefined) throw new VivaceError('INVALID_ARGUMENTS', `--coordinator is required\n${WORKER_USAGE}`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new VivaceError('INVALID_ARGUMENTS', `--coordinator is not a URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new VivaceError('INVALID_ARGUMENTS', `--coordinator must be an http or https URL: ${raw}`);
  return raw;
}

/**
 * One line when announcing starts failing (once per outage: warn) and when it works (info). The
 * coordinator is named by its origin: a user:password in --coordinator stays out of the log.
 */
export function announcementLog(logger: Logger, coordinatorUrl: string): (ok: boolean, detail: string) => void {
  const coordinator = new URL(coordinatorUrl).origin;
  return (ok, detail) => {
    if (ok) logger.info({ component: 'worker', event: 'announced', coordinator, detail });
    else logger.warn({ component: 'worker', event: 'announcement_failed', coordinator, detail });
  };
}

/**
 * DuckDB's lock error on the memory catalog's file (another process opened it) as a message that says what
 * to do; undefined for any other error.
 */
export function memoryFileInUse(err: unknown, dataDir: string): VivaceError | undefined {
  const message = err instanceof Error ? err.message : String(err);
  if (!message.includes('Could not set lock on file')) return undefined;
  return new VivaceError(
    'INVALID_ARGUMENTS',
    `The memory catalog's database in ${dataDir} is in use by another process (${message.trim()}); ` +
      'give each worker with --memory-catalog its own --data-dir (a coordinator keeps its local workers\' under data.directory/workers/<port>)',
  );
}

export async function runWorker(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      coordinator: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'node-id': { type: 'string' },
      'data-dir': { type: 'string' },
      config: { type: 'string' },
      'memory-catalog': { type: 'boolean' },
      nice: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(`${WORKER_USAGE}\n`);
    return 0;
  }
  const coordinatorUrl = coordinatorUrlOf(values.coordinator);
  // First: the threads started from here on (DuckDB's, the libuv pool's) inherit the priority.
  if (values.nice !== undefined) lowerOwnPriority(parseNice(values.nice, '--nice'));
  const fromFile = values.config ? loadConfigFile(values.config) : {};
  const config: CoordinatorConfig = { ...defaultConfig(), ...fromFile };
  if (values.host !== undefined) config.host = values.host;
  // A worker takes any free port unless told otherwise: several share a machine with their coordinator.
  const port = values.port !== undefined ? Number(values.port) : fromFile.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new VivaceError('INVALID_ARGUMENTS', `--port must be 0 to 65535: ${values.port}`);
  const dataDir = values['data-dir'] ?? join(config.dataDirectory, 'worker');
  mkdirSync(dataDir, { recursive: true });
  const nodeId = stableNodeId(dataDir, values['node-id']);
  // The process's logger at log.level, before anything that logs (the rules file, the memory catalog's
  // declared types, the worker's own errors); its lines name the node.
  const logger = createLogger({ level: config.logLevel }).child({ nodeId });
  setDefaultLogger(logger);

  // The same rules file as the coordinator's holds its catalogs, schemas and tables rules (masks and row
  // filters included) against each statement here too.
  const accessControl = createAccessControl(config);
  const snapshots = new SystemSnapshots();
  const system = new SystemTablesBinding();
  system.bind(snapshots);
  // The same catalog files as the coordinator's (its local workers are told the directory it resolved).
  const catalogDir = catalogDirectory({ configDirectory: config.catalogConfigDirectory, configFile: values.config, dataDirectory: config.dataDirectory });
  const dynamicStore = config.catalogManagement === 'dynamic' ? catalogStoreDirectory(catalogDir, config.dataDirectory) : undefined;
  const catalogs = loadCatalogs({ configDirectory: catalogDir, dataDirectory: config.dataDirectory, ...(dynamicStore === undefined ? {} : { createdStore: dynamicStore }) });
  // catalog.management=dynamic: created catalogs' roots are allowed in the sandbox from the start; each task
  // brings the cluster's set (CatalogSync), which the engine opens before the task plans.
  const dynamic = dynamicCatalogSettings(config, catalogDir, catalogs);
  const tpchCatalog = catalogs.find((c) => c.connector === 'tpch');
  const memoryConfig = catalogs.find((c) => c.connector === 'memory');
  const hiveCatalogs = catalogs.filter((c): c is HiveCatalogConfig => c.connector === 'hive');
  // No catalog file names a memory catalog: this worker holds none, whatever it was told.
  const memoryCatalog = values['memory-catalog'] === true && memoryConfig !== undefined;
  // EXPLAIN prints a statement's fragments as the coordinator plans them: the same layouts and split thresholds.
  // A query over one table keeps today's one fragment: whether its two stages run is the coordinator's
  // call on the table's splits (distributedPlanOf answers the two-stage shape for any such query).
  const planner = plannerMetadataOf(connectorsOf(catalogs, {
    ...(config.distributedLakeMinBytes === undefined ? {} : { lakeMinBytes: config.distributedLakeMinBytes }),
    ...(config.distributedTpchMinRows === undefined ? {} : { tpchMinRows: config.distributedTpchMinRows }),
  }));
  const engine = await createDuckDbEngine({
    ...engineSizingOf(config),
    ...WORKER_ENGINE_OPTIONS,
    // Served under their files' names (tiny.properties: tiny); their DuckDB databases keep tpch and memory.
    tpch: tpchCatalog ? { directory: tpchCatalog.directory, catalog: tpchCatalog.name } : false,
    system,
    ...(memoryCatalog ? { memoryDirectory: dataDir } : {}),
    memory: memoryConfig ? { catalog: memoryConfig.name } : false,
    ...(accessControl.kind === 'file' ? { access: accessControl } : {}),
    hive: hiveCatalogs,
    ...(dynamic ? { dynamicRoots: dynamic.roots } : {}),
    distributedPlan: (sql, session) => {
      const plan = distributedPlanFor(sql, session, planner);
      return plan && inlineSmallFragments(plan, planner, session);
    },
  }).catch((err: unknown) => Promise.reject(memoryFileInUse(err, dataDir) ?? err));

  // Set once the worker listens (its address is in the announcement).
  // Killed workers' spill directories (their exchange files) would stay in the temp directory for good.
  if (config.tempDirectory === defaultConfig().tempDirectory) sweepStaleSpill();
  // query.max-memory-per-node: each stage task runs under it on a DuckDB instance of its own (task-memory.ts).
  const taskMemory = taskMemoryOf({
    ...(config.maxMemoryPerNodeBytes === undefined ? {} : { limitBytes: config.maxMemoryPerNodeBytes }), tempDirectory: config.tempDirectory, threads: config.engineThreads,
    directories: [config.tempDirectory, ...hiveCatalogs.map((c) => c.root)], hive: hiveCatalogs, ...(tpchCatalog ? { tpchDirectory: tpchCatalog.directory } : {}),
    ...(dynamic ? { dynamicRoots: dynamic.roots } : {}),
  });
  const discovery: { announcer?: Announcer } = {};
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await discovery.announcer?.stop();
    await worker.close();
    await taskMemory?.close();
    await engine.close();
    accessControl.close();
    // The default spill directory belongs to this process alone (vivace-spill-<pid>).
    if (config.tempDirectory === defaultConfig().tempDirectory) rmSync(config.tempDirectory, { recursive: true, force: true });
    process.exit(code);
  };
  const spoolKey = config.spoolingEnabled ? spoolingKeyOf(config) : undefined;
  const worker = await startWorkerServer({
    engine,
    nodeId,
    environment: config.environment,
    host: config.host,
    port,
    ...(config.internalSharedSecret === undefined ? {} : { sharedSecret: config.internalSharedSecret }),
    maxBodyBytes: config.maxBodyBytes,
    maxQueryLength: config.maxQueryLength,
    gracePeriodMs: config.shutdownGracePeriodMs,
    system: snapshots,
    ...(dynamic ? { syncCatalogs: (sync: CatalogSync) => engine.syncCatalogs(sync) } : {}),
    // Stage tasks (a query in two stages, vivace.distributed-tpch on the coordinator): files in the sandbox's temp directory.
    // A leaf reads its splits as its table's connector does (a lake's metadata read here, its files through
    // the engine, whose sandbox allows the roots).
    stages: {
      engine, connectors: connectorsOf(catalogs), directory: join(config.tempDirectory, 'stages'),
      ...(config.exchangeCompressionCodec ? { compression: EXCHANGE_CODECS[config.exchangeCompressionCodec] } : {}),
      ...(taskMemory ? { taskMemory } : {}),
    },
    // Spooling protocol: segments of query results in the worker's own spool, served to clients from here.
    ...(spoolKey ? { spooling: workerSpoolingOf(config, spoolKey, join(dataDir, 'spool')) } : {}),
    leaveDiscovery: async () => discovery.announcer?.stop(),
    onStopped: () => void stop(0),
  });
  // A wildcard address is no address to be reached at: announce the host name instead.
  const wildcard = config.host === '0.0.0.0' || config.host === '::';
  const httpUri = wildcard ? `http://${hostname()}:${worker.port}` : worker.url;
  const announcer = new Announcer({
    coordinatorUrl,
    nodeId,
    environment: config.environment,
    httpUri,
    memory: memoryCatalog,
    ...(config.internalSharedSecret === undefined ? {} : { sharedSecret: config.internalSharedSecret }),
    onChange: announcementLog(logger, coordinatorUrl),
  });
  discovery.announcer = announcer;
  announcer.start();
  // Handlers before the line: whoever reads it may signal at once.
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  process.stdout.write(`vivace worker ${nodeId} listening on ${worker.url}\n`);
  return new Promise<number>(() => {});
}
