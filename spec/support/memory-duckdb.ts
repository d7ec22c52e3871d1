// An in-memory DuckDB for a describe block's specs that check against DuckDB itself: opened before them,
// closed after them.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

/** Registers the block's before/after hooks; `connection` is set from the first spec on. */
export function memoryDuckDb(): { readonly connection: DuckDBConnection } {
  let instance: DuckDBInstance | undefined;
  const held: { connection: DuckDBConnection } = { connection: undefined as unknown as DuckDBConnection };
  before(async () => {
    instance = await DuckDBInstance.create(':memory:');
    held.connection = await instance.connect();
  });
  after(() => {
    held.connection?.closeSync();
    instance?.closeSync();
  });
  return held;
}
