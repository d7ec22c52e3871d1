// The translation on a real DuckDB: whatever a generated statement holds, DuckDB reads its translation as
// exactly one statement (one statement per request, whatever the text smuggles).
import { expect } from 'chai';
import fc from 'fast-check';
import { parseStatement } from '../../lib/sql/parser.js';
import { translateStatement } from '../../lib/sql/duckdb-translation.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { statement } from '../sql/sql-generators.js';
import { memoryDuckDb } from '../support/memory-duckdb.js';

describe('DuckDB translation on DuckDB', () => {
  const duckdb = memoryDuckDb();

  it('reads every translated statement as one statement', async () => {
    const context = { catalog: 'memory', schema: 'default', databaseOf: (c: string) => c };
    const samples = fc.sample(statement, { numRuns: 300, seed: 7 });
    const smuggled = ["SELECT 'a'';DROP TABLE t;--' AS \"x;\"\"y\", \"a;b\".c FROM \"t;DROP\"", "SELECT 1 /* ; SELECT 2 */", 'SELECT 1 -- ;\n + 1'];
    let counted = 0;
    for (const sql of [...samples, ...smuggled]) {
      let text: string;
      try {
        text = translateStatement(parseStatement(sql), sql, context).sql;
      } catch (err) {
        expect(err).to.be.instanceOf(VivaceError);
        continue;
      }
      const extracted = await duckdb.connection.extractStatements(text).catch(() => undefined);
      if (extracted === undefined) continue;
      expect(extracted.count, text).to.equal(1);
      counted++;
    }
    expect(counted).to.be.greaterThan(100);
  });
});
