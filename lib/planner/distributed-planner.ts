// The distributed plan of a query over several tables that every worker reads alike (tpch, the lake):
// its FROM's inner joins and WHERE become scans with their own predicates pushed down, joined in the
// order join-order.ts chooses, each join either in the probe side's tasks with the build side broadcast
// to them, or in a new hash-partitioned fragment fed by both sides hashed on the join keys (Trino's
// REPLICATED and PARTITIONED joins). Above the last join the query's own work runs as a query over one
// table of the joined rows: its aggregation split into partial (in the last join's tasks) and final (in
// the root) as aggregate-stages.ts splits it, or, when it does not split, all of it in the root. What
// this planner does not take (outer joins, subqueries, windows, set operations, SELECT *, tables one
// worker holds) is undefined here and runs as before.
import {
  formatSql, parseStatement,
  type Expression, type Identifier, type Node, type Query, type QuerySpecification, type Relation, type SelectItem, type Statement, type Table,
} from '../sql/index.js';
import { quoteIdentifier } from '../sql/sql-formatter.js';
import { fold } from '../sql/names.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import { GROUP_KEY_PREFIX, planStages, PARTIALS_TABLE } from './aggregate-stages.js';
import { hashFinal } from './hash-final.js';
import { ColumnScope, relationsOf, symbolOf, type PlanRelation, type ResolvedExpression } from './column-resolution.js';
import { andTerms, callsAggregate, innerJoinTables, replaceTable, tableNode, tableText } from './plan-trees.js';
import { DerivedScope, derivedColumnName, mergeableDerived } from './derived-tables.js';
import { SemiJoins, type SemiSource } from './semi-joins.js';
import { chooseJoins, estimatedBytes, validChoices, type JoinEdge } from './join-order.js';
import {
  EXCHANGE_CATALOG, exchangeTableOf,
  type DistributedPlan, type FragmentPartitioning, type OutputPartitioning, type PlanChoices, type PlanFragment,
} from './fragment.types.js';
import type { PlannerMetadata, PlannerSession } from './planner.types.js';

/** The joined rows as the query's own work reads them (a stand-in the fragments never name). */
const JOINED: ScannedTable = { catalog: EXCHANGE_CATALOG, schema: 'exchange', table: 'joined' };

/** A WHERE's conjuncts, with those every branch of an OR shares beside it (sharedByDisjuncts). */
function conjuncts(e: Expression | undefined): Expression[] {
  return e ? andTerms(e).flatMap((t) => [t, ...sharedByDisjuncts(t)]) : [];
}

/**
 * The conjuncts every branch of an OR has (TPC-H Q19's `p.partkey = l.partkey` in each of its three), as
 * conjuncts of their own beside the OR, as Trino's planner extracts them: (X AND A) OR (X AND B) is
 * X AND ((X AND A) OR (X AND B)), so the join finds its equi-join edge. The OR itself stays as written.
 */
function sharedByDisjuncts(e: Expression): Expression[] {
  if (e.type !== 'LogicalExpression' || e.operator !== 'OR') return [];
  const branches = e.terms.map((t) => conjuncts(t));
  const texts = branches.map((b) => new Set(b.map((c) => formatSql(c))));
  return branches[0]!.filter((c) => texts.every((t) => t.has(formatSql(c))));
}

/** A fragment while the plan is built: its SQL is rendered once every fragment has its id. */
interface Draft {
  partitioning: FragmentPartitioning;
  scan?: { table: ScannedTable; where?: Expression };
  sources: Draft[];
  output: OutputPartitioning;
  /** The FROM clause's text, given each draft's exchange table name. */
  from: (exchange: (d: Draft) => string) => string;
  where: string[];
  /** The whole SQL, when it is more than SELECT symbols FROM ... WHERE ... (the last fragment, the root). */
  sql?: (exchange: (d: Draft) => string) => string;
  /** Output symbols (or partial columns). */
  columns: string[];
  /** Semi-join sources its SQL reads through placeholders (semi-joins.ts), with their drafts. */
  semis?: { source: SemiSource; draft: Draft }[];
}

