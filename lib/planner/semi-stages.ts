// A semi-join's source that aggregates one table that splits (semi-joins.ts SemiSource.stages), in two
// stages over the table's splits: the leaf's partial rows, then the final aggregation, whose rows are
// broadcast to the fragment evaluating the predicate. Grouped, with no ORDER BY, OFFSET or LIMIT (TPC-H
// Q4's decorrelated EXISTS, Q18's IN ... GROUP BY ... HAVING), the final runs in a HASH stage on the group
// keys, hash-final.ts's bucket query (HAVING included) per bucket, as Trino's FINAL aggregation over a
// REPARTITION exchange; every consumer task reads every bucket's rows (a BROADCAST output), so a NULL key
// in any bucket is seen by every task (NOT IN's semantics). Otherwise the final runs in one SINGLE task.
// The choice follows from the stages and the query alone, so a worker makes the coordinator's.
import { formatSql, parseStatement, type Query } from '../sql/index.js';
import { GROUP_KEY_PREFIX, PARTIALS_TABLE, type StagePlan } from './aggregate-stages.js';
import { hashFinal, type HashFinal } from './hash-final.js';
import { replaceTable } from './plan-trees.js';
import { tableNodeOf, type Draft } from './fragment-drafts.js';

/** The final's split into buckets, when the source's final runs in a HASH stage; undefined for a SINGLE one. */
export function semiHashFinal(query: Query, stages: StagePlan): { keys: string[]; split: HashFinal } | undefined {
  if (query.orderBy || query.offset || query.limit) return undefined;
  const keys = stages.partialColumns.filter((c) => c.startsWith(GROUP_KEY_PREFIX));
  if (keys.length === 0) return undefined;
  const split = hashFinal(parseStatement(stages.rootSql) as Query);
  return split && { keys, split };
}

/** The drafts of a two-stage semi source: its leaf over the table's splits, and its final (returned), broadcast. */
export function twoStageSemi(query: Query, stages: StagePlan): Draft {
  const leaf: Draft = {
    partitioning: 'SOURCE', scan: { table: stages.table, ...(stages.where ? { where: stages.where } : {}) }, sources: [], output: { kind: 'SINGLE' },
    from: () => '', where: [], columns: stages.partialColumns, sql: () => stages.leafSql,
  };
  const hashed = semiHashFinal(query, stages);
  if (hashed) {
    leaf.output = { kind: 'HASH', keys: hashed.keys };
    return {
      partitioning: 'HASH', sources: [leaf], output: { kind: 'BROADCAST' }, from: () => '', where: [], columns: hashed.split.columns,
      sql: (x) => formatSql(replaceTable(hashed.split.bucketQuery, PARTIALS_TABLE, (at) => tableNodeOf(x(leaf), at))),
    };
  }
  return {
    partitioning: 'SINGLE', sources: [leaf], output: { kind: 'BROADCAST' }, from: () => '', where: [], columns: [],
    sql: (x) => formatSql(replaceTable(parseStatement(stages.rootSql), PARTIALS_TABLE, (at) => tableNodeOf(x(leaf), at))),
  };
}
