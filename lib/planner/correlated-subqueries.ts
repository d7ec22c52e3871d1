// A WHERE conjunct whose subquery reaches out to the outer query's columns (TPC-H Q2's min supply cost per
// part, Q17's average quantity per part, Q21's [NOT] EXISTS per order) planned as Trino plans it after
// decorrelation, by co-partitioning: when the subquery's WHERE (or an inner join's ON) holds an equality
// `inner.c = outer.x` between a column of one of its tables and a column of the outer rows, the outer rows
// are hashed on x into the buckets of a HASH fragment, that table is scanned over its splits (its own
// conjuncts pushed, only the columns the subquery names) and hashed on c into the same buckets, and the
// subquery's other tables are broadcast whole to that fragment, where the conjunct is evaluated as written
// (DuckDB decorrelates it there). Exact: for an outer row r, every row of the FROM the subquery ranges over
// that can pass its WHERE has c = r.x, so it is hashed as r's x is and sits in r's bucket; the other
// tables are whole in every bucket. So in r's bucket the subquery sees, for r, exactly the rows it sees in
// one task, and every aggregate, EXISTS, IN, NULL (a NULL x matches no row anywhere) and empty-group answer
// is the one-task answer. Values equal under `=` hash alike: the exchange hashes numeric keys as DOUBLE
// (stage-runner.ts), and a pair of keys of other types must be of one type. A subquery with no such
// equality stays gathered (gather-planner.ts), as does one beside an outer join (query-analysis.ts).
import { formatSql, mapTree, parseStatement, walk, type AliasedRelation, type Expression, type Identifier, type Node, type Query, type Table } from '../sql/index.js';
import { fold } from '../sql/names.js';
import { quoteIdentifier } from '../sql/sql-formatter.js';
import type { ScannedTable } from '../connectors/connector.types.js';
import { ColumnScope, OPAQUE, relationsOf, type PlanRelation } from './column-resolution.js';
import { andTerms, innerJoinTables, replaceTable, sameTable, tableNode, tableText } from './plan-trees.js';
import { OPEN, type SemiSource } from './semi-joins.js';
import { estimatedBytes } from './join-order.js';
import { EXCHANGE_CATALOG, EXCHANGE_SCHEMA, type OutputPartitioning } from './fragment.types.js';
import type { Draft } from './fragment-drafts.js';
import type { PlannerMetadata, PlannerSession } from './planner.types.js';

/** A table the subquery reads, scanned in a fragment of its own: hashed on `keys`, or broadcast. */
export interface CorrelatedScan {
  /** Its placeholder in the conjunct (read through its exchange table once ids are known). */
  source: SemiSource;
  table: ScannedTable;
  /** Its own conjuncts (pushed: rows failing one pass no WHERE of the subquery). */
  where?: Expression;
  sql: string;
  /** Output column names (the table's, as the subquery names them). */
  columns: string[];
  /** Columns hashed on, paired with the conjunct's outer keys; undefined: broadcast. */
  keys?: string[];
  /** Its estimated bytes (statistics), when known. */
  bytes?: number;
}

/** A conjunct with a correlated subquery, over the outer query's symbols, its tables read as placeholders. */
export interface CorrelatedConjunct {
  expression: Expression;
  /** Outer relations and symbols it reads (inside its subquery too). */
  relations: ReadonlySet<number>;
  symbols: ReadonlySet<string>;
  /** The outer symbols the rows are hashed on, in the order of the keyed scan's keys. */
  keys: string[];
  scans: CorrelatedScan[];
  /** A select item's scalar subquery: the column its value is handed on as, instead of a filter (correlated-values.ts). */
  value?: string;
}

/** The Presto types whose values compare equal across types (hashed as DOUBLE by the exchange). */
const NUMERIC: ReadonlySet<string> = new Set(['bigint', 'integer', 'smallint', 'tinyint', 'double', 'real', 'decimal']);
const baseOf = (type: string): string => type.split('(')[0]!.trim();
/** Whether values of the two types that are equal under `=` hash alike in the exchange. */
export function hashAlike(a: string, b: string): boolean {
  const [x, y] = [baseOf(a), baseOf(b)];
  return (NUMERIC.has(x) && NUMERIC.has(y)) || a === b || (x === 'varchar' && y === 'varchar');
}

