// Presto catalog names <-> DuckDB database names. Catalogs are DuckDB databases (duckdb_databases());
// DuckDB's own `system` and `temp` are hidden, and a Presto catalog whose name DuckDB reserves
// (`system`) can be served by a database attached under another name through `mapCatalog`.

/** DuckDB internals that are never Presto catalogs. */
const HIDDEN = new Set(['system', 'temp']);

/** presto name -> duckdb name, for catalogs attached under another name. */
const toDuckDb = new Map<string, string>();
const toPresto = new Map<string, string>();

export const CatalogNames = {
  /** Serve Presto catalog `presto` from DuckDB database `duckdb` (e.g. 'system' from 'vivace_system'). */
  map(presto: string, duckdb: string): void {
    toDuckDb.set(presto, duckdb);
    toPresto.set(duckdb, presto);
  },

  unmap(presto: string): void {
    const duckdb = toDuckDb.get(presto);
    toDuckDb.delete(presto);
    if (duckdb !== undefined) toPresto.delete(duckdb);
  },

  /** Presto names served under another DuckDB name (statements naming them are rewritten). */
  mapped(): string[] {
    return [...toDuckDb.keys()];
  },

  /** The DuckDB database holding Presto catalog `name`. */
  duckdbName(name: string): string {
    return toDuckDb.get(name) ?? name;
  },

  /** The Presto catalog name of a DuckDB database, or undefined for DuckDB internals. */
  prestoName(database: string): string | undefined {
    const mapped = toPresto.get(database);
    if (mapped !== undefined) return mapped;
    return HIDDEN.has(database) ? undefined : database;
  },
};
