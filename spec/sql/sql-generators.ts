// Generators of Trino SQL text for property-based specs (the parser's, the translation's).
import fc from 'fast-check';

// ------------------------------------------------------------------ a generator of Trino SQL text

/** Column names, non-reserved keywords and quoted names among them. */
const names = fc.constantFrom('a', 'b', 'x', 'Total', 'date', 'at', 'row', 'interval', 'if', 'current', 'zone', 'limit', 'all', 'filter', '"select"', '"a b"', '"q""t"');
const literals = fc.constantFrom(
  '0', '1', '-1', '2.5', '-.5', '1e3', '0x1F', '1_000', "''", "'a''b'", "U&'\\00e9'", 'NULL', 'TRUE', 'FALSE', '?',
  "DATE '2020-01-01'", "TIMESTAMP '2020-01-01 10:00:00'", "INTERVAL '1' DAY", "INTERVAL -'2' YEAR TO MONTH", "X'AB'", 'CURRENT_DATE',
);
const types = fc.constantFrom('bigint', 'varchar(10)', 'decimal(10, 2)', 'array(int)', 'map(varchar, double)', 'row(a int, b varchar)', 'timestamp(3) with time zone', 'int array', 'double precision');

const { value, bool } = fc.letrec<{ value: string; bool: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    names,
    literals,
    fc.tuple(tie('value'), fc.constantFrom('+', '-', '*', '/', '%', '||'), tie('value')).map(([l, op, r]) => `${l} ${op} ${r}`),
    tie('value').map((v) => `- ${v}`),
    tie('bool').map((b) => `(${b})`),
    fc.tuple(fc.constantFrom('f', 'sum', 'coalesce', 's.g', '"count"'), fc.array(tie('value'), { minLength: 2, maxLength: 3 })).map(([f, args]) => `${f}(${args.join(', ')})`),
    fc.tuple(tie('value'), tie('value')).map(([a, lambdaBody]) => `transform(${a}, x -> ${lambdaBody})`),
    fc.tuple(tie('bool'), types).map(([e, t]) => `CAST(${e} AS ${t})`),
    fc.tuple(tie('bool'), tie('value'), tie('value')).map(([c, t, e]) => `CASE WHEN ${c} THEN ${t} ELSE ${e} END`),
    fc.tuple(tie('value'), tie('value')).map(([o, r]) => `CASE ${o} WHEN 1 THEN ${r} END`),
    fc.array(tie('value'), { maxLength: 3 }).map((items) => `ARRAY[${items.join(', ')}]`),
    fc.tuple(fc.oneof(names, tie('value').map((v) => `(${v})`)), tie('value')).map(([a, i]) => `${a}[${i}]`),
    fc.tuple(tie('value'), tie('value')).map(([a, b]) => `(${a}, ${b})`),
    tie('value').map((v) => `${v} AT TIME ZONE 'UTC'`),
    tie('value').map((v) => `(SELECT ${v})`),
    fc.tuple(tie('value'), tie('value')).map(([a, w]) => `sum(${a}) OVER (PARTITION BY ${w} ORDER BY ${a} DESC ROWS BETWEEN 1 PRECEDING AND CURRENT ROW)`),
    tie('value').map((v) => `EXTRACT(YEAR FROM ${v})`),
  ),
  bool: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    tie('value'),
    fc.tuple(tie('value'), fc.constantFrom('=', '<>', '!=', '<', '<=', '>', '>=', 'IS DISTINCT FROM', 'IS NOT DISTINCT FROM'), tie('value')).map(([l, op, r]) => `${l} ${op} ${r}`),
    fc.tuple(tie('value'), fc.constantFrom('IS NULL', 'IS NOT NULL')).map(([v, p]) => `${v} ${p}`),
    fc.tuple(tie('value'), fc.boolean(), tie('value'), tie('value')).map(([v, not, lo, hi]) => `${v} ${not ? 'NOT ' : ''}BETWEEN ${lo} AND ${hi}`),
    fc.tuple(tie('value'), fc.boolean(), fc.array(tie('value'), { minLength: 1, maxLength: 3 })).map(([v, not, list]) => `${v} ${not ? 'NOT ' : ''}IN (${list.join(', ')})`),
    fc.tuple(tie('value'), tie('value')).map(([v, p]) => `${v} LIKE ${p} ESCAPE '!'`),
    fc.tuple(tie('bool'), fc.constantFrom('AND', 'OR'), tie('bool')).map(([l, op, r]) => `${l} ${op} ${r}`),
    tie('bool').map((b) => `NOT ${b}`),
    tie('value').map((v) => `EXISTS (SELECT ${v})`),
    tie('value').map((v) => `${v} = ANY (SELECT 1)`),
  ),
}));