/** The analysed query: its relations, the scope, and each part of the query resolved. */
interface Analysis {
  query: Query;
  spec: QuerySpecification;
  relations: PlanRelation[];
  scope: ColumnScope;
  pushed: Expression[][];
  edges: { left: string; right: string; leftRelation: number; rightRelation: number }[];
  residuals: ResolvedExpression[];
  /** The query above the joins over JOINED, columns as symbols. */
  above: Query;
  /** Symbols the query above the joins reads. */
  aboveSymbols: ReadonlySet<string>;
  /** Stand-alone IN subqueries, read as broadcast sources (semi-joins.ts). */
  semis: SemiJoins;
}

function analyse(statement: Statement, session: PlannerSession, metadata: PlannerMetadata): Analysis | undefined {
  if (statement.type !== 'Query' || statement.with || statement.offset) return undefined;
  if (statement.limit && statement.limit.type !== 'Limit') return undefined;
  if (statement.body.type !== 'QuerySpecification') return undefined;
  const spec = statement.body;
  if (!spec.from || spec.windows.length > 0 || spec.select.selectItems.some((i) => i.type !== 'SingleColumn')) return undefined;
  // The joins are the query's own, or those of a derived table merged into it (derived-tables.ts).
  const derived = mergeableDerived(spec);
  const joinSpec = derived?.inner ?? spec;
  const tables: { node: Table; alias?: Identifier }[] = [];
  const conditions: Expression[] = [];
  if (!joinSpec.from || !innerJoinTables(joinSpec.from, tables, conditions)) return undefined;
  const relations = relationsOf(tables, session, metadata);
  if (!relations) return undefined;
  const scope = new ColumnScope(relations);

  const pushed: Expression[][] = relations.map(() => []);
  const edges: Analysis['edges'] = [];
  const residuals: ResolvedExpression[] = [];
  // The outer query reads the derived table's columns as the inner items' expressions.
  let outer: Pick<ColumnScope, 'resolve'> = scope;
  if (derived) {
    const columns = new Map<string, ResolvedExpression>();
    for (const item of derived.inner.select.selectItems) {
      if (item.type !== 'SingleColumn') return undefined;
      const name = derivedColumnName(item);
      const r = scope.resolve(item.expression);
      if (!r) return undefined;
      // A name given twice is ambiguous when read: leave such a query to one task.
      if (name !== undefined) columns.set(name, columns.has(name) ? { expression: item.expression, relations: new Set([-1]), symbols: new Set() } : r);
    }
    if ([...columns.values()].some((c) => c.relations.has(-1))) return undefined;
    outer = new DerivedScope(columns, derived.name);
    for (const c of conjuncts(spec.where)) {
      const r = outer.resolve(c);
      if (!r) return undefined;
      residuals.push(r);
    }
  }
  const semis = new SemiJoins(session, metadata);
  for (const written of [...conditions.flatMap(conjuncts), ...conjuncts(joinSpec.where)]) {
    const c = semis.rewrite(written);
    const r = scope.resolve(c, semis.isPlaceholder);
    if (!r) return undefined;
    const e = r.expression;
    if (r.relations.size === 1) {
      pushed[[...r.relations][0]!]!.push(c);
    } else if (e.type === 'ComparisonExpression' && e.operator === '=' && e.left.type === 'Identifier' && e.right.type === 'Identifier' && r.relations.size === 2) {
      const [a, b] = [relationOfSymbol(e.left.value), relationOfSymbol(e.right.value)];
      edges.push({ left: e.left.value, right: e.right.value, leftRelation: a, rightRelation: b });
    } else {
      residuals.push(r);
    }
  }

  // One table is the two-stage path's (aggregate-stages.ts), unless a semi-join joins it to its subquery's.
  if (relations.length < 2 && semis.sources.length === 0) return undefined;

  // The query above the joins: its select, GROUP BY, HAVING and ORDER BY as symbols over JOINED.
  const symbols = new Set<string>();
  const use = (r: ResolvedExpression | undefined): Expression | undefined => {
    if (!r) return undefined;
    for (const s of r.symbols) symbols.add(s);
    return r.expression;
  };
  const items: SelectItem[] = [];
  for (const item of spec.select.selectItems) {
    if (item.type !== 'SingleColumn') return undefined;
    const e = use(outer.resolve(item.expression));
    if (!e) return undefined;
    // A plain column keeps its name as the output's (output-names.ts), now that it reads a symbol.
    const named = item.alias ?? (item.expression.type === 'Identifier' ? item.expression : item.expression.type === 'DereferenceExpression' ? item.expression.field : undefined);
    items.push({ ...item, expression: e, alias: named });
  }
  let groupBy = spec.groupBy;
  if (groupBy) {
    const elements = [];
    for (const element of groupBy.groupingElements) {
      if (element.type !== 'SimpleGroupBy') return undefined;
      const expressions = [];
      for (const g of element.expressions) {
        const e = use(outer.resolve(g));
        if (!e) return undefined;
        expressions.push(e);
      }
      elements.push({ ...element, expressions });
    }
    groupBy = { ...groupBy, groupingElements: elements };
  }
  const having = spec.having && use(outer.resolve(spec.having));
  if (spec.having && !having) return undefined;
  // ORDER BY may name an output column by its alias (Trino resolves those first) or its ordinal.
  const aliases = new Set(spec.select.selectItems.flatMap((i) => (i.type === 'SingleColumn' && i.alias ? [fold(i.alias.value)] : [])));
  const isAlias = (n: Node) => n.type === 'Identifier' && aliases.has(fold(n.value));
  let orderBy = statement.orderBy;
  if (orderBy) {
    const sortItems = [];
    for (const s of orderBy.sortItems) {
      const e = use(outer.resolve(s.sortKey, isAlias));
      if (!e) return undefined;
      sortItems.push({ ...s, sortKey: e });
    }
    orderBy = { ...orderBy, sortItems };
  }
  const aboveSpec: QuerySpecification = { ...spec, select: { ...spec.select, selectItems: items }, from: tableNode(JOINED, spec), where: undefined, groupBy, having };
  const above: Query = { ...statement, body: aboveSpec, orderBy };
  return { query: statement, spec, relations, scope, pushed, edges, residuals, above, aboveSymbols: symbols, semis };
}