/** Trino's functions whose answer changes from call to call. */
const NONDETERMINISTIC: ReadonlySet<string> = new Set(['rand', 'random', 'uuid', 'shuffle']);
function nondeterministic(e: Expression): boolean {
  let found = false;
  walk(e, (n) => {
    if (n.type === 'FunctionCall' && NONDETERMINISTIC.has(fold(n.name.parts[n.name.parts.length - 1]!.value))) found = true;
  });
  return found;
}

const placeholderOf = (n: number): ScannedTable => ({ catalog: EXCHANGE_CATALOG, schema: EXCHANGE_SCHEMA, table: `vivace_corr${n}` });

/** The type of an outer symbol (vivace_r{relation}_{column}). */
function symbolType(outer: ColumnScope, symbol: string): string | undefined {
  const relation = Number(symbol.slice('vivace_r'.length, symbol.lastIndexOf('_')));
  const column = Number(symbol.slice(symbol.lastIndexOf('_') + 1));
  return outer.relations[relation]?.layout.columns[column]?.type;
}

/** Reads a query's conjuncts with correlated subqueries (query-analysis.ts), numbering their placeholders. */
export class CorrelatedSubqueries {
  readonly conjuncts: CorrelatedConjunct[] = [];
  private placeholders = 0;

  constructor(private readonly session: PlannerSession, private readonly metadata: PlannerMetadata) {}

  /** Every scan of every conjunct, in order (PlanChoices.correlated gives each its split flag). */
  get scans(): CorrelatedScan[] {
    return this.conjuncts.flatMap((c) => c.scans);
  }

  /**
   * `c` as a correlated conjunct over `outer`'s symbols, kept; undefined (nothing kept) when it is not one
   * subquery of one query specification over tables of the metadata, inner joined, with no subquery,
   * window, lambda, ORDER BY or LIMIT of its own, correlated by a column equality of a type that hashes alike.
   */
  read(c: Expression, outer: ColumnScope): CorrelatedConjunct | undefined {
    const subqueries: Extract<Node, { type: 'SubqueryExpression' }>[] = [];
    walk(c, (n) => {
      if (n.type !== 'SubqueryExpression') return undefined;
      subqueries.push(n);
      return false;
    });
    if (subqueries.length !== 1) return undefined;
    const sub = subqueries[0]!;
    const q = sub.query;
    if (q.with || q.orderBy || q.offset || q.limit || q.body.type !== 'QuerySpecification' || !q.body.from) return undefined;
    const spec = q.body;
    let open = false;
    walk(spec, (n) => {
      if (OPEN.has(n.type) || (n.type === 'FunctionCall' && n.window) || n.type === 'GroupingSets' || n.type === 'GroupingOperation') open = true;
    });
    if (open || spec.windows.length > 0) return undefined;
    const tables: { node: Table; alias?: Identifier }[] = [];
    if (!innerJoinTables(spec.from!, tables, [])) return undefined;
    const inner = relationsOf(tables, this.session, this.metadata);
    if (!inner) return undefined;

    const placeholders = inner.map((_, i) => placeholderOf(this.placeholders + i));
    const rewritten = rewriteSubquery(spec, tables.map((t) => t.node), inner, outer, placeholders);
    if (!rewritten) return undefined;
    const terms = termsOf(rewritten.spec, inner, outer, rewritten.made);
    if (terms.keys.length === 0) return undefined;
    // The table with the most keys is hashed; the rest are broadcast.
    const counts = inner.map((r) => terms.keys.filter((p) => p.relation === r.index).length);
    const keyed = counts.indexOf(Math.max(...counts));
    const keys = terms.keys.filter((p) => p.relation === keyed);
    const exists = c.type === 'ExistsPredicate' || (c.type === 'NotExpression' && c.value.type === 'ExistsPredicate');
    const kept = keptColumns(rewritten.spec, inner, !exists && spec.select.selectItems.some((i) => i.type === 'AllColumns'));
    const scans = inner.map((r, i) => scanOf(r, placeholders[i]!, terms.pushed[i]!, kept[i]!, i === keyed ? keys.map((p) => p.column) : undefined));

    // The conjunct over the outer symbols, its subquery rewritten (the rest of it resolved in the outer scope).
    const rewrittenSub = { ...sub, query: { ...q, body: rewritten.spec } };
    const swapped = mapTree(c, (n) => (n === sub ? rewrittenSub : undefined));
    const resolved = outer.resolve(swapped, (n) => n === rewrittenSub || (n.type === 'ExistsPredicate' && n.subquery === rewrittenSub));
    if (!resolved) return undefined;
    this.placeholders += inner.length;
    const conjunct: CorrelatedConjunct = {
      expression: resolved.expression,
      relations: new Set([...rewritten.relations, ...resolved.relations]),
      symbols: new Set([...rewritten.symbols, ...resolved.symbols]),
      keys: keys.map((p) => p.symbol),
      scans,
    };
    this.conjuncts.push(conjunct);
    return conjunct;
  }
}

