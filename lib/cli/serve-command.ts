// `vivace serve [--port 8080] [--host 127.0.0.1] [--config FILE] [--workers N] [--data-dir DIR]`: the
// coordinator. It runs no user SQL: every statement goes to a worker (RemoteEngine), workers it starts itself
// (N local worker processes, 2 by default) and any that join with `vivace worker --coordinator URL`. It prints
// a line when it listens and another when it can take statements (its required workers are active).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { historyStoreOf } from '../history/history-store.js';
import { eventListenerPropertiesPath, HttpEventListener, readEventListenerProperties } from '../history/http-event-listener.js';
import { watchQueryEvents } from '../metrics/query-events.js';
import { createCoordinator } from '../actors/coordinator.js';
import { createSystemTablesSource } from '../actors/system-tables.source.js';
import { ClusterSizeMonitor } from '../cluster/cluster-size-monitor.js';
import { LocalWorkers, localWorkersDirectory } from '../cluster/local-workers.js';
import { clusterWorkers, RemoteEngine, type WorkerNode } from '../cluster/remote-engine.js';
import { claimWorkersDirectory, type WorkersDirectoryClaim } from '../cluster/workers-directory-claim.js';
import type { SystemTablesSource } from '../connectors/system/system-tables.js';
import { catalogDirectory, loadCatalogs } from '../connectors/catalog-files.js';
import { connectorsOf } from '../connectors/connectors.js';
import { CatalogManager } from '../connectors/catalog-manager.js';
import { catalogStoreDirectory, dynamicCatalogSettings } from '../connectors/dynamic-catalogs.js';
import { CatalogStatementsEngine, catalogRulesOf } from '../cluster/catalog-statements.js';
import { defaultConfig, loadConfigFile, memoryLimitOf, type CoordinatorConfig } from '../config.js';
import { coordinatorDiscovery } from '../http/announcement.routes.js';
import { startServer, type RunningServer } from '../http/server.js';
import { createAccessControl } from '../security/access-control.js';
import { createLogger, setDefaultLogger } from '../log/logger.js';
import { canSeeQuery } from '../security/query-visibility.js';
import { readResourceGroupsProperties, resourceGroupsPropertiesPath, ResourceGroupsFile } from '../resource-groups/resource-groups-file.js';
import { FileGroupProvider, groupProviderPropertiesPath, readGroupProviderProperties } from '../resource-groups/file-group-provider.js';
import { parseDataSize } from '../protocol/data-size.js';

export const SERVE_USAGE = 'usage: vivace serve [--port PORT] [--host HOST] [--config FILE] [--workers N] [--data-dir DIR]';

const DEFAULT_LOCAL_WORKERS = 2;
const MAX_LOCAL_WORKERS = 64;

