// `vivace serve [--port 8080] [--host 127.0.0.1] [--config FILE]`: starts a coordinator on embedded DuckDB.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createCoordinator } from '../actors/coordinator.js';
import { defaultConfig, loadConfigFile, type CoordinatorConfig } from '../config.js';
import { createDuckDbEngine } from '../engine/duckdb-engine.js';
import { SystemTablesBinding } from '../engine/catalogs/system-tables.js';
import { createSystemTablesSource } from '../actors/system-tables.source.js';
import { startServer } from '../http/server.js';
import { createAccessControl } from '../security/access-control.js';
import { canSeeQuery } from '../security/query-visibility.js';

const USAGE = `usage: vivace serve [--port PORT] [--host HOST] [--config FILE]`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'serve') {
    process.stderr.write(`${USAGE}\n`);
    return command === undefined || command === '--help' ? 0 : 2;
  }
  const { values } = parseArgs({
    args: rest,
    options: { port: { type: 'string' }, host: { type: 'string' }, config: { type: 'string' } },
  });
  const config: CoordinatorConfig = { ...defaultConfig(), ...(values.config ? loadConfigFile(values.config) : {}) };
  if (values.port !== undefined) config.port = Number(values.port);
  if (values.host !== undefined) config.host = values.host;

  // Rules first (an invalid rules file stops the start), then the engine, then the coordinator whose
  // actors fill the system tables.
  const accessControl = createAccessControl(config);
  const system = new SystemTablesBinding();
  const engine = await createDuckDbEngine({
    tempDirectory: config.tempDirectory,
    dataDirectory: config.dataDirectory,
    memoryLimit: config.engineMemoryLimit,
    threads: config.engineThreads,
    maxConnections: config.maxRunningQueries,
    transactions: {
      ...(config.maxOpenTransactions === undefined ? {} : { maxOpen: config.maxOpenTransactions }),
      maxOpenPerUser: config.maxOpenTransactionsPerUser,
      idleTimeoutMs: config.transactionIdleTimeoutMs,
    },
    // Generated on first use and kept across starts in the user's cache directory.
    tpch: { directory: join(config.dataDirectory, 'tpch') },
    system,
    // Without a rules file every catalog is open: no per-statement check at all.
    ...(accessControl.kind === 'file' ? { catalogAccess: (user: string, catalog: string) => accessControl.catalogAccess(user, catalog) } : {}),
  });
  const coordinator = createCoordinator({ engine, config });
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await server.close();
    await coordinator.stop();
    accessControl.close();
    // The default spill directory belongs to this process alone (vivace-spill-<pid>).
    if (config.tempDirectory === defaultConfig().tempDirectory) rmSync(config.tempDirectory, { recursive: true, force: true });
    process.exit(code);
  };
  const server = await startServer(coordinator, { onShutdown: () => void stop(0), accessControl });
  system.bind(createSystemTablesSource(coordinator, { nodeId: server.nodeId, uri: server.url }, { canViewQueryOwnedBy: (viewer, owner) => canSeeQuery(accessControl, viewer, owner) }));
  process.stdout.write(`vivace coordinator listening on ${server.url}${server.httpsUrl ? ` and ${server.httpsUrl}` : ''} (environment ${config.environment})\n`);
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  return new Promise<number>(() => {});
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`vivace: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
