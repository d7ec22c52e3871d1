// The connectors of a node's catalog set, by catalog name: the one place that turns a catalog's
// `connector.name` into what the planner and the workers ask (connector.types.ts). A tpch catalog named
// `tiny` splits and routes exactly as one named `tpch`.
import type { CatalogConfig, ConnectorName } from './catalog.types.js';
import type { CatalogConnector, ConnectorFactory, ConnectorOptions } from './connector.types.js';
import { tpchConnector } from './tpch/tpch-connector.js';
import { memoryConnector } from './memory/memory-connector.js';
import { systemConnector } from './system/system-connector.js';
import { hiveConnector } from './hive/hive-connector.js';

const FACTORIES: { [N in ConnectorName]: ConnectorFactory<Extract<CatalogConfig, { connector: N }>> } = {
  tpch: tpchConnector,
  memory: memoryConnector,
  system: systemConnector,
  hive: hiveConnector,
};

export class Connectors {
  private readonly byCatalog: ReadonlyMap<string, CatalogConnector>;
  /** Catalogs whose scans may split (the stage planner's candidates). */
  readonly splittable: ReadonlySet<string>;
  /** Catalogs every worker reads alike: a read-only query over them runs on any worker. */
  readonly shared: ReadonlySet<string>;

  constructor(connectors: readonly CatalogConnector[]) {
    this.byCatalog = new Map(connectors.map((c) => [c.catalog, c]));
    this.splittable = new Set(connectors.filter((c) => c.scanSplits !== undefined).map((c) => c.catalog));
    this.shared = new Set(connectors.filter((c) => c.shared).map((c) => c.catalog));
  }

  /** The connector of a catalog (its name as users write it, lower case); undefined: no such catalog here. */
  of(catalog: string): CatalogConnector | undefined {
    return this.byCatalog.get(catalog);
  }
}

/** The connectors of `catalogs`, each made from its configuration. */
export function connectorsOf(catalogs: readonly CatalogConfig[], options: ConnectorOptions = {}): Connectors {
  return new Connectors(catalogs.map((c) => (FACTORIES[c.connector] as ConnectorFactory)(c, options)));
}
