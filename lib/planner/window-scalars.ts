// A stand-alone scalar subquery in the select list of a windowed query over one table (window-stages.ts),
// `SELECT k, rank() OVER (PARTITION BY k ORDER BY x), x / (SELECT max(x) FROM t) FROM t`: Trino plans it as
// a cross join with the subquery's one row (TransformUncorrelatedSubqueryToJoin, EnforceSingleRow),
// replicated to the tasks of the node reading it, here the HASH buckets running the select list. So each
// such subquery that aggregates one table that splits, without GROUP BY and reading only its own table's
// columns, runs in two stages of its own over that table's splits (aggregate-stages.ts), its final's one
// row broadcast to the buckets, which read it as `(SELECT * FROM <its exchange>)`. The select list is
// first read with a marker column (vivace_u{k}) in each such subquery's place; any other subquery stays
// and window-stages.ts refuses the query as before.
import { formatSql, mapTree, parseExpression, parseStatement, walk, type Expression, type Query, type QuerySpecification, type SelectItem } from '../sql/index.js';
import { fold, partsOf } from '../sql/names.js';
import { resolveTable } from '../sql/statement-gate.js';
import { planStages, PARTIALS_TABLE, type StagePlan } from './aggregate-stages.js';
import { replaceTable, tableNode, tableText } from './plan-trees.js';
import { SCALAR_PREFIX } from './scalar-values.js';
import { namesNoColumn } from './held-relations.js';
import { exchangeTableOf, type FragmentSource, type PlanChoices, type PlanFragment } from './fragment.types.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import type { PlannerMetadata, PlannerSession } from './planner.types.js';

export interface WindowScalars {
  /** The query's select list with a marker in each taken subquery's place. */
  spec: QuerySpecification;
  /** The marker of a node this read put in a subquery's place, or undefined (a column of that name stays one). */
  markerOf(n: Expression): number | undefined;
  /** Marker k's value in the bucket's SQL, its final at `firstId + 2k`. */
  value(k: number, firstId: number): Expression;
  /** The buckets' sources: each subquery's final. */
  sources(firstId: number): FragmentSource[];
  /** Each subquery's final (SINGLE, BROADCAST) and leaf (SOURCE), in that order. */
  fragments(firstId: number): PlanFragment[];
  tables: ScannedTable[];
}

/** The two stages of `query` when it is one uncorrelated global aggregation over a table that splits, else undefined. */
function scalarStages(query: Query, session: PlannerSession, metadata: PlannerMetadata, given: PlanChoices | undefined): StagePlan | undefined {
  const spec = query.body;
  if (query.with || query.orderBy || query.offset || query.limit || spec.type !== 'QuerySpecification' || spec.groupBy || spec.select.selectItems.length !== 1) return undefined;
  const from = spec.from?.type === 'AliasedRelation' && !spec.from.columnNames ? spec.from.relation : spec.from;
  if (from?.type !== 'Table') return undefined;
  const parts = partsOf(from.name);
  const r = resolveTable(parts, session);
  if (parts.length > 3 || r.catalog === undefined || r.schema === undefined) return undefined;
  const table = { catalog: r.catalog, schema: r.schema, table: r.table };
  const layout = metadata.table(table);
  if (!layout || (given === undefined && !layout.splits)) return undefined;
  // Uncorrelated: every name is a column of its table, qualified (if at all) by its alias or name.
  const qualifier = spec.from?.type === 'AliasedRelation' ? fold(spec.from.alias.value) : table.table;
  const columns = new Set(layout.columns.map((c) => c.name));
  let outer = false;
  walk(query, (n, parent) => {
    if (n.type === 'QualifiedName' || n.type === 'Table') return false;
    if (n.type === 'DereferenceExpression') {
      if (n.base.type !== 'Identifier' || fold(n.base.value) !== qualifier || !columns.has(fold(n.field.value))) outer = true;
      return false;
    }
    if (n.type === 'Identifier' && !namesNoColumn(n, parent) && !columns.has(fold(n.value))) outer = true;
    return undefined;
  });
  if (outer) return undefined;
  return planStages(query, session, new Set([table.catalog]));
}

/**
 * `spec`'s select list with each scalar subquery that runs so as a marker, and what its stages are; `spec`
 * itself (no fragments) when none does.
 */
export function windowScalars(spec: QuerySpecification, session: PlannerSession, metadata: PlannerMetadata, given: PlanChoices | undefined): WindowScalars {
  const taken: StagePlan[] = [];
  const markers = new WeakMap<Expression, number>();
  const selectItems: SelectItem[] = spec.select.selectItems.map((item) => {
    if (item.type !== 'SingleColumn') return item;
    const expression = mapTree(item.expression, (n) => {
      if (n.type !== 'SubqueryExpression') return undefined;
      const stages = scalarStages(n.query, session, metadata, given);
      if (!stages) return undefined;
      taken.push(stages);
      const marker: Expression = { type: 'Identifier', value: `${SCALAR_PREFIX}${taken.length - 1}`, quoted: false, location: n.location };
      markers.set(marker, taken.length - 1);
      return marker;
    });
    return { ...item, expression };
  });
  const finalId = (k: number, firstId: number) => firstId + 2 * k;
  return {
    spec: taken.length === 0 ? spec : { ...spec, select: { ...spec.select, selectItems } },
    markerOf: (n) => markers.get(n),
    value: (k, firstId) => parseExpression(`(SELECT * FROM ${tableText(exchangeTableOf(finalId(k, firstId)))})`),
    sources: (firstId) => taken.map((_, k) => ({ fragmentId: finalId(k, firstId), table: exchangeTableOf(finalId(k, firstId)) })),
    fragments: (firstId) => taken.flatMap((stages, k) => {
      const id = finalId(k, firstId);
      const final: PlanFragment = {
        id, partitioning: 'SINGLE', sources: [{ fragmentId: id + 1, table: exchangeTableOf(id + 1) }], output: { kind: 'BROADCAST' }, columns: [],
        sql: formatSql(replaceTable(parseStatement(stages.rootSql), PARTIALS_TABLE, (at) => tableNode(exchangeTableOf(id + 1), at))),
      };
      const leaf: PlanFragment = {
        id: id + 1, partitioning: 'SOURCE', scan: { table: stages.table, ...(stages.where ? { where: stages.where } : {}) }, sources: [],
        output: { kind: 'SINGLE' }, sql: stages.leafSql, columns: stages.partialColumns,
      };
      return [final, leaf];
    }),
    tables: taken.map((s) => s.table),
  };
}

/** `e` with each marker the bucket's read of its subquery's row. */
export function withScalarValues(e: Expression, scalars: WindowScalars, firstId: number): Expression {
  return mapTree(e, (n) => {
    const k = n.type === 'Identifier' ? scalars.markerOf(n) : undefined;
    return k === undefined ? undefined : scalars.value(k, firstId);
  });
}