type Spec = Extract<Query['body'], { type: 'QuerySpecification' }>;

/**
 * The subquery with each outer column as its symbol (`made`: those symbol nodes) and each table read
 * through its placeholder: a name resolves among the subquery's own tables first, as Trino's scopes do;
 * undefined when a name resolves in neither scope (or ambiguously), or it reads no outer column.
 */
function rewriteSubquery(spec: Spec, nodes: readonly Table[], inner: readonly PlanRelation[], outer: ColumnScope, placeholders: readonly ScannedTable[]):
  { spec: Spec; made: ReadonlySet<Node>; symbols: ReadonlySet<string>; relations: ReadonlySet<number> } | undefined {
  const symbols = new Set<string>();
  const relations = new Set<number>();
  const made = new Set<Node>();
  let failed = false;
  const hasColumn = (r: PlanRelation, column: string) => r.layout.columns.some((x) => x.name === column);
  const outerRef = (n: Node): Node => {
    const r = outer.resolve(n as Expression);
    if (!r) {
      failed = true;
      return n;
    }
    for (const s of r.symbols) symbols.add(s);
    for (const i of r.relations) relations.add(i);
    made.add(r.expression);
    return r.expression;
  };
  const placeholderAt = (n: Table, at: Node) => tableNode(placeholders[nodes.indexOf(n)]!, at);
  const replace = (n: Node): Node | undefined => {
    if (failed || OPAQUE.has(n.type)) return n;
    switch (n.type) {
      case 'SingleColumn':
        return { ...n, expression: mapTree(n.expression, replace) };
      case 'AllColumns':
        return n;
      case 'AliasedRelation':
        return n.relation.type === 'Table' ? { ...n, relation: placeholderAt(n.relation, n.relation) } : undefined;
      case 'Table': {
        // An unaliased table keeps its name as the alias its columns are qualified by.
        const aliased: AliasedRelation = { type: 'AliasedRelation', location: n.location, relation: placeholderAt(n, n), alias: n.name.parts[n.name.parts.length - 1]!, columnNames: undefined };
        return aliased;
      }
      case 'Identifier': {
        const owners = inner.filter((r) => hasColumn(r, fold(n.value)));
        if (owners.length === 1) return n;
        if (owners.length > 1) failed = true;
        return failed ? n : outerRef(n);
      }
      case 'DereferenceExpression': {
        const qualifier = n.base.type === 'Identifier' ? fold(n.base.value) : undefined;
        const named = inner.filter((r) => r.name === qualifier);
        if (named.length === 1 && hasColumn(named[0]!, fold(n.field.value))) return n;
        // An inner relation's unknown column, an ambiguous name, a row column's field: the one task says.
        if (qualifier === undefined || named.length > 0 || inner.some((r) => hasColumn(r, qualifier))) {
          failed = true;
          return n;
        }
        return outerRef(n);
      }
      case 'FunctionCall':
        return { ...n, arguments: n.arguments.map((a) => mapTree(a, replace)), filter: n.filter && mapTree(n.filter, replace), orderBy: n.orderBy && mapTree(n.orderBy, replace) };
      case 'Cast':
        return { ...n, expression: mapTree(n.expression, replace) };
      default:
        return undefined;
    }
  };
  const rewritten = mapTree(spec, replace);
  return failed || relations.size === 0 ? undefined : { spec: rewritten, made, symbols, relations };
}

/**
 * The subquery's conjuncts (WHERE and inner joins' ON alike): the keys, equalities between an inner
 * column and an outer symbol whose types hash alike; and by table, those over it alone and no outer
 * column (pushed into its scan), but for any calling a nondeterministic function.
 */
