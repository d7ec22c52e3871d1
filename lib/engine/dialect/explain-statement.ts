// EXPLAIN [ANALYZE] [(TYPE LOGICAL|DISTRIBUTED|VALIDATE|IO)]: DuckDB plans the statement's translation
// (`EXPLAIN (FORMAT JSON)`, or `EXPLAIN (ANALYZE, FORMAT JSON)` when the plan executes), the engine plans
// the statement itself for its output columns, and explain-format.ts prints Trino's text (prestodb's for
// a client on Presto headers) in the single `Query Plan` column.
import type { DuckDBConnection } from '@duckdb/node-api';
import { randomUUID } from 'node:crypto';
import type { Plan } from '../engine.types.js';
import type { DialectContext } from './dialect-planner.js';
import type { OutputColumn, ProtocolDialect, Session } from '../../protocol/types.js';
import type { QualifiedName, Statement } from '../../sql/ast.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import { formatType } from '../../protocol/presto-type.js';
import { dialectOf } from '../../protocol/header-prefix.js';
import { vivaceVersion } from '../../protocol/vivace-version.js';
import { dialectStatementOf, type DialectStatement } from '../../sql/dialect-statement.js';
import { statementOutput } from '../../sql/statement-output.js';
import { formatSql } from '../../sql/sql-formatter.js';
import { findAll } from '../../sql/tree-walk.js';
import { valuesPlan, type Cell } from './values-plan.js';
import { varcharColumns } from './show-metadata.js';
import { CatalogNames } from './catalog-names.js';
import { parseDuckDbPlan, renderDistributedText, renderExplainText, renderIoPlan, rootEstimate, scannedTables, type DuckPlan, type DuckPlanNode, type ExplainFragment, type TableRef } from './explain-format.js';
import { parseStatement } from '../../sql/index.js';
import { quoteIdentifier } from '../../sql/sql-formatter.js';
import { prestoTypeOf } from '../../connectors/duckdb-types.js';
import { EXCHANGE_CATALOG, type DistributedPlan, type PlanFragment } from '../../planner/fragment.types.js';
import type { ScannedTable } from '../../connectors/connector.types.js';

type ExplainStatement = Extract<DialectStatement, { kind: 'explain' }>;

/** What EXPLAIN needs of the dialect layer's context. */
export type ExplainContext = Pick<DialectContext, 'sql' | 'tree' | 'session' | 'connection' | 'release' | 'plan' | 'planBound' | 'boundKey' | 'translate' | 'fragments'>;

/**
 * What EXPLAIN asks of the engine to print a statement's fragments (its DuckDbEngineOptions.distributedPlan
 * hook, filled by a worker from its connectors: the engine knows neither the cluster nor the connectors).
 */
export interface FragmentPlanning {
  /** The distributed plan of a statement's text in a session; undefined when it runs as one task. */
  plan(sql: string, session: Session): DistributedPlan | undefined;
  /** A fragment's Trino SQL in DuckDB's, each table `exchange` answers for read as that SQL. */
  translate(sql: string, exchange: (table: ScannedTable) => string | undefined): string;
}

const VALID_COLUMNS: OutputColumn[] = [{ name: 'Valid', type: { base: 'boolean' } }];
/** The output of DML and CREATE TABLE AS: Trino's single `rows` column. */
const ROWS_COLUMNS: OutputColumn[] = [{ name: 'rows', type: { base: 'bigint' } }];

/** The parts of a dotted DuckDB name, each possibly double-quoted (`memory."default".t`): one linear scan. */
export function nameParts(text: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch !== '"') current += ch;
      else if (text[i + 1] === '"') {
        current += '"';
        i++;
      } else quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === '.') {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts;
}

/** `tpch.tiny.nation` (DuckDB's name of a scanned table) as catalog, schema and table in Presto's names. */
function tableRef(duckdbName: string): TableRef | undefined {
  const parts = nameParts(duckdbName);
  if (parts.length !== 3) return undefined;
  const [database, schema, table] = parts;
  return { catalog: CatalogNames.prestoName(database) ?? database, schema, table };
}