/** The relation a symbol belongs to (symbolOf's shape). */
function relationOfSymbol(symbol: string): number {
  return Number(symbol.slice('vivace_r'.length, symbol.lastIndexOf('_')));
}

/**
 * The distributed plan of `statement`, or undefined when it is not a query this planner takes. Without
 * `choices` they are made from the metadata's statistics (the coordinator); with them (a worker) the
 * same fragments follow, or undefined when they do not fit the statement.
 */
export function planDistributed(statement: Statement, session: PlannerSession, metadata: PlannerMetadata, given?: PlanChoices): DistributedPlan | undefined {
  const a = analyse(statement, session, metadata);
  if (!a) return undefined;
  const n = a.relations.length;

  // Each relation's symbols that some part of the plan above its scan reads.
  const needed: Set<string>[] = a.relations.map(() => new Set());
  const need = (symbol: string) => needed[relationOfSymbol(symbol)]!.add(symbol);
  for (const e of a.edges) { need(e.left); need(e.right); }
  for (const r of a.residuals) for (const s of r.symbols) need(s);
  for (const s of a.aboveSymbols) need(s);
  // A table none of whose columns is read above its scan (count(*) over it) still hands on its rows: by its first column.
  for (const [i, s] of needed.entries()) if (s.size === 0) s.add(symbolOf(i, 0));

  const relationEdges: JoinEdge[] = a.edges.map((e) => ({ left: e.leftRelation, right: e.rightRelation }));
  // Splitting pays only when some table splits; small tables alone stay one task (validChoices).
  const split = a.relations.map((r) => r.layout.splits);
  const made = given ?? chooseJoins(a.relations.map((r) => estimatedBytes(r.layout, columnNames(r, needed[r.index]!))), relationEdges, split, session);
  if (!validChoices(made, n)) return undefined;
  // Each semi-join's subquery in two stages when it can be (the coordinator's word, on a worker).
  const semiSplit = given ? (given.semis ?? []) : a.semis.sources.map((x) => x.stages !== undefined && x.splits);
  if (semiSplit.length !== a.semis.sources.length || semiSplit.some((s, i) => s !== false && (s !== true || !a.semis.sources[i]!.stages))) return undefined;
  const choices: PlanChoices = semiSplit.length > 0 ? { ...made, semis: semiSplit } : made;

  const scanDraft = (r: PlanRelation, output: OutputPartitioning): Draft => {
    const symbols = [...needed[r.index]!].sort();
    const where = a.pushed[r.index]!;
    const whereText = where.length > 0 ? ` WHERE ${where.map((w) => `(${formatSql(w)})`).join(' AND ')}` : '';
    const select = symbols.map((s) => `${quoteIdentifier(columnOf(r, s))} AS ${s}`).join(', ');
    const inner = `SELECT ${select} FROM ${tableText(r.table)} AS ${quoteIdentifier(r.name)}${whereText}`;
    // Split pruning reads the conjuncts without a semi-join's subquery.
    const prunable = where.filter((w) => a.semis.readIn(w).length === 0);
    const whereTree = prunable.length === 0 ? undefined : prunable.length === 1 ? prunable[0] : { type: 'LogicalExpression' as const, operator: 'AND' as const, terms: prunable, location: prunable[0]!.location };
    const splits = choices.split[r.index]!;
    const draft: Draft = {
      partitioning: splits ? 'SOURCE' : 'SINGLE',
      ...(splits ? { scan: { table: r.table, ...(whereTree ? { where: whereTree } : {}) } } : {}),
      sources: [],
      output,
      from: () => `(${inner}) AS ${quoteIdentifier(`vivace_s${r.index}`)}`,
      where: [],
      columns: symbols,
    };
    for (const w of where) readSemis(draft, w);
    return draft;
  };
  const semiDrafts = new Map<SemiSource, Draft>();
  /**
   * Makes `d` read the semi-join sources `e` reads: each runs once, its rows broadcast; in a SINGLE
   * fragment, or (an aggregation over one table that splits) in two stages over the table's splits.
   */
  const readSemis = (d: Draft, e: Expression) => {
    for (const source of a.semis.readIn(e)) {
      let semi = semiDrafts.get(source);
      if (!semi) {
        const { stages } = source;
        if (semiSplit[a.semis.sources.indexOf(source)] && stages) {
          const leaf: Draft = {
            partitioning: 'SOURCE', scan: { table: stages.table, ...(stages.where ? { where: stages.where } : {}) }, sources: [], output: { kind: 'SINGLE' },
            from: () => '', where: [], columns: stages.partialColumns, sql: () => stages.leafSql,
          };
          semi = {
            partitioning: 'SINGLE', sources: [leaf], output: { kind: 'BROADCAST' }, from: () => '', where: [], columns: [],
            sql: (x) => formatSql(replaceTable(parseStatement(stages.rootSql), PARTIALS_TABLE, (at) => tableNodeOf(x(leaf), at))),
          };
        } else {
          semi = { partitioning: 'SINGLE', sources: [], output: { kind: 'BROADCAST' }, from: () => '', where: [], columns: [], sql: () => formatSql(source.query) };
        }
        semiDrafts.set(source, semi);
      }
      if (!d.sources.includes(semi)) d.sources.push(semi);
      (d.semis ??= []).push({ source, draft: semi });
    }
  };

  const joined = new Set<number>([choices.order[0]!]);
  let probe = scanDraft(a.relations[choices.order[0]!]!, { kind: 'SINGLE' });
  const applied = new Set<ResolvedExpression>();
  const applyResiduals = (d: Draft) => {
    for (const r of a.residuals) {
      if (applied.has(r) || ![...r.relations].every((i) => joined.has(i))) continue;
      applied.add(r);
      d.where.push(`(${formatSql(r.expression)})`);
      readSemis(d, r.expression);
    }
  };
  applyResiduals(probe);
  /** Symbols that the rest of the plan reads, once `joined` holds these relations. */
  const stillNeeded = (): string[] => {
    const out = new Set<string>(a.aboveSymbols);
    for (const e of a.edges) if (!(joined.has(e.leftRelation) && joined.has(e.rightRelation))) { out.add(e.left); out.add(e.right); }
    for (const r of a.residuals) if (!applied.has(r)) for (const s of r.symbols) out.add(s);
    return [...out].filter((s) => joined.has(relationOfSymbol(s))).sort();
  };

  for (let step = 1; step < n; step++) {
    const next = choices.order[step]!;
    const relation = a.relations[next]!;
    const keys = a.edges.flatMap((e) => {
      if (e.rightRelation === next && joined.has(e.leftRelation)) return [{ probe: e.left, build: e.right }];
      if (e.leftRelation === next && joined.has(e.rightRelation)) return [{ probe: e.right, build: e.left }];
      return [];
    });
    const distribution = choices.joins[step - 1]!;
    if (keys.length === 0 && distribution !== 'BROADCAST') return undefined;
    const on = keys.map((k) => `${k.probe} = ${k.build}`).join(' AND ');
    if (distribution === 'BROADCAST') {
      const build = scanDraft(relation, { kind: 'BROADCAST' });
      const before = probe.from;
      probe.sources.push(build);
      probe.from = (x) => `${before(x)} ${keys.length > 0 ? 'JOIN' : 'CROSS JOIN'} ${x(build)}${keys.length > 0 ? ` ON ${on}` : ''}`;
      joined.add(next);
    } else {
      const probeColumns = stillNeeded();
      const left = probe;
      left.columns = probeColumns;
      left.output = { kind: 'HASH', keys: keys.map((k) => k.probe) };
      const build = scanDraft(relation, { kind: 'HASH', keys: keys.map((k) => k.build) });
      joined.add(next);
      probe = { partitioning: 'HASH', sources: [left, build], output: { kind: 'SINGLE' }, from: (x) => `${x(left)} JOIN ${x(build)} ON ${on}`, where: [], columns: [] };
    }
    applyResiduals(probe);
  }
  if (applied.size !== a.residuals.length) return undefined;

  // The query's own work over the joined rows: partial aggregation in the last join's tasks and the final
  // in the root when it splits so, else all of it in the root.
  const last = probe;
  last.output = { kind: 'SINGLE' };
  const aboveSql = formatSql(a.above);
  const stages = planStages(parseStatement(aboveSql), {}, new Set([EXCHANGE_CATALOG]));
  const joinSql = (x: (d: Draft) => string, columns: readonly string[]) =>
    `SELECT ${columns.length > 0 ? columns.join(', ') : '1 AS vivace_one'} FROM ${last.from(x)}${last.where.length > 0 ? ` WHERE ${last.where.join(' AND ')}` : ''}`;
  const joinedColumns = [...a.aboveSymbols].sort();
  let root: Draft;
  if (stages) {
    last.columns = stages.partialColumns;
    last.sql = (x) => formatSql(replaceTable(parseStatement(stages.leafSql), JOINED, () => derivedTable(joinSql(x, joinedColumns), JOINED.table)));
    const keys = stages.partialColumns.filter((c) => c.startsWith(GROUP_KEY_PREFIX));
    const split = keys.length > 0 ? hashFinal(parseStatement(stages.rootSql) as Query) : undefined;
    if (split) {
      // Grouped: the final aggregation runs in a HASH stage on the group keys, the root only sorts.
      last.output = { kind: 'HASH', keys };
      const final: Draft = {
        partitioning: 'HASH', sources: [last], output: { kind: 'SINGLE' }, from: () => '', where: [], columns: split.columns,
        sql: (x) => formatSql(replaceTable(split.bucketQuery, PARTIALS_TABLE, (at) => tableNodeOf(x(last), at))),
      };
      root = { partitioning: 'SINGLE', sources: [final], output: { kind: 'SINGLE' }, from: () => '', where: [], columns: [], sql: (x) => formatSql(split.rootQuery(tableNodeOf(x(final), a.query))) };
    } else {
      root = { partitioning: 'SINGLE', sources: [last], output: { kind: 'SINGLE' }, from: () => '', where: [], columns: [], sql: (x) => formatSql(replaceTable(parseStatement(stages.rootSql), PARTIALS_TABLE, (at) => tableNodeOf(x(last), at))) };
    }
  } else {
    last.columns = joinedColumns;
    const topN = partialTopN(a.above);
    last.sql = (x) => `${joinSql(x, joinedColumns)}${topN}`;
    root = { partitioning: 'SINGLE', sources: [last], output: { kind: 'SINGLE' }, from: () => '', where: [], columns: [], sql: (x) => formatSql(replaceTable(a.above, JOINED, (at) => tableNodeOf(x(last), at))) };
  }
  // Every table any fragment reads: a user with a mask or row filter on one runs the query as one task.
  const tables = new Map<string, ScannedTable>();
  for (const t of [...a.relations.map((r) => r.table), ...a.semis.sources.flatMap((x) => x.tables)]) tables.set(`${t.catalog}\u0000${t.schema}\u0000${t.table}`, t);
  return { fragments: render(root), choices, tables: [...tables.values()] };
}