export async function runServe(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { port: { type: 'string' }, host: { type: 'string' }, config: { type: 'string' }, workers: { type: 'string' }, 'data-dir': { type: 'string' } },
  });
  const configText = values.config === undefined ? undefined : readFileSync(values.config, 'utf8');
  const config: CoordinatorConfig = { ...defaultConfig(), ...(values.config ? loadConfigFile(values.config) : {}) };
  if (values.port !== undefined) config.port = Number(values.port);
  if (values.host !== undefined) config.host = values.host;
  if (values['data-dir'] !== undefined) {
    if (values['data-dir'].trim() === '') {
      process.stderr.write('vivace: --data-dir takes a directory\n');
      return 2;
    }
    config.dataDirectory = values['data-dir'];
  }
  // Its workers' memory limit is checked here too: a configuration they would refuse stops the start.
  memoryLimitOf(config);
  const workerCount = values.workers === undefined ? DEFAULT_LOCAL_WORKERS : Number(values.workers);
  if (!Number.isSafeInteger(workerCount) || workerCount < 0 || workerCount > MAX_LOCAL_WORKERS) {
    process.stderr.write(`vivace: --workers takes a number from 0 to ${MAX_LOCAL_WORKERS}\n`);
    return 2;
  }
  // Local workers and no secret configured: one made up for this start, so that nobody else on the
  // machine can join the cluster or read its tasks (remote workers need a configured one).
  if (config.internalSharedSecret === undefined && workerCount > 0) config.internalSharedSecret = randomBytes(32).toString('base64url');

  // The process's one logger at log.level: the server's lines and those of code without a server at hand.
  const logger = createLogger({ level: config.logLevel });
  setDefaultLogger(logger);
  // Rules first (an invalid rules file stops the start), and the catalog files (so does a bad one).
  const accessControl = createAccessControl(config);
  // etc/resource-groups.properties: a broken resource-groups file stops the start too; later, a change is
  // taken when it reads well (the dispatcher reconfigures its groups) and logged when it does not.
  const groupsProperties = resourceGroupsPropertiesPath(values.config);
  const groupsFile = groupsProperties === undefined ? undefined : new ResourceGroupsFile(readResourceGroupsProperties(groupsProperties), {
    onChange: (resourceGroups) => coordinator.tracker.getSnapshot().context.dispatcher.send({ type: 'dispatcher.configure', resourceGroups }),
    logger,
  });
  // etc/group-provider.properties: Trino's file group provider, the selectors' userGroup (a broken file stops the start).
  const groupProviderFile = groupProviderPropertiesPath(values.config);
  const groupProvider = groupProviderFile === undefined ? undefined : new FileGroupProvider(readGroupProviderProperties(groupProviderFile), { logger });
  // etc/event-listener.properties: Trino's HTTP event listener (a broken file stops the start).
  const eventListenerFile = eventListenerPropertiesPath(values.config);
  const eventListenerSettings = eventListenerFile === undefined ? undefined : readEventListenerProperties(eventListenerFile);
  const catalogDir = catalogDirectory({ configDirectory: config.catalogConfigDirectory, configFile: values.config, dataDirectory: config.dataDirectory });
  const dynamicStore = config.catalogManagement === 'dynamic' ? catalogStoreDirectory(catalogDir, config.dataDirectory) : undefined;
  const catalogs = loadCatalogs({ configDirectory: catalogDir, dataDirectory: config.dataDirectory, ...(dynamicStore === undefined ? {} : { createdStore: dynamicStore }) });
  // catalog.management: static (the files' set, Trino's default) or dynamic (CREATE and DROP CATALOG).
  const dynamic = dynamicCatalogSettings(config, catalogDir, catalogs);
  const catalogManager = new CatalogManager(catalogs, dynamic ? { management: 'dynamic', store: dynamic.store, roots: dynamic.roots } : { management: 'static' });
  // Bound once the coordinator and its server exist: the engine is created before them.
  const late: { workers?: () => WorkerNode[]; server?: RunningServer; system?: SystemTablesSource } = {};
  const nodeId = () => late.server?.nodeId ?? 'coordinator';
  // Statements wait for the required workers (query-manager.required-workers), and the start is over once
  // they are active (/v1/info `starting`, the ready line below).
  // With local workers, worker-0 holds the memory catalog: the start also waits for it, and so does a
  // statement for that catalog until it was first alive (later, a dead memory worker fails it at once).
  // No catalog file names a memory catalog: no worker holds one, and nothing waits for it.
  const memoryCatalog = catalogs.some((c) => c.connector === 'memory');
  let memoryWorkerSeen = workerCount === 0 || !memoryCatalog;
  const memoryWorkerSeenAlive = () => (memoryWorkerSeen ||= (late.workers?.() ?? []).some((w) => w.memory && w.alive));
  const clusterSize = new ClusterSizeMonitor({
    activeWorkers: () => (late.workers?.() ?? []).filter((w) => w.alive).length,
    requiredWorkers: config.requiredWorkers,
    maxWaitMs: config.requiredWorkersMaxWaitMs,
    startedWhen: memoryWorkerSeenAlive,
  });
  const remote = new RemoteEngine({
    workers: () => late.workers?.() ?? [],
    nodeId,
    ...(config.internalSharedSecret === undefined ? {} : { sharedSecret: config.internalSharedSecret }),
    systemSnapshot: async (viewer, completed) => {
      const system = late.system;
      if (!system) return {};
      // The stored history is read from its files, without blocking: only for a statement that reads the table.
      const completedQueries = completed ? await system.loadCompletedQueries?.(viewer) : undefined;
      return { nodes: system.nodes(), queries: system.queries(viewer), tasks: system.tasks(), ...(completed ? { completedQueries: completedQueries ?? [] } : {}) };
    },
    firstBatchBytes: config.targetResultBytes,
    // Statements sent while the local workers start wait for them, so `make run` answers its first query
    // instead of NO_NODES_AVAILABLE.
    waitForWorkers: (abort) => clusterSize.waitForMinimumWorkers(abort),
    waitForMemoryWorker: (abort) => clusterSize.waitUntil(memoryWorkerSeenAlive, abort),
    // The catalogs' connectors: which ones every worker reads alike, and how their scans split. Two stages
    // across the workers for queries over one large table (staged-query.ts), on by default: a tpch table
    // of vivace.distributed-tpch-min-rows, a lake table of vivace.distributed-lake-min-bytes of files.
    connectors: connectorsOf(catalogs, {
      tpchPlanWithoutManifest: workerCount === 0,
      ...(config.distributedLakeMinBytes === undefined ? {} : { lakeMinBytes: config.distributedLakeMinBytes }),
      ...(config.distributedTpchMinRows === undefined ? {} : { tpchMinRows: config.distributedTpchMinRows }),
    }),
    ...(config.distributedTpch === true ? { stages: { guarded: (user, table) => accessControl.tableGuard(user, table) !== undefined } } : {}),
    // Dynamic: every task carries the catalog set, so each worker (one restarted or joining later too) has it.
    catalogSync: () => catalogManager.catalogSync(),
    // Told to the query info of each query whose spooled segments the lost worker held.
    onSpooledSegmentsLost: (queryId, nodeId) => coordinator.spooledSegmentsLost(queryId, nodeId),
  });
  // CREATE and DROP CATALOG run here, on the catalog set's owner; the rest on the workers.
  const engine = new CatalogStatementsEngine(remote, catalogManager, catalogRulesOf(accessControl));
  // softMemoryLimit percentages are of the local workers' memory (DuckDB's limit on each).
  const resourceGroups = groupsFile && { resourceGroups: groupsFile.current, clusterMemoryBytes: parseDataSize(memoryLimitOf(config)) * Math.max(1, workerCount) };
  // The durable query history under <data.directory>/history (query.history.*), read back at start.
  const history = historyStoreOf(config, Date.now, (message, err) => logger.warn({ event: 'query_history_error', message, error: String(err) }));
  const coordinator = createCoordinator({ engine, config, cluster: clusterSize, ...(resourceGroups ? { resourceGroups } : {}), ...(groupProvider ? { userGroups: (user: string) => groupProvider.groupsOf(user) } : {}), ...(history ? { history } : {}) });
  // Discovery's workers with the failure detector's verdict.
  late.workers = clusterWorkers(() => coordinatorDiscovery(coordinator, nodeId()).list(), () => coordinator.nodes(), () => coordinator.nodesVersion());

  const privateDir = mkdtempSync(join(tmpdir(), 'vivace-coordinator-')); // 0700: the workers' config with the secret
  let localWorkers: LocalWorkers | undefined;
  let claim: WorkersDirectoryClaim | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    clusterSize.stop();
    await localWorkers?.stop();
    claim?.release();
    await server.close();
    await coordinator.stop();
    accessControl.close();
    groupsFile?.stop();
    rmSync(privateDir, { recursive: true, force: true });
    process.exit(code);
  };
  const server = await startServer(coordinator, { onShutdown: () => void stop(0), accessControl, logger });
  late.server = server;
  if (eventListenerSettings) {
    const listener = new HttpEventListener({
      settings: eventListenerSettings,
      server: { environment: config.environment, serverVersion: config.nodeVersion, serverAddress: new URL(server.url).hostname, uri: server.url },
      onDropped: (queryId, reason) => logger.warn({ event: 'query_event_dropped', queryId, reason }),
    });
    watchQueryEvents(coordinator, [listener]);
  }
  groupsFile?.start();
  coordinatorDiscovery(coordinator, server.nodeId);
  late.system = createSystemTablesSource(coordinator, { nodeId: server.nodeId, uri: server.url }, { canViewQueryOwnedBy: (viewer, owner) => canSeeQuery(accessControl, viewer, owner) });
  process.stdout.write(`vivace coordinator listening on ${server.url}${server.httpsUrl ? ` and ${server.httpsUrl}` : ''} (environment ${config.environment})\n`);
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  const listening = Date.now();
  clusterSize.start(() => {
    const active = (late.workers?.() ?? []).filter((w) => w.alive).length;
    process.stdout.write(`vivace coordinator ready for statements: ${active} active worker${active === 1 ? '' : 's'} (query-manager.required-workers=${config.requiredWorkers}), ${Date.now() - listening} ms after listening\n`);
  });

  if (workerCount > 0) {
    const configFile = join(privateDir, 'worker.properties');
    // The user's settings, then what the workers must share with this coordinator (last one wins).
    // The catalog directory and data directory as this coordinator resolved them (--data-dir included),
    // so every local worker serves the same catalogs over the same paths.
    const shared = [
      `node.environment=${config.environment}`,
      `internal-communication.shared-secret=${config.internalSharedSecret}`,
      `data.directory=${propertyValue(config.dataDirectory)}`,
      ...(catalogDir === undefined ? [] : [`catalog.config-dir=${propertyValue(catalogDir)}`]),
    ];
    writeFileSync(configFile, `${configText ?? ''}\n${shared.join('\n')}\n`, { mode: 0o600 });
    // Each coordinator's workers keep their data (the memory catalog's file) under a directory of its own
    // port, so two on one machine (a test run beside `make run`) share the tpch cache but not a DuckDB file.
    const dataDirectory = localWorkersDirectory(config.dataDirectory, new URL(server.url).port || config.port);
    try {
      claim = claimWorkersDirectory(dataDirectory);
    } catch (err) {
      process.stderr.write(`vivace: ${(err as Error).message}\n`);
      void stop(1);
      return new Promise<number>(() => {});
    }
    localWorkers = new LocalWorkers({ count: workerCount, coordinatorUrl: server.url, dataDirectory, configFile, nice: config.localWorkersNice, memoryCatalog });
    const workers = localWorkers;
    // Children never outlive the coordinator: on any exit, and (orphan guard) if it is killed.
    process.on('exit', () => workers.killAll());
    workers.start();
  }
  return new Promise<number>(() => {});
}

/** A value as one properties line keeps it (the workers' file is read back by the same parser). */
function propertyValue(value: string): string {
  if (value.includes('\n') || value.includes('\r')) throw new Error(`A directory name with a line break cannot be passed to the workers: ${JSON.stringify(value)}`);
  return value;
}