const handle = (ref: TableRef) => `${ref.catalog}:${ref.schema}:${ref.table}`;

/**
 * Trino's handle text of a scanned table. DuckDB names the table it scans, but not a view's file scan
 * (tpch's Parquet views): that is the statement's table when it reads one, else DuckDB's function name.
 */
function tableHandles(tables: TableRef[]): (duckdbName: string) => string {
  return (duckdbName) => {
    const ref = tableRef(duckdbName);
    if (ref) return handle(ref);
    return tables.length === 1 ? handle(tables[0]!) : duckdbName;
  };
}

/** A written table's name, resolved against the session as Trino resolves it (names folded). */
function qualified(name: QualifiedName, session: Session): TableRef | undefined {
  const parts = name.parts.map((p) => (p.quoted ? p.value : p.value.toLowerCase()));
  const [catalog, schema] = parts.length === 3 ? parts : parts.length === 2 ? [session.catalog, parts[0]] : [session.catalog, session.schema];
  if (catalog === undefined || schema === undefined) return undefined;
  return { catalog, schema, table: parts[parts.length - 1] };
}

const sameTable = (a: TableRef, b: TableRef) => a.catalog === b.catalog && a.schema === b.schema && a.table === b.table;

/** The tables a statement reads, from its tree (CTE names and an INSERT's target left out), each once. */
function readTables(statement: Statement, session: Session): TableRef[] {
  const fold = (id: { value: string; quoted: boolean }) => (id.quoted ? id.value : id.value.toLowerCase());
  const ctes = new Set(findAll(statement, 'WithQuery').map((w) => fold(w.name)));
  const target = statement.type === 'Insert' ? statement.target : undefined;
  const tables: TableRef[] = [];
  for (const table of findAll(statement, 'Table')) {
    if (table === target || (table.name.parts.length === 1 && ctes.has(fold(table.name.parts[0]!)))) continue;
    const ref = qualified(table.name, session);
    if (ref && !tables.some((t) => sameTable(t, ref))) tables.push(ref);
  }
  return tables;
}

function outputTableOf(statement: Statement, session: Session): TableRef | undefined {
  switch (statement.type) {
    case 'Insert':
      return qualified(statement.target.name, session);
    case 'CreateTableAsSelect':
      return qualified(statement.name, session);
    case 'Delete':
    case 'Update':
      return qualified(statement.table.name, session);
    default:
      return undefined;
  }
}

/** DuckDB's JSON plan of a translation (`explain_value` of its one row). */
/**
 * The analyzed tree with each node's details (keys, filters, estimates) from the plain plan: the engine's
 * profiler leaves EXTRA_INFO out (it cost every profiled statement ~15%, engine/scan-profile.ts), and the
 * plan is the same tree.
 */
function withDetails(analyzed: DuckPlanNode, shape: DuckPlanNode | undefined): DuckPlanNode {
  // Same tree, node for node (a scan's name differs: READ_PARQUET in one, TABLE_SCAN in the other).
  if (!shape || shape.children.length !== analyzed.children.length) return analyzed;
  return {
    ...analyzed,
    extra: Object.keys(analyzed.extra).length > 0 ? analyzed.extra : shape.extra,
    children: analyzed.children.map((child, i) => withDetails(child, shape.children[i])),
  };
}

