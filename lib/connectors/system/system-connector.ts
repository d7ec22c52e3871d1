// The system connector as the planner asks it: its tables list each node's own objects (the memory
// catalog's tables, the worker's sessions), so a query over them goes where those objects are, and none
// splits. system.runtime, the coordinator's rows sent with the statement, is routed apart (statement-route.ts).
import type { SystemCatalogConfig } from '../catalog.types.js';
import type { CatalogConnector } from '../connector.types.js';

export function systemConnector(config: SystemCatalogConfig): CatalogConnector {
  return { catalog: config.name, connector: 'system', shared: false };
}
