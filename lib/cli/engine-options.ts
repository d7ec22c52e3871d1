// The DuckDB engine's sizing from a node's configuration, the same for a coordinator and a worker.
import { memoryLimitOf, type CoordinatorConfig } from '../config.js';
import type { DuckDbEngineOptions } from '../engine/duckdb-engine.js';

export function engineSizingOf(config: CoordinatorConfig): Pick<DuckDbEngineOptions, 'tempDirectory' | 'dataDirectory' | 'memoryLimit' | 'threads' | 'maxConnections' | 'transactions'> {
  return {
    tempDirectory: config.tempDirectory,
    dataDirectory: config.dataDirectory,
    // query.max-memory-per-node when set (it is the worker's: DuckDB's limit is the instance's).
    memoryLimit: memoryLimitOf(config),
    threads: config.engineThreads,
    maxConnections: config.maxRunningQueries,
    transactions: {
      ...(config.maxOpenTransactions === undefined ? {} : { maxOpen: config.maxOpenTransactions }),
      maxOpenPerUser: config.maxOpenTransactionsPerUser,
      idleTimeoutMs: config.transactionIdleTimeoutMs,
    },
  };
}