function termsOf(spec: Spec, inner: readonly PlanRelation[], outer: ColumnScope, made: ReadonlySet<Node>):
  { keys: { relation: number; column: string; symbol: string }[]; pushed: Expression[][] } {
  const innerScope = new ColumnScope(inner);
  const onConditions: Expression[] = [];
  walk(spec.from!, (n) => {
    if (n.type === 'JoinOn') onConditions.push(...andTerms(n.expression));
  });
  const readsOuter = (e: Expression) => {
    let reads = false;
    walk(e, (n) => {
      if (made.has(n)) reads = true;
    });
    return reads;
  };
  const keys: { relation: number; column: string; symbol: string }[] = [];
  const pushed: Expression[][] = inner.map(() => []);
  for (const t of [...onConditions, ...(spec.where ? andTerms(spec.where) : [])]) {
    if (!readsOuter(t)) {
      // Pushed, a conjunct runs again in the subquery: only one whose answer a second run keeps.
      const r = nondeterministic(t) ? undefined : innerScope.resolve(t);
      if (r && r.relations.size === 1) pushed[[...r.relations][0]!]!.push(t);
      continue;
    }
    if (t.type !== 'ComparisonExpression' || t.operator !== '=') continue;
    for (const [a, b] of [[t.left, t.right], [t.right, t.left]] as const) {
      if (!made.has(b) || b.type !== 'Identifier' || (a.type !== 'Identifier' && a.type !== 'DereferenceExpression')) continue;
      const r = innerScope.resolve(a);
      if (!r || r.relations.size !== 1) continue;
      const relation = [...r.relations][0]!;
      const column = a.type === 'Identifier' ? fold(a.value) : fold(a.field.value);
      const innerType = inner[relation]!.layout.columns.find((x) => x.name === column)?.type;
      const outerType = symbolType(outer, b.value);
      if (innerType && outerType && hashAlike(innerType, outerType)) keys.push({ relation, column, symbol: b.value });
    }
  }
  return { keys, pushed };
}

/**
 * The columns each table hands on: every name the subquery could read it by (a superset), all of them
 * when `starred` (a `*` that is not EXISTS's select list).
 */
function keptColumns(spec: Spec, inner: readonly PlanRelation[], starred: boolean): string[][] {
  const names = new Set<string>();
  const qualified = new Map<string, Set<string>>();
  walk(spec, (n) => {
    if (n.type === 'DereferenceExpression' && n.base.type === 'Identifier') {
      const q = fold(n.base.value);
      qualified.set(q, (qualified.get(q) ?? new Set()).add(fold(n.field.value)));
      return false;
    }
    if (n.type === 'Identifier') names.add(fold(n.value));
    return undefined;
  });
  return inner.map((r) => r.layout.columns.map((x) => x.name).filter((x) => starred || names.has(x) || (qualified.get(r.name)?.has(x) ?? false)));
}

/** A table's scan: its kept columns (and keys), its own conjuncts, hashed on `keys` or broadcast. */
function scanOf(r: PlanRelation, placeholder: ScannedTable, own: readonly Expression[], kept: readonly string[], keys: string[] | undefined): CorrelatedScan {
  const named = [...kept, ...(keys ?? []).filter((k) => !kept.includes(k))];
  const columns = named.length > 0 ? named : [r.layout.columns[0]!.name];
  const where = own.length === 0 ? undefined : own.length === 1 ? own[0] : { type: 'LogicalExpression' as const, operator: 'AND' as const, terms: own, location: own[0]!.location };
  const sql = `SELECT ${columns.map(quoteIdentifier).join(', ')} FROM ${tableText(r.table)} AS ${quoteIdentifier(r.name)}${where ? ` WHERE ${formatSql(where)}` : ''}`;
  const source: SemiSource = { query: parseStatement(sql) as Query, placeholder, tables: [r.table], splits: r.layout.splits };
  const bytes = estimatedBytes(r.layout, new Set(columns));
  return { source, table: r.table, ...(where ? { where } : {}), sql, columns, ...(keys ? { keys } : {}), ...(bytes !== undefined ? { bytes } : {}) };
}

/**
 * `probe` (the outer rows, all of the conjuncts' outer relations joined) with the correlated conjuncts
 * applied: for each run of conjuncts hashed on the same outer keys, the rows hashed on them into a HASH
 * fragment that reads each conjunct's scans (hashed alike, or broadcast) and evaluates the conjuncts there.
 * `handOn(applied)`: the symbols the plan still reads once `applied` conjuncts ran. `split`: each scan's
 * split flag, in the order of CorrelatedSubqueries.scans. `keyBuild(symbol)`: the broadcast draft of the
 * inner join whose rows hold the outer symbol (every outer row's value of it is among that draft's), or
 * undefined: a scan hashed on one key is then filtered to that draft's values of it, the subquery's rows
 * no outer row can match dropped before the exchange (as Trino's dynamic filter from a join's build side
 * does): Q17's lineitem to the parts of Brand#23 in MED BOX, Q2's partsupp to the parts of size 15.
 */
