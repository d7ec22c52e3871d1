// The coordinator's catalog set, as Trino's CatalogManager keeps it: fixed with catalog.management=static
// (StaticCatalogManager refuses CREATE and DROP CATALOG), changed by them with dynamic
// (CoordinatorDynamicCatalogManager over the file catalog store). Workers learn the set from every task
// (CatalogSync): the coordinator never has to reach a worker to change it, and a worker that restarts or
// joins later has it with its first task.
import { VivaceError } from '../protocol/vivace-error.js';
import type { CatalogConfig } from './catalog.types.js';
import { isServableCatalogName } from './catalog-files.js';
import { createdHiveCatalog, removeCatalogFile, storeCatalogFile, storedProperties, type CatalogSync, type ShippedCatalog } from './dynamic-catalogs.js';

export interface CatalogManagerOptions {
  management: 'static' | 'dynamic';
  /** Where created catalogs' files go (dynamic only). */
  store?: string;
  /** catalog.dynamic-roots, real paths (dynamic only). */
  roots?: readonly string[];
}

export interface CreateCatalogRequest {
  name: string;
  connector: string;
  properties: Record<string, string>;
  notExists: boolean;
}

export class CatalogManager {
  private readonly catalogs = new Map<string, CatalogConfig>();
  /** Hive catalogs from files or CREATE CATALOG: what workers are sent (dynamic only). */
  private readonly shipped = new Map<string, ShippedCatalog>();
  private sync: CatalogSync | undefined;

  constructor(catalogs: readonly CatalogConfig[], private readonly options: CatalogManagerOptions) {
    for (const catalog of catalogs) {
      this.catalogs.set(catalog.name, catalog);
      if (options.management === 'dynamic' && catalog.connector === 'hive' && catalog.file !== undefined) {
        this.shipped.set(catalog.name, { name: catalog.name, properties: storedProperties(catalog.file) });
      }
    }
    this.refresh();
  }

  get dynamic(): boolean {
    return this.options.management === 'dynamic';
  }

  /** The catalogs served now, by name. */
  list(): CatalogConfig[] {
    return [...this.catalogs.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  has(name: string): boolean {
    return this.catalogs.has(name);
  }

  /** What every task carries to its worker (undefined: static, workers keep their files' set). */
  catalogSync(): CatalogSync | undefined {
    return this.sync;
  }

  /**
   * CREATE CATALOG (CreateCatalogTask, CoordinatorDynamicCatalogManager.createCatalog): resolves whether a
   * catalog was created (false: IF NOT EXISTS and it exists).
   */
  create(request: CreateCatalogRequest): boolean {
    if (!this.dynamic) throw new VivaceError('NOT_SUPPORTED', 'CREATE CATALOG is not supported by the static catalog store');
    const { name } = request;
    if (this.catalogs.has(name)) {
      if (request.notExists) return false;
      throw new VivaceError('ALREADY_EXISTS', `Catalog '${name}' already exists`);
    }
    if (!isServableCatalogName(name)) {
      throw new VivaceError('NOT_SUPPORTED', `Catalog name '${name}' cannot be used here: lower-case letters, digits and _ starting with a letter, not a name DuckDB or Vivace keeps`);
    }
    const connector = request.connector.toLowerCase().split('-').join('_');
    if (connector !== 'hive') throw new VivaceError('NOT_SUPPORTED', `CREATE CATALOG supports the hive connector only here, not '${request.connector}' (tpch and memory are one catalog per cluster)`);
    const config = createdHiveCatalog(name, request.properties, this.options.roots ?? [], this.list());
    const file = storeCatalogFile(this.options.store!, name, connector, request.properties);
    this.catalogs.set(name, { ...config, file });
    this.shipped.set(name, { name, properties: { ...request.properties } });
    this.refresh();
    return true;
  }

  /**
   * DROP CATALOG (DropCatalogTask): its file goes, its data stays. `system` and the built-in catalogs (no
   * file) cannot be dropped, nor tpch and memory catalogs (their databases live as long as a worker).
   */
  drop(name: string, exists: boolean, cascade: boolean): boolean {
    if (!this.dynamic) throw new VivaceError('NOT_SUPPORTED', 'DROP CATALOG is not supported by the static catalog store');
    if (cascade) throw new VivaceError('NOT_SUPPORTED', 'CASCADE is not yet supported for DROP SCHEMA');
    const catalog = this.catalogs.get(name);
    if (!catalog) {
      if (exists) return false;
      throw new VivaceError('CATALOG_NOT_FOUND', `Catalog '${name}' not found`);
    }
    if (catalog.connector !== 'hive' || catalog.file === undefined) {
      throw new VivaceError('NOT_SUPPORTED', `Catalog '${name}' cannot be dropped: ${catalog.file === undefined ? 'it is built in' : `the ${catalog.connector} connector's catalog lives as long as the cluster`}`);
    }
    removeCatalogFile(catalog.file);
    this.catalogs.delete(name);
    this.shipped.delete(name);
    this.refresh();
    return true;
  }

  private refresh(): void {
    this.sync = this.dynamic ? { catalogs: [...this.shipped.values()].sort((a, b) => (a.name < b.name ? -1 : 1)) } : undefined;
  }
}
