// Partition pruning on the tree (partition-pruning.ts): only what is sure prunes; every other predicate
// keeps every partition, so no row a query should see is ever skipped.
import { expect } from 'chai';
import fc from 'fast-check';
import { parseExpression } from '../../../lib/sql/index.js';
import { partitionFilter } from '../../../lib/connectors/hive/partition-pruning.js';
import { parseHiveType } from '../../../lib/connectors/hive/hive-types.js';

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

  it('keeps every partition for what it cannot be sure of', () => {
    const all = partitions.map((p) => p.join('|'));
    for (const where of [
      'month = 199501 OR region = \'us\'', 'NOT (month = 199501)', 'month <> 199501', 'month > 199501', "month = '199501'",
      "region = 1", 'month IN (199501, x)', 'month NOT IN (199501)', "day = DATE '1995-01-01'", 'month + 0 = 199501',
      'other = 1', 'month = 199501.0', 'month IS NOT NULL', 'month = (SELECT 1)',
    ]) expect(kept(where), where).to.deep.equal(all);
    expect(partitions.filter(partitionFilter(undefined, columns))).to.have.length(4);
  });

  it('never drops a partition whose rows satisfy the equality (property)', () => {
    fc.assert(fc.property(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.string({ maxLength: 20 }), (n, s) => {
      const filter = partitionFilter(parseExpression(`month = ${n} AND region = '${s.split("'").join("''")}'`), columns);
      expect(filter([n.toString(), s, null])).to.equal(true);
    }));
  });
});
