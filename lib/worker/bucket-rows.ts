// The rows a HASH output writes, each with its bucket (DuckDB SQL): the hash of the output's keys modulo the
// consumer's bucket count, as every producer of a partitioned exchange places them. With
// replicateNullsAndAny (a partitioned semi-join's source, replicated-semis.ts) each row whose key is NULL,
// and the task's first row, go to every bucket instead, as Trino's PartitionFunctionBinding with
// replicateNullsAndAny places them (sql/planner/optimizations/AddExchanges.java visitSemiJoin): each bucket
// then knows whether the source is empty and whether it holds a NULL.

export const BUCKET_COLUMN = 'vivace_bucket';

/**
 * `inner`'s rows with their bucket as BUCKET_COLUMN. `hashed`: the keys as hashed (numbers as DOUBLE);
 * `replicated`: the keys' columns (quoted) whose NULL, and the first row, are copied to every bucket.
 */
export function bucketedRowsSql(inner: string, hashed: readonly string[], buckets: number, replicated?: readonly string[]): string {
  const bucket = `CAST(hash(${hashed.length > 0 ? hashed.join(', ') : '0'}) % ${buckets} AS BIGINT)`;
  if (!replicated || replicated.length === 0) return `SELECT *, ${bucket} AS ${BUCKET_COLUMN} FROM (${inner})`;
  const marked = `SELECT *, ${replicated.map((k) => `${k} IS NULL`).join(' OR ')} OR row_number() OVER () = 1 AS vivace_replicated FROM (${inner})`;
  return `SELECT * EXCLUDE (vivace_replicated), unnest(CASE WHEN vivace_replicated THEN range(0, ${buckets}) ELSE [${bucket}] END) AS ${BUCKET_COLUMN} FROM (${marked})`;
}