async function duckPlan(connection: DuckDBConnection, translation: string, analyze: boolean): Promise<DuckPlan> {
  const started = performance.now();
  const reader = await connection.runAndReadAll(`EXPLAIN (${analyze ? 'ANALYZE, ' : ''}FORMAT JSON) ${translation}`);
  const wallSeconds = (performance.now() - started) / 1000;
  const rows = reader.getRows() as unknown[][];
  const value = rows[0]?.[rows[0].length - 1];
  if (typeof value !== 'string') throw new VivaceError('GENERIC_INTERNAL_ERROR', 'DuckDB answered EXPLAIN without a plan');
  const plan = parseDuckDbPlan(value);
  // DuckDB 1.5's latency of a connection's first profiled statement counts from when its profiler was set
  // up (6.31 s for a 1.8 ms query on a worker up for 6 s): no statement outlasts its own wall time.
  if (plan.totals && plan.totals.latencySeconds > wallSeconds) return { ...plan, totals: { ...plan.totals, latencySeconds: wallSeconds } };
  return plan;
}

/**
 * The explained statement's text where it stands in the EXPLAIN (what precedes it blanked, line breaks
 * kept), so an error in it points at `line L:C` of the text as the client wrote it.
 */
function inPlace(sql: string, inner: Statement, text: string): string {
  let prefix = '';
  for (let i = 0; i < inner.location.start; i++) {
    const ch = sql[i];
    prefix += ch === '\n' || ch === '\r' ? ch : ' ';
  }
  return prefix + text;
}

/**
 * The statement's output columns, planned by the engine as a statement of its own (after the connection
 * went back, so a pool of one works); DML and CREATE TABLE AS answer Trino's `rows` without planning again.
 */
/**
 * The explained statement planned as a statement of its own: its text, or, in a prepared statement
 * whose parameters are bound (EXECUTE of `EXPLAIN ... ?`), its bound tree, which no text holds.
 */
function planInner(ctx: ExplainContext, s: ExplainStatement, inner: Statement): Promise<Plan> {
  if (ctx.boundKey === undefined) return ctx.plan(inPlace(ctx.sql, inner, s.statement), ctx.session);
  return ctx.planBound({ tree: inner, sql: ctx.sql, key: `explained\u0000${ctx.boundKey}` }, ctx.session);
}

async function outputColumns(ctx: ExplainContext, s: ExplainStatement, inner: Statement): Promise<OutputColumn[]> {
  if (statementOutput(inner).kind === 'count') return ROWS_COLUMNS;
  const planned = await planInner(ctx, s, inner);
  planned.release();
  return planned.columns;
}

function render(ctx: ExplainContext, s: ExplainStatement, dialect: ProtocolDialect, plan: DuckPlan, columns: OutputColumn[], analysisMillis?: number): string {
  const inner = ctx.tree?.type === 'Explain' ? ctx.tree.statement : undefined;
  return renderExplainText({
    dialect,
    type: s.type === 'LOGICAL' || (s.type === undefined && dialect === 'presto') ? 'LOGICAL' : 'DISTRIBUTED',
    analyze: s.analyze,
    version: vivaceVersion(),
    columns: columns.map((c) => ({ name: c.name, type: formatType(c.type, dialect) })),
    plan,
    tableName: tableHandles(inner ? readTables(inner, ctx.session) : []),
    ...(analysisMillis === undefined ? {} : { analysisMillis }),
  });
}

/** IoPlanPrinter's JSON: the tables the statement reads (estimates from DuckDB's scans of them), the one it writes. */
function ioPlan(plan: DuckPlan, inner: Statement, session: Session): string {
  const tables = readTables(inner, session);
  const scans = scannedTables(plan, (name) => tableRef(name) ?? (tables.length === 1 ? tables[0] : undefined));
  const inputs = tables.map((table) => scans.find((scan) => sameTable(scan.table, table)) ?? { table });
  return renderIoPlan(inputs, outputTableOf(inner, session), rootEstimate(plan));
}

const tableKey = (t: ScannedTable) => `${t.catalog}\u0000${t.schema}\u0000${t.table}`;

/** A fragment's output column names and DuckDB types, from its translation prepared (not run). */
async function fragmentColumns(connection: DuckDBConnection, translation: string): Promise<{ name: string; duckdb: string; type: string }[]> {
  const prepared = await connection.prepare(translation);
  try {
    const columns = [];
    for (let i = 0; i < prepared.columnCount; i++) {
      const type = prepared.columnType(i);
      columns.push({ name: prepared.columnName(i), duckdb: type.toString(), type: formatType(prestoTypeOf(type), 'trino') });
    }
    return columns;
  } finally {
    prepared.destroySync();
  }
}