/**
 * ` ORDER BY ... LIMIT n` (or ` LIMIT n`) for the last join's tasks when the query above the joins only
 * projects, sorts and limits (Trino's partial TopN / partial limit): each task keeps its first n rows in the
 * query's order, the root sorts those. Sort keys read as the select items they name (an ordinal, an alias).
 */
function partialTopN(above: Query): string {
  const spec = above.body as QuerySpecification;
  if (!above.limit || above.limit.type !== 'Limit' || above.limit.rowCount.type !== 'LongLiteral') return '';
  if (spec.select.distinct || spec.groupBy || spec.having || callsAggregate(spec.select) || (above.orderBy && callsAggregate(above.orderBy))) return '';
  const items = spec.select.selectItems.flatMap((i) => (i.type === 'SingleColumn' ? [i] : []));
  const keys: string[] = [];
  for (const s of above.orderBy?.sortItems ?? []) {
    let key: Expression = s.sortKey;
    if (key.type === 'LongLiteral') key = items[Number(key.value) - 1]?.expression ?? key;
    else if (key.type === 'Identifier') key = items.find((i) => i.alias && fold(i.alias.value) === fold((key as Identifier).value))?.expression ?? key;
    if (key.type === 'LongLiteral') return '';
    keys.push([formatSql(key), s.ordering ?? '', s.nullOrdering ? `NULLS ${s.nullOrdering}` : ''].filter((t) => t !== '').join(' '));
  }
  return `${keys.length > 0 ? ` ORDER BY ${keys.join(', ')}` : ''} LIMIT ${above.limit.rowCount.value}`;
}

