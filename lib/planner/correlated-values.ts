// A correlated scalar subquery in the select list (`SELECT c.custkey, (SELECT count(*) FROM orders o WHERE
// o.custkey = c.custkey) FROM customer c`) planned as a WHERE conjunct's is (correlated-subqueries.ts): once
// every relation is joined and filtered (the WHERE's correlated conjuncts and partitioned semi-joins ran),
// the rows are hashed on the outer keys of its correlating equality into a HASH fragment, the subquery's
// keyed table hashed alike and its other tables broadcast, and there each row gets the subquery's value as a
// column of its own (vivace_v{n}), which the query above reads as any column of the joined rows (its
// aggregation, ORDER BY, ...). Exact for the reason the conjunct is: in a row's bucket the subquery sees
// every row it sees in one task. Trino decorrelates it likewise (TransformCorrelatedScalarSubquery into a
// left join on the correlation, with a check that it returns one row per outer row). A subquery with no
// such equality leaves the query to the other planners; an uncorrelated one is a broadcast source
// (scalar-values.ts). In HAVING (havingValues) a subquery reading only group keys has one value per group:
// computed per row so, read as arbitrary(column).
import { mapTree, type Expression, type FunctionCall, type Identifier, type Node } from '../sql/index.js';
import type { ColumnScope } from './column-resolution.js';
import type { CorrelatedSubqueries } from './correlated-subqueries.js';

/** The prefix of a subquery's value column. */
export const VALUE_PREFIX = 'vivace_v';

/**
 * `e` (a select item's expression) with each subquery in it, a correlated scalar one, read as its value
 * column (kept by `correlated` with its name); undefined when one is not. `keep`: whether a node is such a
 * column (the outer scope leaves it as it is).
 */
export function readValues(e: Expression, correlated: CorrelatedSubqueries, scope: ColumnScope, keep: Set<Node>, options: ValueOptions = {}): Expression | undefined {
  let failed = false;
  const read = mapTree(e, (n) => {
    if (failed || n.type !== 'SubqueryExpression' || options.skip?.(n)) return undefined;
    const conjunct = correlated.read(n, scope);
    if (!conjunct || (options.reads && ![...conjunct.symbols].every(options.reads))) {
      failed = true;
      return n;
    }
    const name = `${VALUE_PREFIX}${correlated.conjuncts.filter((c) => c.value !== undefined).length}`;
    conjunct.value = name;
    const column: Identifier = { type: 'Identifier', value: name, quoted: false, location: n.location };
    const read = options.wrap ? options.wrap(column) : column;
    keep.add(read);
    return read;
  });
  return failed ? undefined : read;
}

export interface ValueOptions {
  /** Subqueries read otherwise (semi-joins' placeholders). */
  skip?: (n: Node) => boolean;
  /** Whether the subquery may read an outer symbol (HAVING's: a group key only). */
  reads?: (symbol: string) => boolean;
  /** The value column as the expression reads it (HAVING's: arbitrary(column), one value per group). */
  wrap?: (column: Identifier) => Expression;
}

/**
 * HAVING's correlated scalar subquery: its value, the same for every row of a group (it reads only group
 * keys, as Trino requires of it), computed per row and read once per group as `arbitrary(column)`.
 */
export function havingValues(having: Expression, correlated: CorrelatedSubqueries, scope: ColumnScope, keep: Set<Node>, groupSymbols: ReadonlySet<string>, skip: (n: Node) => boolean): Expression | undefined {
  const wrap = (column: Identifier): FunctionCall => ({
    type: 'FunctionCall', location: column.location, name: { type: 'QualifiedName', parts: [{ ...column, value: 'arbitrary' }], location: column.location },
    arguments: [column], distinct: false, filter: undefined, orderBy: undefined, nullTreatment: undefined, window: undefined,
  });
  return readValues(having, correlated, scope, keep, { skip, reads: (s) => groupSymbols.has(s), wrap });
}