/**
 * DuckDB's plan of each fragment of `plan`, producers first. A fragment's scan reads its whole table; each
 * exchange it reads stands for its producer's output as a one-row temp table under columns of the
 * producer's types computed from random(), which DuckDB's optimizer can neither fold away (as it folds an
 * empty table) nor see through (as it sees through constants), and whose scan the text prints as
 * Trino's RemoteSource. The temp tables are dropped before the connection goes back.
 */
async function fragmentPlans(ctx: ExplainContext, planning: FragmentPlanning, plan: DistributedPlan): Promise<{ fragments: ExplainFragment[]; exchangeOf: (duckdbName: string) => number | undefined }> {
  const { connection } = ctx;
  const prefix = `vivace_explain_${randomUUID().replaceAll('-', '')}`;
  /** The SQL standing for each explained fragment's output, and the stand-ins' table names. */
  const standIns = new Map<number, string>();
  const tables = new Map<string, number>();
  const fragments: ExplainFragment[] = [];
  try {
    // Root first, each fragment after its consumer (fragment.types.ts): backwards, producers come first.
    for (const fragment of [...plan.fragments].reverse()) {
      const sources = new Map(fragment.sources.map((s) => [tableKey(s.table), standIns.get(s.fragmentId)]));
      const translation = planning.translate(fragment.sql, (table) => sources.get(tableKey(table)));
      const columns = await fragmentColumns(connection, translation);
      const names = columns.length === fragment.columns.length ? fragment.columns : columns.map((c) => c.name);
      fragments.push({
        id: fragment.id,
        partitioning: fragment.partitioning,
        output: fragment.output,
        columns: columns.map((c, i) => ({ name: names[i]!, type: c.type })),
        plan: await duckPlan(connection, translation, false),
        tableName: tableHandles(scannedBy(fragment, ctx.session)),
        ...(fragment.inline ? { inline: true } : {}),
      });
      if (fragment.id === 0) continue;
      const table = `${prefix}_f${fragment.id}`;
      tables.set(table, fragment.id);
      await connection.run(`CREATE TEMP TABLE ${table} AS SELECT 1 AS vivace_row`);
      const values = columns.map((c, i) => `try_cast(CAST(random() AS VARCHAR) AS ${c.duckdb}) AS ${quoteIdentifier(names[i]!)}`);
      standIns.set(fragment.id, `SELECT ${values.join(', ')} FROM temp.main.${table}`);
    }
  } finally {
    for (const table of tables.keys()) await connection.run(`DROP TABLE IF EXISTS temp.main.${table}`);
  }
  return { fragments, exchangeOf: (duckdbName) => tables.get(nameParts(duckdbName).at(-1) ?? '') };
}

/** The tables a fragment's SQL reads itself (its exchange tables left out). */
function scannedBy(fragment: PlanFragment, session: Session): TableRef[] {
  return readTables(parseStatement(fragment.sql), session).filter((t) => t.catalog !== EXCHANGE_CATALOG);
}

/**
 * The statement's fragments when EXPLAIN prints Trino's distributed plan of it (EXPLAIN and EXPLAIN (TYPE
 * DISTRIBUTED) for a Trino client) and it has one; undefined: the one fragment of its translation. EXPLAIN
 * ANALYZE stays one fragment: the statement runs as one task there (a run of the fragments is the
 * scheduler's). A fragment DuckDB cannot plan on its own leaves the statement's own plan.
 */
