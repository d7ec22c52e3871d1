// Partition pruning on the tree (partition-pruning.ts): only what is sure prunes; every other predicate
// keeps every partition, so no row a query should see is ever skipped.
import { expect } from 'chai';
import fc from 'fast-check';
import { parseExpression } from '../../../lib/sql/index.js';
import { partitionFilter } from '../../../lib/connectors/hive/partition-pruning.js';
import { parseHiveType } from '../../../lib/connectors/hive/hive-types.js';
import { memoryDuckDb } from '../../support/memory-duckdb.js';

const columns = [{ name: 'Month', hive: parseHiveType('bigint') }, { name: 'region', hive: parseHiveType('varchar(10)') }, { name: 'day', hive: parseHiveType('date') }];
const partitions: (string | null)[][] = [['199501', 'eu', '1995-01-01'], ['199502', 'us', '1995-02-01'], ['199503', null, '1995-03-01'], [null, 'eu', null]];
const kept = (where: string) => partitions.filter(partitionFilter(parseExpression(where), columns)).map((p) => p.join('|'));

describe('hive connector: partition pruning', () => {
  it('prunes on equality, IN and IS NULL of partition columns, in any case and qualified', () => {
    expect(kept('month = 199502')).to.deep.equal(['199502|us|1995-02-01']);
    expect(kept('199501 = "MONTH" AND x > 3')).to.deep.equal(['199501|eu|1995-01-01']);
    expect(kept("t.region IN ('eu', 'asia')")).to.deep.equal(['199501|eu|1995-01-01', '|eu|']);
    expect(kept('month IS NULL')).to.deep.equal(['|eu|']);
    expect(kept("month = 199501 AND region = 'us'")).to.deep.equal([]);
    expect(kept('month = 0199503')).to.deep.equal(['199503||1995-03-01']);
  });

  it('prunes on ranges, BETWEEN, <>, IS NOT NULL and OR of sure terms; a NULL partition fails every comparison', () => {
    expect(kept('month > 199501')).to.deep.equal(['199502|us|1995-02-01', '199503||1995-03-01']);
    expect(kept('199502 >= "Month"')).to.deep.equal(['199501|eu|1995-01-01', '199502|us|1995-02-01']);
    expect(kept('month BETWEEN 199502 AND 199503 AND region < \'v\'')).to.deep.equal(['199502|us|1995-02-01']);
    expect(kept('month <> 199501')).to.deep.equal(['199502|us|1995-02-01', '199503||1995-03-01']);
    expect(kept('region IS NOT NULL AND month IS NOT NULL')).to.deep.equal(['199501|eu|1995-01-01', '199502|us|1995-02-01']);
    expect(kept("month = 199501 OR region = 'us'")).to.deep.equal(['199501|eu|1995-01-01', '199502|us|1995-02-01']);
    expect(kept("(month = 199503 OR month IS NULL) AND (region = 'eu' OR t.region IS NULL)")).to.deep.equal(['199503||1995-03-01', '|eu|']);
  });

  it('prunes dates against DATE literals, and keeps a date spelled otherwise on disk', () => {
    expect(kept("day = DATE '1995-02-01'")).to.deep.equal(['199502|us|1995-02-01']);
    expect(kept("day >= DATE '1995-02-01'")).to.deep.equal(['199502|us|1995-02-01', '199503||1995-03-01']);
    expect(kept("day BETWEEN DATE '1995-01-01' AND DATE '1995-02-28' OR day IS NULL")).to.deep.equal(['199501|eu|1995-01-01', '199502|us|1995-02-01', '|eu|']);
    const odd = partitionFilter(parseExpression("day > DATE '1995-02-01'"), columns);
    expect([odd([null, null, '1995-1-5']), odd([null, null, '01995-01-05']), odd([null, null, '1995-01-05'])]).to.deep.equal([true, true, false]);
  });

  it('keeps every partition for what it cannot be sure of', () => {
    const all = partitions.map((p) => p.join('|'));
    for (const where of [
      'month = 199501 OR x > 3', 'NOT (month = 199501)', 'NOT (month IS NULL)', "month = '199501'", 'month NOT BETWEEN 1 AND 199501',
      "region = 1", 'month IN (199501, x)', 'month NOT IN (199501)', "day = '1995-01-01'", "day > DATE '1995-1-1'", "day = TIMESTAMP '1995-01-01 00:00:00'", 'month + 0 = 199501',
      'other = 1', 'month = 199501.0', 'month = (SELECT 1)', 'month IS DISTINCT FROM 199501', 'month BETWEEN 1 AND x', 'month > -(1)',
      'CAST(month AS varchar) = \'199501\'', 'month = 199501 OR NOT (region = \'us\')',
    ]) expect(kept(where), where).to.deep.equal(all);
    expect(partitions.filter(partitionFilter(undefined, columns))).to.have.length(4);
  });

  it('never drops a partition whose rows satisfy the equality (property)', () => {
    fc.assert(fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.string({ maxLength: 20 }), (n, s) => {
      const filter = partitionFilter(parseExpression(`month = ${n} AND region = '${s.split("'").join("''")}'`), columns);
      expect(filter([n.toString(), s, null])).to.equal(true);
    }));
  });

  describe('against DuckDB\'s own comparison (property)', () => {
    const duckdb = memoryDuckDb();
    const quote = (t: string) => `'${t.split("'").join("''")}'`;
    const operators = fc.constantFrom('=', '<>', '<', '<=', '>', '>=');

    it('never drops a partition whose value satisfies a comparison of strings, any Unicode', async () => {
      await fc.assert(fc.asyncProperty(fc.string({ unit: 'grapheme', maxLength: 6 }), fc.string({ unit: 'grapheme', maxLength: 6 }), operators, async (value, literal, op) => {
        const holds = (await duckdb.connection.runAndReadAll(`SELECT ${quote(value)} ${op} ${quote(literal)}`)).getRows()[0]![0];
        const keeps = partitionFilter(parseExpression(`region ${op} ${quote(literal)}`), columns)([null, value, null]);
        if (holds === true) expect(keeps, `${JSON.stringify(value)} ${op} ${JSON.stringify(literal)}`).to.equal(true);
        // Strings are sure both ways: what DuckDB rules out is pruned.
        expect(keeps).to.equal(holds === true);
      }), { numRuns: 300 });
    });

    it('never drops a partition whose date satisfies a comparison, and drops what DuckDB rules out', async () => {
      const date = fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
      await fc.assert(fc.asyncProperty(date, date, operators, async (value, literal, op) => {
        const [[holds]] = (await duckdb.connection.runAndReadAll(`SELECT DATE '${value}' ${op} DATE '${literal}'`)).getRows();
        expect(partitionFilter(parseExpression(`day ${op} DATE '${literal}'`), columns)([null, null, value]), `${value} ${op} ${literal}`).to.equal(holds === true);
      }), { numRuns: 300 });
    });

    it('never drops a partition whose value satisfies a comparison or BETWEEN of integers', async () => {
      const int = fc.bigInt({ min: -(2n ** 63n) + 1n, max: 2n ** 63n - 1n });
      await fc.assert(fc.asyncProperty(fc.oneof(int, fc.bigInt({ min: -3n, max: 3n })), fc.oneof(int, fc.bigInt({ min: -3n, max: 3n })), fc.bigInt({ min: -3n, max: 3n }), operators, async (value, literal, high, op) => {
        const [[holds, between]] = (await duckdb.connection.runAndReadAll(`SELECT CAST('${value}' AS BIGINT) ${op} ${literal}, CAST('${value}' AS BIGINT) BETWEEN ${literal} AND ${high}`)).getRows();
        expect(partitionFilter(parseExpression(`month ${op} ${literal}`), columns)([value.toString(), null, null])).to.equal(holds === true);
        expect(partitionFilter(parseExpression(`month BETWEEN ${literal} AND ${high}`), columns)([value.toString(), null, null])).to.equal(between === true);
      }), { numRuns: 300 });
    });
  });
});
