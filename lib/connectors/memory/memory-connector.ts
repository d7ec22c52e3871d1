// The memory connector as the planner asks it: its tables live in one worker's DuckDB database (the
// worker started with --memory-catalog), so nothing of it is shared and no scan of it splits.
import type { MemoryCatalogConfig } from '../catalog.types.js';
import type { CatalogConnector } from '../connector.types.js';

export function memoryConnector(config: MemoryCatalogConfig): CatalogConnector {
  return { catalog: config.name, connector: 'memory', shared: false };
}
