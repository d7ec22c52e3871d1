// The DuckDB engine's sizing from a node's configuration, the same for a coordinator and a worker.
import type { CoordinatorConfig } from '../config.js';
import type { DuckDbEngineOptions } from '../engine/duckdb-engine.js';

export function engineSizingOf(config: CoordinatorConfig): Pick<DuckDbEngineOptions, 'tempDirectory' | 'dataDirectory' | 'memoryLimit' | 'threads' | 'maxConnections' | 'transactions'> {
  return {
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
  };
}