export function applyCorrelated(probe: Draft, conjuncts: readonly CorrelatedConjunct[], handOn: (applied: number) => string[], split: readonly boolean[], keyBuild: (symbol: string) => Draft | undefined = () => undefined): Draft {
  let at = 0;
  let current = probe;
  let keysOfCurrent: string | undefined;
  for (const [i, c] of conjuncts.entries()) {
    const keys = c.keys.join('\u0000');
    if (keysOfCurrent !== keys) {
      const below = current;
      below.columns = handOn(i);
      below.output = { kind: 'HASH', keys: c.keys };
      current = { partitioning: 'HASH', sources: [below], output: { kind: 'SINGLE' }, from: (x) => x(below), where: [], columns: [] };
      keysOfCurrent = keys;
    }
    for (const scan of c.scans) {
      const splits = split[at++]!;
      const output: OutputPartitioning = scan.keys ? { kind: 'HASH', keys: scan.keys } : { kind: 'BROADCAST' };
      const draft: Draft = {
        partitioning: splits ? 'SOURCE' : 'SINGLE',
        ...(splits ? { scan: { table: scan.table, ...(scan.where ? { where: scan.where } : {}) } } : {}),
        sources: [], output, from: () => '', where: [], columns: scan.columns, sql: () => scan.sql,
      };
      const build = scan.keys?.length === 1 && c.keys.length === 1 ? keyBuild(c.keys[0]!) : undefined;
      if (build) {
        const [column, symbol] = [scan.keys![0]!, c.keys[0]!];
        draft.sources.push(build);
        draft.sql = (x) => `SELECT * FROM (${scan.sql}) AS vivace_keyed WHERE ${quoteIdentifier(column)} IN (SELECT ${symbol} FROM ${x(build)})`;
      }
      current.sources.push(draft);
      (current.semis ??= []).push({ source: scan.source, draft });
    }
    if (c.value !== undefined) {
      // A value: each row gets it as a column of its own, read by the query above.
      const rows = current.from;
      const { value } = c;
      current.from = (x) => `(SELECT *, (${formatSql(c.expression)}) AS ${value} FROM ${rows(x)}) AS ${quoteIdentifier(`${value}_rows`)}`;
    } else {
      current.where.push(`(${formatSql(c.expression)})`);
    }
  }
  return current;
}

/**
 * Whether a WHERE conjunct runs in the probe's own scan tasks, with no exchange: its subquery reads one
 * table, the one the probe scans over its splits (`scanned`, the outer rows' first relation), and is
 * correlated on the column that table's parts are cut on (TableLayout.partitionedOn) with that same
 * column of the scanned rows: `l2.orderkey = l1.orderkey` over tpch's lineitem (Q21), as Trino's tpch
 * connector lets it join lineitem to itself on orderkey without a remote exchange. Exact when each task
 * reads whole parts (PlanFragment scan.whole): an outer row's key value has all its rows of the table in
 * the part the row came from, so the subquery, reading the task's parts, sees every row it sees in one
 * task. `keyColumn`: the scanned relation's column an outer symbol is (undefined for another relation's).
 */
export function colocatedWith(c: CorrelatedConjunct, scanned: PlanRelation, keyColumn: (symbol: string) => string | undefined): boolean {
  const scan = c.scans[0];
  const on = scanned.layout.partitionedOn;
  return c.value === undefined && c.scans.length === 1 && c.keys.length === 1 && on !== undefined && sameTable(scan!.table, scanned.table)
    && scan!.keys?.length === 1 && scan!.keys[0] === on && keyColumn(c.keys[0]!) === on;
}

/** `probe` (a SOURCE draft over the conjunct's table, colocatedWith) evaluating conjunct `c` over its own splits, read whole. */
export function applyColocated(probe: Draft, c: CorrelatedConjunct): void {
  const scan = c.scans[0]!;
  // The subquery reads the table itself, which this fragment's tasks read as their splits (stage-sql.ts).
  probe.where.push(`(${formatSql(replaceTable(c.expression, scan.source.placeholder, (at) => tableNode(scan.table, at)))})`);
  probe.scan = { ...probe.scan!, whole: true };
}

/**
 * Whether the tables the conjuncts broadcast are within join_max_broadcast_table_size by the statistics
 * (unknown sizes pass: a gathered plan would ship them too): the coordinator's check before it plans so.
 */
export function broadcastsFit(scans: readonly CorrelatedScan[], session: PlannerSession): boolean {
  return scans.every((s) => s.keys !== undefined || s.bytes === undefined || s.bytes <= session.maxBroadcastBytes);
}