async function distributedText(ctx: ExplainContext, s: ExplainStatement, dialect: ProtocolDialect): Promise<((columns: OutputColumn[]) => string) | undefined> {
  const planning = ctx.fragments;
  if (!planning || s.analyze || dialect !== 'trino' || (s.type !== undefined && s.type !== 'DISTRIBUTED') || ctx.boundKey !== undefined) return undefined;
  const plan = planning.plan(s.statement, ctx.session);
  if (!plan) return undefined;
  let explained: Awaited<ReturnType<typeof fragmentPlans>>;
  try {
    explained = await fragmentPlans(ctx, planning, plan);
  } catch {
    return undefined;
  }
  return (columns) => renderDistributedText({ version: vivaceVersion(), columns: columns.map((c) => ({ name: c.name, type: formatType(c.type, dialect) })), ...explained });
}

/** A plan over rows known now; the connection is already back. */
const answered = (columns: OutputColumn[], rows: Cell[][]): Plan => valuesPlan({ columns, rows: async () => rows, release: () => undefined });

export async function planExplain(ctx: ExplainContext, s: ExplainStatement): Promise<Plan> {
  if (ctx.tree?.type !== 'Explain' || !ctx.translate) throw new VivaceError('GENERIC_INTERNAL_ERROR', 'EXPLAIN without its statement tree');
  if (s.format !== undefined && s.format !== 'TEXT') {
    ctx.release();
    throw new VivaceError('NOT_SUPPORTED', `EXPLAIN format ${s.format} is not supported`);
  }
  const inner = ctx.tree.statement;
  const dialect = dialectOf(ctx.session.prefix);
  // Statements DuckDB does not plan (SHOW, USE, SET SESSION, ...) and DDL: Trino explains a data
  // definition as its own text, and validates it by planning it.
  if (dialectStatementOf(inner, ctx.sql) !== undefined || statementOutput(inner).kind === 'ddl') {
    ctx.release();
    if (s.analyze) throw new VivaceError('NOT_SUPPORTED', `EXPLAIN ANALYZE doesn't support statement type: ${inner.type}`);
    const planned = await planInner(ctx, s, inner);
    planned.release();
    if (s.type === 'VALIDATE') return answered(VALID_COLUMNS, [[true]]);
    return answered(varcharColumns('Query Plan'), [[formatSql(inner)]]);
  }
  const translation = ctx.translate(inner);
  if (s.analyze) {
    // EXPLAIN ANALYZE runs the statement when the plan executes; its output columns are planned after.
    const { connection } = ctx;
    const rows = async (): Promise<Cell[][]> => {
      // DuckDB profiles some statements (INSERT) without their tree: the tree then comes from plain EXPLAIN, run first.
      const shape = await duckPlan(connection, translation, false);
      const analyzed = await duckPlan(connection, translation, true);
      const plan = analyzed.root.operator === 'UNKNOWN' ? { ...analyzed, root: shape.root } : { ...analyzed, root: withDetails(analyzed.root, shape.root) };
      ctx.release();
      const started = Date.now();
      const columns = await outputColumns(ctx, s, inner);
      return [[render(ctx, s, dialect, plan, columns, Date.now() - started)]];
    };
    return valuesPlan({ columns: varcharColumns('Query Plan'), rows, release: ctx.release, interrupt: () => connection.interrupt() });
  }
  let plan: DuckPlan;
  try {
    plan = await duckPlan(ctx.connection, translation, false);
  } catch (err) {
    // The engine's own planning of the statement words the error as Trino does, at its position.
    ctx.release();
    await outputColumns(ctx, s, inner);
    throw err;
  }
  let distributed: Awaited<ReturnType<typeof distributedText>>;
  try {
    distributed = await distributedText(ctx, s, dialect);
  } finally {
    ctx.release();
  }
  const columns = await outputColumns(ctx, s, inner);
  if (s.type === 'VALIDATE') return answered(VALID_COLUMNS, [[true]]);
  if (s.type === 'IO') return answered(varcharColumns('Query Plan'), [[ioPlan(plan, inner, ctx.session)]]);
  return answered(varcharColumns('Query Plan'), [[distributed ? distributed(columns) : render(ctx, s, dialect, plan, columns)]]);
}
