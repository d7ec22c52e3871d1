// The catalog session properties of the catalogs this process serves (a hive catalog's, registered when it
// opens, with its configuration's defaults): what SET SESSION, RESET SESSION, SHOW SESSION and the
// check of a query's Session header ask about `<catalog>.<property>`.
import type { CatalogSessionEntry, CatalogSessionLookup } from '../../protocol/catalog-session-properties.js';

const BY_CATALOG = new Map<string, readonly CatalogSessionEntry[]>();

export function registerCatalogSessionProperties(catalog: string, entries: readonly CatalogSessionEntry[]): void {
  BY_CATALOG.set(catalog, entries);
}

export function unregisterCatalogSessionProperties(catalog: string): void {
  BY_CATALOG.delete(catalog);
}

/** The catalog session properties of `catalog` (none for a catalog without any). */
export function catalogSessionProperties(catalog: string): readonly CatalogSessionEntry[] {
  return BY_CATALOG.get(catalog.toLowerCase()) ?? [];
}

/** Every catalog's properties, by catalog name then property name (SHOW SESSION's order after the system ones). */
export function allCatalogSessionProperties(visible: (catalog: string) => boolean): { catalog: string; entry: CatalogSessionEntry }[] {
  return [...BY_CATALOG.keys()]
    .filter(visible)
    .sort()
    .flatMap((catalog) => [...BY_CATALOG.get(catalog)!].sort((a, b) => (a.property.name < b.property.name ? -1 : 1)).map((entry) => ({ catalog, entry })));
}

/** The lookup over the catalogs `exists` tells served. */
export function catalogSessionLookup(exists: (catalog: string) => boolean): CatalogSessionLookup {
  return { exists: (catalog) => exists(catalog.toLowerCase()), properties: catalogSessionProperties };
}
