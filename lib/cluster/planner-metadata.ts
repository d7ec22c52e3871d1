// The planner's view of a node's catalogs (lib/planner/planner.types.ts): a table's layout from its
// catalog's connector, for catalogs every worker reads alike; nothing for a catalog one worker holds.
import type { Connectors } from '../connectors/connectors.js';
import type { QueryListings } from '../connectors/connector.types.js';
import type { PlannerMetadata } from '../planner/planner.types.js';

export function plannerMetadataOf(connectors: Pick<Connectors, 'of'>, listings?: QueryListings): PlannerMetadata {
  return {
    table(table) {
      const connector = connectors.of(table.catalog);
      return connector?.shared ? connector.tableLayout?.(table, listings) : undefined;
    },
    // The memory catalog: one worker holds it (statement-route.ts sends its statements there).
    held: (table) => connectors.of(table.catalog)?.connector === 'memory',
  };
}