const tableNames = fc.constantFrom('t', 'tpch.tiny.lineitem', '"My Table"', 'memory.default.t2');
const relation = fc.oneof(
  tableNames,
  fc.tuple(tableNames, names).map(([t, alias]) => `${t} AS ${alias}`),
  fc.tuple(tableNames, fc.constantFrom('u', 'window', 'offset')).map(([t, alias]) => `${t} ${alias}`),
  fc.tuple(tableNames, tableNames, bool).map(([l, r, on]) => `${l} JOIN ${r} ON ${on}`),
  fc.tuple(tableNames, tableNames).map(([l, r]) => `${l} LEFT JOIN ${r} USING (a, b)`),
  fc.tuple(tableNames, tableNames).map(([l, r]) => `(${l} CROSS JOIN ${r})`),
  value.map((v) => `(SELECT ${v} FROM t) AS s (c)`),
  value.map((v) => `UNNEST(ARRAY[${v}]) WITH ORDINALITY AS u (e, n)`),
  tableNames.map((t) => `${t} TABLESAMPLE BERNOULLI (10)`),
);

const querySpecification = fc
  .record({
    distinct: fc.boolean(),
    items: fc.array(fc.oneof(value, fc.tuple(value, names).map(([v, n]) => `${v} AS ${n}`), fc.constant('*'), fc.constant('t.*')), { minLength: 1, maxLength: 3 }),
    from: fc.option(fc.array(relation, { minLength: 1, maxLength: 2 }), { nil: undefined }),
    where: fc.option(bool, { nil: undefined }),
    groupBy: fc.option(fc.oneof(fc.array(value, { minLength: 1, maxLength: 2 }).map((g) => g.join(', ')), fc.constant('ROLLUP (a, (b, x))'), fc.constant('GROUPING SETS ((a), ())')), { nil: undefined }),
    having: fc.option(bool, { nil: undefined }),
  })
  .map((q) => {
    let sql = `SELECT ${q.distinct ? 'DISTINCT ' : ''}${q.items.join(', ')}`;
    if (q.from) sql += ` FROM ${q.from.join(', ')}`;
    if (q.where) sql += ` WHERE ${q.where}`;
    if (q.groupBy) sql += ` GROUP BY ${q.groupBy}`;
    if (q.having) sql += ` HAVING ${q.having}`;
    return sql;
  });

const query = fc
  .record({
    with: fc.option(querySpecification.map((q) => `WITH w (c) AS (${q}) `), { nil: undefined }),
    terms: fc.array(querySpecification, { minLength: 1, maxLength: 3 }),
    ops: fc.array(fc.constantFrom('UNION', 'UNION ALL', 'INTERSECT', 'EXCEPT'), { minLength: 2, maxLength: 2 }),
    parenthesize: fc.boolean(),
    orderBy: fc.option(value, { nil: undefined }),
    limit: fc.option(fc.constantFrom('LIMIT 10', 'LIMIT ALL', 'OFFSET 2 ROWS', 'FETCH FIRST 3 ROWS WITH TIES', 'LIMIT ?'), { nil: undefined }),
  })
  .map((q) => {
    const terms = q.terms.map((t) => (q.parenthesize ? `(${t})` : t));
    let sql = (q.with ?? '') + terms.reduce((acc, t, i) => `${acc} ${q.ops[(i - 1) % 2]} ${t}`);
    if (q.orderBy) sql += ` ORDER BY ${q.orderBy} NULLS LAST`;
    if (q.limit) sql += ` ${q.limit}`;
    return sql;
  });

/** Generated Trino statements: queries, EXPLAIN, CTAS, INSERT, DELETE, UPDATE. */
export const statement = fc.oneof(
  { weight: 6, arbitrary: query },
  { weight: 1, arbitrary: query.map((q) => `EXPLAIN ${q}`) },
  { weight: 1, arbitrary: query.map((q) => `CREATE TABLE memory.default.t AS ${q}`) },
  { weight: 1, arbitrary: query.map((q) => `INSERT INTO t (a, b) ${q}`) },
  { weight: 1, arbitrary: bool.map((b) => `DELETE FROM t WHERE ${b}`) },
  { weight: 1, arbitrary: fc.tuple(value, bool).map(([v, b]) => `UPDATE t SET a = ${v} WHERE ${b}`) },
);
