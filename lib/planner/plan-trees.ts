// Tree pieces the planners share: a WHERE's conjuncts, a FROM of inner joins as its tables, table names as
// nodes and text, swapping a table for another relation, and whether a call aggregates.
import { mapTree, walk, type Expression, type Identifier, type Node, type Relation, type Table } from '../sql/index.js';
import { partsOf } from '../sql/names.js';
import { quoteIdentifier } from '../sql/sql-formatter.js';
import { lookupFunctions } from '../sql/function-catalog.js';
import type { ScannedTable } from '../connectors/connector.types.js';

/** The terms of a chain of ANDs (an expression that is none: itself). */
export function andTerms(e: Expression): Expression[] {
  return e.type === 'LogicalExpression' && e.operator === 'AND' ? e.terms.flatMap(andTerms) : [e];
}

export const sameTable = (a: ScannedTable, b: ScannedTable): boolean => a.catalog === b.catalog && a.schema === b.schema && a.table === b.table;

/** A table's three-part name as quoted SQL text. */
export const tableText = (t: ScannedTable): string => [t.catalog, t.schema, t.table].map(quoteIdentifier).join('.');

/** A Table node naming `t` by its three parts, quoted, at `at`'s location. */
export function tableNode(t: ScannedTable, at: Node): Table {
  const part = (value: string): Identifier => ({ type: 'Identifier', value, quoted: true, location: at.location });
  return { type: 'Table', location: at.location, queryPeriod: undefined, name: { type: 'QualifiedName', location: at.location, parts: [part(t.catalog), part(t.schema), part(t.table)] } };
}

/** `tree` with each reference to `table` (a three-part name) swapped for `by`'s relation. */
export function replaceTable<T extends Node>(tree: T, table: ScannedTable, by: (at: Node) => Relation): T {
  return mapTree(tree, (n) => {
    if (n.type !== 'Table') return undefined;
    const parts = partsOf(n.name);
    return parts.length === 3 && sameTable({ catalog: parts[0]!, schema: parts[1]!, table: parts[2]! }, table) ? by(n) : undefined;
  });
}

/**
 * The tables of a FROM of inner joins (JOIN ... ON, comma lists, CROSS JOIN), in order, with their ON
 * conditions; false for any other FROM (outer joins, USING, subqueries, column aliases of a table).
 */
export function innerJoinTables(relation: Relation, tables: { node: Table; alias?: Identifier }[], conditions: Expression[]): boolean {
  if (relation.type === 'Join') {
    if (relation.joinType === 'INNER') {
      if (relation.criteria?.type !== 'JoinOn') return false;
      conditions.push(relation.criteria.expression);
    } else if (relation.joinType !== 'IMPLICIT' && relation.joinType !== 'CROSS') {
      return false;
    }
    return innerJoinTables(relation.left, tables, conditions) && innerJoinTables(relation.right, tables, conditions);
  }
  if (relation.type === 'AliasedRelation') {
    if (relation.columnNames || relation.relation.type !== 'Table') return false;
    tables.push({ node: relation.relation, alias: relation.alias });
    return true;
  }
  if (relation.type === 'Table') {
    tables.push({ node: relation });
    return true;
  }
  return false;
}

/** Whether `node` calls an aggregate or a window function (its rows are then not final one by one). */
export function callsAggregate(node: Node): boolean {
  let found = false;
  walk(node, (n) => {
    if (n.type === 'FunctionCall' && (n.window || lookupFunctions(n.name.parts[n.name.parts.length - 1]!.value).some((f) => f.kind === 'aggregate'))) found = true;
  });
  return found;
}