function columnNames(r: PlanRelation, symbols: ReadonlySet<string>): Set<string> {
  return new Set([...symbols].map((s) => columnOf(r, s)));
}

function columnOf(r: PlanRelation, symbol: string): string {
  return r.layout.columns[Number(symbol.slice(symbol.lastIndexOf('_') + 1))]!.name;
}

/** A Table node for an exchange table's text (catalog.schema.table, as exchangeName prints it). */
function tableNodeOf(text: string, at: Node): Table {
  const [catalog, schema, table] = text.split('.');
  return tableNode({ catalog: catalog!, schema: schema!, table: table! }, at);
}

function derivedTable(sql: string, alias: string): Relation {
  const query = parseStatement(sql) as Query;
  return {
    type: 'AliasedRelation', location: query.location, columnNames: undefined,
    alias: { type: 'Identifier', value: alias, quoted: false, location: query.location },
    relation: { type: 'TableSubquery', query, location: query.location },
  };
}

/** Ids (root 0, then breadth first through the sources, as Trino numbers fragments) and each fragment's SQL. */
function render(root: Draft): PlanFragment[] {
  const ids = new Map<Draft, number>();
  const queue = [root];
  while (queue.length > 0) {
    const d = queue.shift()!;
    if (ids.has(d)) continue;
    ids.set(d, ids.size);
    queue.push(...d.sources);
  }
  const exchange = (d: Draft) => {
    const t = exchangeTableOf(ids.get(d)!);
    return `${t.catalog}.${t.schema}.${t.table}`;
  };
  return [...ids.entries()].map(([d, id]) => {
    let sql = d.sql ? d.sql(exchange) : `SELECT ${d.columns.join(', ')} FROM ${d.from(exchange)}${d.where.length > 0 ? ` WHERE ${d.where.join(' AND ')}` : ''}`;
    // A semi-join's placeholder reads its source's exchange table, now that the source has its id.
    const semis = d.semis ?? [];
    if (semis.length > 0) sql = formatSql(semis.reduce((tree, x) => replaceTable(tree, x.source.placeholder, (at) => tableNodeOf(exchange(x.draft), at)), parseStatement(sql)));
    // Every fragment must be a query the parser takes back (it is the printer's own text).
    parseStatement(sql);
    return {
      id,
      partitioning: d.partitioning,
      ...(d.scan ? { scan: d.scan } : {}),
      sources: d.sources.map((s) => ({ fragmentId: ids.get(s)!, table: exchangeTableOf(ids.get(s)!) })),
      output: d.output,
      sql,
      columns: d.columns,
    };
  });
}
