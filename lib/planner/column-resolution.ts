// Column references of a query over several tables, resolved as Trino's analyzer resolves them in one
// scope: `c` names the one relation that has a column c, `r.c` the relation named r (its alias, or the
// table's name). Each resolved column becomes a symbol, `vivace_r{relation}_{column}`, the name it has in
// every fragment's rows, so an expression rewritten to symbols reads the same in any fragment. What this
// scope cannot resolve alone (a subquery, a lambda, a parameter, an ambiguous or unknown name) is left to
// the one-task path, whose analysis reports the user's error.
import { mapTree, type Expression, type Identifier, type Node, type Table } from '../sql/index.js';
import { fold, partsOf } from '../sql/names.js';
import { resolveTable } from '../sql/statement-gate.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import type { PlannerMetadata, PlannerSession, TableLayout } from './planner.types.js';

/** A table of the query's FROM, by its position there. */
export interface PlanRelation {
  index: number;
  table: ScannedTable;
  /** The name references qualify it by (its alias, or the table's name), folded. */
  name: string;
  layout: TableLayout;
}

/**
 * The relations of a FROM's tables (innerJoinTables), resolved in the session with their layouts, or
 * undefined when one is no table of the metadata (or a versioned, hidden or metadata table: `$` in its name).
 */
export function relationsOf(tables: readonly { node: Table; alias?: Identifier }[], session: PlannerSession, metadata: PlannerMetadata): PlanRelation[] | undefined {
  const relations: PlanRelation[] = [];
  for (const [index, { node, alias }] of tables.entries()) {
    if (node.queryPeriod) return undefined;
    const parts = partsOf(node.name);
    if (parts.length > 3) return undefined;
    const resolved = resolveTable(parts, session);
    if (resolved.catalog === undefined || resolved.schema === undefined || resolved.table.includes('$')) return undefined;
    const table = { catalog: resolved.catalog, schema: resolved.schema, table: resolved.table };
    const layout = metadata.table(table);
    if (!layout || layout.columns.length === 0) return undefined;
    relations.push({ index, table, name: alias ? fold(alias.value) : table.table, layout });
  }
  return relations;
}

export const symbolOf = (relation: number, column: number): string => `vivace_r${relation}_${column}`;

/** An expression with its column references as symbols, and what it reads. */
export interface ResolvedExpression {
  expression: Expression;
  /** The relations it reads (by index). */
  relations: ReadonlySet<number>;
  symbols: ReadonlySet<string>;
}

/** Nodes whose meaning depends on more than this one scope. */
export const UNRESOLVABLE: ReadonlySet<string> = new Set([
  'SubqueryExpression', 'ExistsPredicate', 'QuantifiedComparisonExpression', 'LambdaExpression', 'Parameter', 'GroupingOperation',
]);
/** Nodes holding names that are no column references. */
export const OPAQUE: ReadonlySet<string> = new Set([
  'QualifiedName', 'GenericDataType', 'RowDataType', 'DateTimeDataType', 'IntervalDataType', 'GenericLiteral', 'IntervalLiteral',
  'NullLiteral', 'BooleanLiteral', 'LongLiteral', 'DecimalLiteral', 'DoubleLiteral', 'StringLiteral', 'BinaryLiteral',
]);

const identifierNode = (value: string, location: Node['location']): Expression => ({ type: 'Identifier', value, quoted: false, location });

export class ColumnScope {
  private readonly byName = new Map<string, PlanRelation[]>();
  private readonly columnIndex: ReadonlyMap<string, number>[];

  constructor(readonly relations: readonly PlanRelation[]) {
    for (const r of relations) this.byName.set(r.name, [...(this.byName.get(r.name) ?? []), r]);
    this.columnIndex = relations.map((r) => new Map(r.layout.columns.map((c, i) => [c.name, i])));
  }

  /** The symbol of column `column` (folded) of relation `relation`, if it has one. */
  symbol(relation: number, column: string): string | undefined {
    const at = this.columnIndex[relation]?.get(column);
    return at === undefined ? undefined : symbolOf(relation, at);
  }

  /**
   * `expression` with its column references as symbols, or undefined when a reference does not resolve
   * in this scope alone. `keep` names nodes to leave as they are (an output alias in ORDER BY).
   */
  resolve(expression: Expression, keep?: (n: Node) => boolean): ResolvedExpression | undefined {
    const relations = new Set<number>();
    const symbols = new Set<string>();
    let failed = false;
    const found = (relation: number, column: string, at: Node): Expression | undefined => {
      const symbol = this.symbol(relation, column);
      if (symbol === undefined) return undefined;
      relations.add(relation);
      symbols.add(symbol);
      return identifierNode(symbol, at.location);
    };
    const replace = (n: Node): Node | undefined => {
      if (failed) return n;
      if (keep?.(n)) return n;
      if (OPAQUE.has(n.type)) return n;
      // grouping(a, t.b): its names are columns, each read as its symbol (aggregate-stages.ts computes it in the leaf).
      if (n.type === 'GroupingOperation') {
        const groupingColumns = n.groupingColumns.map((q) => {
          const [first, second] = q.parts;
          const column: Expression | undefined = q.parts.length === 1 ? first : q.parts.length === 2 ? { type: 'DereferenceExpression', base: first!, field: second!, location: q.location } : undefined;
          const symbol = column && mapTree(column, replace);
          if (symbol?.type !== 'Identifier') failed = true;
          return symbol?.type === 'Identifier' ? { ...q, parts: [symbol] } : q;
        });
        return { ...n, groupingColumns };
      }
      if (UNRESOLVABLE.has(n.type) || (n.type === 'FunctionCall' && n.window)) {
        failed = true;
        return n;
      }
      if (n.type === 'Identifier') {
        // Beside a held table its layout has the unqualified names no splitting table has (held-relations.ts).
        const column = fold(n.value);
        const owners = this.relations.filter((r) => this.columnIndex[r.index]!.has(column));
        const resolved = owners.length === 1 ? found(owners[0]!.index, column, n) : undefined;
        if (!resolved) failed = true;
        return resolved ?? n;
      }
      if (n.type === 'DereferenceExpression') {
        const named = n.base.type === 'Identifier' ? this.byName.get(fold(n.base.value)) : undefined;
        const resolved = named?.length === 1 ? found(named[0]!.index, fold(n.field.value), n) : undefined;
        if (!resolved) failed = true;
        return resolved ?? n;
      }
      if (n.type === 'FunctionCall') {
        // The function's name is no column; its arguments, FILTER and ORDER BY are.
        return { ...n, arguments: n.arguments.map((a) => mapTree(a, replace)), filter: n.filter && mapTree(n.filter, replace), orderBy: n.orderBy && mapTree(n.orderBy, replace) };
      }
      if (n.type === 'Cast') return { ...n, expression: mapTree(n.expression, replace) };
      return undefined;
    };
    const mapped = mapTree(expression, replace);
    return failed ? undefined : { expression: mapped, relations, symbols };
  }
}
