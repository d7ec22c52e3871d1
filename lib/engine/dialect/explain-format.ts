// EXPLAIN's text as Trino and prestodb print it (PlanPrinter / TextRenderer, IoPlanPrinter), built from
// DuckDB's plan (`EXPLAIN (FORMAT JSON)`, `EXPLAIN (ANALYZE, FORMAT JSON)`) and the statement's output
// columns. The tree is DuckDB's, its operators named as Trino names theirs; the root is Trino's
// `Output[columnNames = [...]]` with the statement's real column names and types. Pure: no DuckDB here.

import { formatDuration } from '../../protocol/duration.js';

/** One DuckDB operator, from either JSON form of its plan. */
export interface DuckPlanNode {
  operator: string;
  extra: Record<string, unknown>;
  children: DuckPlanNode[];
  /** EXPLAIN ANALYZE only. */
  stats?: { seconds: number; rows: number; bytes: number; scanned: number };
}

/** Totals of an analyzed run (DuckDB's query profile). */
export interface DuckPlanTotals {
  cpuSeconds: number;
  latencySeconds: number;
  blockedSeconds: number;
  rowsScanned: number;
  bytesRead: number;
}

export interface DuckPlan {
  root: DuckPlanNode;
  totals?: DuckPlanTotals;
}

/** A result column with its type already spelled for the client's dialect. */
export interface ExplainColumn {
  name: string;
  type: string;
}

export interface ExplainText {
  dialect: 'trino' | 'presto';
  type: 'LOGICAL' | 'DISTRIBUTED';
  analyze: boolean;
  version: string;
  columns: ExplainColumn[];
  plan: DuckPlan;
  /** Trino's table handle text (`tpch:tiny:nation`) of a DuckDB table name (`tpch.tiny.nation`). */
  tableName: (duckdbName: string) => string;
  /** ANALYZE: milliseconds spent before DuckDB ran the statement (analysis of its output). */
  analysisMillis?: number;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Operators that are DuckDB's plumbing, not part of the statement's plan. */
const PLUMBING = new Set(['EXPLAIN_ANALYZE', 'RESULT_COLLECTOR', 'QUERY']);

function duckNode(value: unknown): DuckPlanNode {
  if (!isRecord(value)) return { operator: 'UNKNOWN', extra: {}, children: [] };
  const operator = String(value.operator_type ?? value.operator_name ?? value.name ?? 'UNKNOWN').trim();
  const children = Array.isArray(value.children) ? value.children.map(duckNode) : [];
  const extra = isRecord(value.extra_info) ? value.extra_info : {};
  const node: DuckPlanNode = { operator, extra, children };
  if ('operator_timing' in value) {
    node.stats = { seconds: num(value.operator_timing), rows: num(value.operator_cardinality), bytes: num(value.result_set_size), scanned: num(value.operator_rows_scanned) };
  }
  return node;
}

/** Drops DuckDB's plumbing above the statement's first real operator. */
function statementRoot(node: DuckPlanNode): DuckPlanNode {
  let current = node;
  while (PLUMBING.has(current.operator) && current.children.length === 1) current = current.children[0];
  return current;
}

/** DuckDB's JSON plan text (`explain_value` of `EXPLAIN (FORMAT JSON)` or of `EXPLAIN (ANALYZE, FORMAT JSON)`). */
export function parseDuckDbPlan(json: string): DuckPlan {
  const parsed: unknown = JSON.parse(json);
  if (Array.isArray(parsed)) {
    // Plain EXPLAIN: a list of root operators (one per statement; there is one).
    return { root: statementRoot(duckNode(parsed[0])) };
  }
  const profile = isRecord(parsed) ? parsed : {};
  const top = Array.isArray(profile.children) && profile.children.length > 0 ? profile.children[0] : {};
  return {
    root: statementRoot(duckNode(top)),
    totals: {
      cpuSeconds: num(profile.cpu_time),
      latencySeconds: num(profile.latency),
      blockedSeconds: num(profile.blocked_thread_time),
      rowsScanned: num(profile.cumulative_rows_scanned),
      bytesRead: num(profile.total_bytes_read),
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Trino's plan nodes

interface PlanNode {
  id: number;
  name: string;
  /** Trino's node descriptor: `[key = value, ...]`, empty values left out. */
  descriptor: [string, string][];
  /** Known only at the root and right under it. */
  layout?: ExplainColumn[];
  estimatedRows?: number;
  details: string[];
  stats?: DuckPlanNode['stats'];
  children: PlanNode[];
  /** Whether it reads an exchange (a RemoteSource below it): DuckDB's estimates there count the stand-in's rows. */
  exchanged?: boolean;
}

const listOf = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : v === undefined || v === '' ? [] : [String(v)]);
const bracketed = (items: string[]) => `[${items.join(', ')}]`;
/** The table (or, for a view's file scan, the function) a DuckDB scan reads. */
const scannedName = (node: DuckPlanNode) => String(node.extra.Table ?? node.extra.Function ?? '');

/** FOO_BAR -> FooBar, for DuckDB operators Trino has no name for. */
function camel(operator: string): string {
  let out = '';
  let upper = true;
  for (const ch of operator) {
    if (ch === '_' || ch === ' ') {
      upper = true;
      continue;
    }
    out += upper ? ch.toUpperCase() : ch.toLowerCase();
    upper = false;
  }
  return out;
}

const JOIN_NAMES: Record<string, string> = {
  INNER: 'InnerJoin',
  LEFT: 'LeftJoin',
  RIGHT: 'RightJoin',
  OUTER: 'FullJoin',
  FULL: 'FullJoin',
  SEMI: 'SemiJoin',
  RIGHT_SEMI: 'SemiJoin',
  MARK: 'SemiJoin',
  ANTI: 'AntiJoin',
  RIGHT_ANTI: 'AntiJoin',
  SINGLE: 'LeftJoin',
};

const JOIN_OPERATORS = new Set(['HASH_JOIN', 'NESTED_LOOP_JOIN', 'PIECEWISE_MERGE_JOIN', 'BLOCKWISE_NL_JOIN', 'IE_JOIN', 'ASOF_JOIN', 'DELIM_JOIN', 'LEFT_DELIM_JOIN', 'RIGHT_DELIM_JOIN', 'POSITIONAL_JOIN']);
const AGGREGATES = new Set(['HASH_GROUP_BY', 'PERFECT_HASH_GROUP_BY', 'UNGROUPED_AGGREGATE', 'SIMPLE_AGGREGATE', 'STREAMING_GROUP_BY', 'PARTITIONED_AGGREGATE']);
const SCANS = new Set(['SEQ_SCAN', 'TABLE_SCAN', 'READ_PARQUET', 'PARQUET_SCAN', 'READ_CSV', 'INDEX_SCAN']);
const WRITERS = new Set(['INSERT', 'BATCH_INSERT', 'CREATE_TABLE_AS', 'BATCH_CREATE_TABLE_AS']);

interface Mapped {
  name: string;
  descriptor: [string, string][];
  details: string[];
}

/** The Trino node an operator stands for. */
function mapOperator(node: DuckPlanNode, tableName: (duckdbName: string) => string): Mapped {
  const x = node.extra;
  const op = node.operator;
  if (SCANS.has(op)) {
    // A view's file scan names no table, only its function: `tableName` says which table that is, if it can.
    const table = tableName(scannedName(node));
    const filters = listOf(x.Filters).filter((f) => !f.startsWith('optional:'));
    const catalog = table.split(':')[0];
    const details = listOf(x.Projections).map((column) => `${column} := ${catalog}:${column}`);
    return filters.length > 0
      ? { name: 'ScanFilter', descriptor: [['table', table], ['filterPredicate', filters.join(' AND ')]], details }
      : { name: 'TableScan', descriptor: [['table', table]], details };
  }
  if (op === 'FILTER') return { name: 'Filter', descriptor: [['filterPredicate', listOf(x.Expression).join(' AND ')]], details: [] };
  if (op === 'PROJECTION') return { name: 'Project', descriptor: [], details: [] };
  if (AGGREGATES.has(op) || op === 'HASH_DISTINCT' || op === 'DISTINCT') {
    const keys = listOf(x.Groups);
    return { name: 'Aggregate', descriptor: [['keys', keys.length > 0 ? bracketed(keys) : '']], details: listOf(x.Aggregates) };
  }
  if (JOIN_OPERATORS.has(op)) {
    const joinType = String(x['Join Type'] ?? 'INNER').toUpperCase();
    return { name: JOIN_NAMES[joinType] ?? camel(`${joinType}_JOIN`), descriptor: [['criteria', listOf(x.Conditions).join(' AND ')]], details: [] };
  }
  if (op === 'CROSS_PRODUCT') return { name: 'CrossJoin', descriptor: [], details: [] };
  if (op === 'ORDER_BY') return { name: 'Sort', descriptor: [['orderBy', bracketed(listOf(x['Order By']))]], details: [] };
  if (op === 'TOP_N') return { name: 'TopN', descriptor: [['count', String(x.Top ?? '')], ['orderBy', bracketed(listOf(x['Order By']))]], details: [] };
  if (op === 'LIMIT' || op === 'STREAMING_LIMIT' || op === 'LIMIT_PERCENT') {
    return { name: 'Limit', descriptor: [['count', listOf(x.Limit ?? x['Limit Count'] ?? x.Top).join(', ')]], details: [] };
  }
  if (op === 'COLUMN_DATA_SCAN' || op === 'DUMMY_SCAN' || op === 'EMPTY_RESULT') return { name: 'Values', descriptor: [], details: [] };
  if (op === 'UNION') return { name: 'Union', descriptor: [], details: [] };
  if (op === 'WINDOW' || op === 'STREAMING_WINDOW') return { name: 'Window', descriptor: [], details: listOf(x.Projections) };
  if (op === 'UNNEST') return { name: 'Unnest', descriptor: [], details: [] };
  if (WRITERS.has(op)) return { name: 'TableWriter', descriptor: [], details: [] };
  if (op === 'DELETE') return { name: 'Delete', descriptor: [], details: [] };
  if (op === 'UPDATE') return { name: 'Update', descriptor: [], details: [] };
  return { name: camel(op), descriptor: [], details: [] };
}

function estimateOf(node: DuckPlanNode): number | undefined {
  const raw = node.extra['Estimated Cardinality'];
  const n = typeof raw === 'string' || typeof raw === 'number' ? Number(raw) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** How DuckDB's names read in Trino's plan: a scanned table's handle, and the exchanges' stand-ins. */
interface Naming {
  tableName: (duckdbName: string) => string;
  /** The fragment whose output a scanned DuckDB table stands for, with that output's layout (a distributed plan's). */
  remote?: (duckdbName: string) => { fragmentId: number; layout: ExplainColumn[] } | undefined;
}

/**
 * The exchange a DuckDB subtree stands for: the scan of its stand-in, or the projection right over it
 * (the stand-in's columns, which DuckDB computes there).
 */
function remoteOf(node: DuckPlanNode, naming: Naming): { scan: DuckPlanNode; fragmentId: number; layout: ExplainColumn[] } | undefined {
  if (!naming.remote) return undefined;
  const scan = node.operator === 'PROJECTION' && node.children.length === 1 ? node.children[0]! : node;
  const remote = SCANS.has(scan.operator) ? naming.remote(scannedName(scan)) : undefined;
  return remote && { scan, ...remote };
}

/** Trino's RemoteSource for an exchange's stand-in; a predicate DuckDB pushed into its scan is a Filter over it. */
function remoteSourceNode(node: DuckPlanNode, remote: NonNullable<ReturnType<typeof remoteOf>>, nextId: { value: number }): PlanNode {
  const source: PlanNode = { id: nextId.value++, name: 'RemoteSource', descriptor: [['sourceFragmentIds', `[${remote.fragmentId}]`]], layout: remote.layout, details: [], children: [], exchanged: true };
  const filters = remote.scan === node ? listOf(remote.scan.extra.Filters).filter((f) => !f.startsWith('optional:')) : [];
  if (filters.length === 0) return source;
  return { id: nextId.value++, name: 'Filter', descriptor: [['filterPredicate', filters.join(' AND ')]], details: [], children: [source], exchanged: true };
}

/** Trino's nodes for DuckDB's tree; a chain of projections is one Project, as Trino merges them. */
function planNodes(node: DuckPlanNode, naming: Naming, nextId: { value: number }): PlanNode {
  const remote = remoteOf(node, naming);
  if (remote) return remoteSourceNode(node, remote, nextId);
  let current = node;
  while (current.operator === 'PROJECTION' && current.children.length === 1 && current.children[0].operator === 'PROJECTION' && !remoteOf(current.children[0], naming)) {
    current = current.children[0];
  }
  const children = current.children.map((child) => planNodes(child, naming, nextId));
  const mapped = mapOperator(node, naming.tableName);
  const out: PlanNode = {
    id: nextId.value++,
    name: mapped.name,
    descriptor: mapped.descriptor,
    details: mapped.details,
    children,
  };
  const estimate = estimateOf(node);
  if (children.some((c) => c.exchanged)) out.exchanged = true;
  else if (estimate !== undefined) out.estimatedRows = estimate;
  // The chain's stats: its top's output, the whole chain's time.
  if (node.stats) {
    let seconds = 0;
    for (let n: DuckPlanNode | undefined = node; n; n = n === current ? undefined : n.children[0]) seconds += n.stats?.seconds ?? 0;
    out.stats = { ...node.stats, seconds };
  }
  return out;
}

/** Trino's symbols for the output columns: the name where it is one, else `expr`, made unique as Trino's allocator does. */
function symbolsOf(columns: ExplainColumn[]): string[] {
  const used = new Set<string>();
  return columns.map((c) => {
    const base = isSymbolName(c.name) && !c.name.startsWith('_col') ? c.name : 'expr';
    let symbol = base;
    for (let n = 0; used.has(symbol); n++) symbol = `${base}_${n}`;
    used.add(symbol);
    return symbol;
  });
}

/** A plain word (letters, digits, underscore; not leading with a digit), as tools' plan parsers read symbols. */
function isSymbolName(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    const letter = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
    const digit = c >= 48 && c <= 57;
    if (!letter && !(digit && i > 0)) return false;
  }
  return true;
}

/** The root `Output` over DuckDB's plan, with the statement's column names and types. */
function outputNode(request: Pick<ExplainText, 'plan' | 'columns'>, naming: Naming, nextId = { value: 0 }): PlanNode {
  const child = planNodes(request.plan.root, naming, nextId);
  const symbols = symbolsOf(request.columns);
  const layout = request.columns.map((c, i) => ({ name: symbols[i], type: c.type }));
  child.layout ??= layout;
  const details = request.columns.flatMap((c, i) => (c.name === symbols[i] ? [] : [`${c.name} := ${symbols[i]}`]));
  const output: PlanNode = {
    id: nextId.value++,
    name: 'Output',
    descriptor: [['columnNames', bracketed(request.columns.map((c) => c.name))]],
    layout,
    details,
    children: [child],
  };
  if (child.estimatedRows !== undefined) output.estimatedRows = child.estimatedRows;
  if (child.stats) output.stats = { seconds: 0, rows: child.stats.rows, bytes: child.stats.bytes, scanned: 0 };
  return output;
}

// ---------------------------------------------------------------------------------------------------
// airlift's Duration and DataSize, as the protocol prints them

/** Duration.convertToMostSuccinctTimeUnit().toString() of seconds: `1.59ms`; none is `0.00ns`, as stats in nanoseconds print. */
const formatSeconds = (seconds: number) => (seconds > 0 ? formatDuration(seconds * 1000) : '0.00ns');

const SIZE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB'];

/** DataSize.succinctBytes(n).toString(), as plan text shows sizes: `80B`, `28.32kB`. */
export function succinctBytes(bytes: number): string {
  let value = Math.max(0, Math.round(bytes));
  let unit = 0;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return Number.isInteger(value) ? `${value}${SIZE_UNITS[unit]}` : `${value.toFixed(2)}${SIZE_UNITS[unit]}`;
}

const formatDouble = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '?');
const positions = (n: number) => `${n} ${n === 1 ? 'row' : 'rows'}`;

// ---------------------------------------------------------------------------------------------------
// Text

const VERTICAL = '\u2502';
const LAST = '\u2514\u2500 ';
const MIDDLE = '\u251c\u2500 ';
const INDENT = '    ';

function identifier(node: PlanNode, dialect: 'trino' | 'presto'): string {
  if (dialect === 'presto' && node.name === 'Output') {
    // prestodb: `Output[a, b]`
    return `[${node.descriptor[0][1].slice(1, -1)}]`;
  }
  const parts = node.descriptor.filter(([, value]) => value !== '').map(([key, value]) => `${key} = ${value}`);
  return parts.length > 0 ? `[${parts.join(', ')}]` : '';
}

function estimatesLine(node: PlanNode, dialect: 'trino' | 'presto'): string | undefined {
  if (node.estimatedRows === undefined) return undefined;
  const rows = Math.round(node.estimatedRows);
  return dialect === 'trino'
    ? `Estimates: {rows: ${rows} (?), cpu: ?, memory: ?, network: ?}`
    : `Estimates: {source: CostBasedSourceInfo, rows: ${rows.toLocaleString('en-US')} (?), cpu: ?, memory: ?, network: ?}`;
}

interface StatsTotals {
  seconds: number;
}

function statsLines(node: PlanNode, totals: StatsTotals | undefined, dialect: 'trino' | 'presto'): string[] {
  if (!node.stats || !totals) return [];
  const share = formatDouble(totals.seconds > 0 ? (100 * node.stats.seconds) / totals.seconds : 0);
  const time = formatSeconds(node.stats.seconds);
  const output = `Output: ${positions(node.stats.rows)} (${succinctBytes(node.stats.bytes)})`;
  const first =
    dialect === 'trino'
      ? `CPU: ${time} (${share}%), Scheduled: ${time} (${share}%), Blocked: 0.00ns (0.00%), ${output}`
      : `CPU: ${time} (${share}%), Scheduled: ${time} (${share}%), ${output}`;
  const input = node.children.length > 0 ? node.children.reduce((sum, c) => sum + (c.stats?.rows ?? 0), 0) : node.stats.scanned;
  return [first, `Input avg.: ${formatDouble(input)} rows, Input std.dev.: 0.00%`];
}

function sumSeconds(node: PlanNode): number {
  return (node.stats?.seconds ?? 0) + node.children.reduce((sum, c) => sum + sumSeconds(c), 0);
}

const layoutText = (layout: ExplainColumn[]) => `[${layout.map((c) => `${c.name}:${c.type}`).join(', ')}]`;

/** TextRenderer: the tree with `│`, `├─`, `└─`, details under each node. */
function trinoTree(node: PlanNode, first: string, next: string, totals: StatsTotals | undefined, lines: string[]): void {
  lines.push(`${first}${node.name}${identifier(node, 'trino')}`);
  const detail = next + (node.children.length > 0 ? VERTICAL : ' ').padEnd(4, ' ');
  const body: string[] = [];
  if (node.layout) body.push(`Layout: ${layoutText(node.layout)}`);
  const estimates = estimatesLine(node, 'trino');
  if (estimates) body.push(estimates);
  body.push(...statsLines(node, totals, 'trino'), ...node.details);
  for (const line of body) lines.push(detail + line);
  node.children.forEach((child, i) => {
    const last = i === node.children.length - 1;
    trinoTree(child, next + (last ? LAST : MIDDLE), next + (last ? '   ' : `${VERTICAL}  `), totals, lines);
  });
}

/** prestodb's TextRenderer: `- Name[PlanNodeId n][...] => [symbol:type, ...]`, details two levels in. */
function prestoTree(node: PlanNode, level: number, totals: StatsTotals | undefined, lines: string[]): void {
  const layout = node.layout ? node.layout.map((c) => `${c.name}:${c.type}`).join(', ') : '';
  lines.push(`${INDENT.repeat(level)}- ${node.name}[PlanNodeId ${node.id}]${identifier(node, 'presto')} => [${layout}]`);
  const detail = INDENT.repeat(level + 2);
  const estimates = estimatesLine(node, 'presto');
  for (const line of [...(estimates ? [estimates] : []), ...statsLines(node, totals, 'presto'), ...node.details]) lines.push(detail + line);
  for (const child of node.children) prestoTree(child, level + 1, totals, lines);
}

function fragmentHeader(request: ExplainText, root: PlanNode, lines: string[]): void {
  lines.push('Fragment 0 [SINGLE]');
  const t = request.plan.totals;
  if (request.analyze && t) {
    const output = root.stats ? `${positions(root.stats.rows)} (${succinctBytes(root.stats.bytes)})` : '0 rows (0B)';
    const input = `${positions(t.rowsScanned)} (${succinctBytes(t.bytesRead)})`;
    lines.push(
      request.dialect === 'trino'
        ? `${INDENT}CPU: ${formatSeconds(t.cpuSeconds)}, Scheduled: ${formatSeconds(t.latencySeconds)}, Blocked ${formatSeconds(t.blockedSeconds)} (Input: 0.00ns, Output: 0.00ns), Input: ${input}; per task: avg.: ${formatDouble(t.rowsScanned)} std.dev.: 0.00, Output: ${output}`
        : `${INDENT}CPU: ${formatSeconds(t.cpuSeconds)}, Scheduled: ${formatSeconds(t.latencySeconds)}, Input: ${input}; per task: avg.: ${formatDouble(t.rowsScanned)} std.dev.: 0.00, Output: ${output}`,
    );
  }
  lines.push(`${INDENT}Output layout: [${(root.layout ?? []).map((c) => c.name).join(', ')}]`);
  lines.push(`${INDENT}Output partitioning: SINGLE []`);
  if (request.dialect === 'presto') lines.push(`${INDENT}Stage Execution Strategy: UNGROUPED_EXECUTION`);
}

/**
 * The `Query Plan` text. Trino: `Trino version: ...`, then (DISTRIBUTED, and always with ANALYZE)
 * `Fragment 0 [SINGLE]` and its output lines, then the tree from `Output[columnNames = [...]]`.
 * prestodb: the tree from `- Output[PlanNodeId n][a, b] => [a:bigint, b:varchar]`, its first line for
 * LOGICAL (what Malloy's Presto connection reads).
 */
export function renderExplainText(request: ExplainText): string {
  const root = outputNode(request, { tableName: request.tableName });
  const totals = request.analyze ? { seconds: sumSeconds(root) } : undefined;
  const distributed = request.analyze || request.type === 'DISTRIBUTED';
  const lines: string[] = [];
  if (request.dialect === 'trino') {
    lines.push(`Trino version: ${request.version}`);
    const t = request.plan.totals;
    if (request.analyze && t) {
      const analysis = formatSeconds((request.analysisMillis ?? 0) / 1000);
      lines.push(`Queued: 0.00ns, Analysis: ${analysis}, Planning: 0.00ns, Execution: ${formatSeconds(t.latencySeconds)}`);
    }
  }
  if (distributed) fragmentHeader(request, root, lines);
  if (request.dialect === 'trino') {
    const indent = distributed ? INDENT : '';
    trinoTree(root, indent, indent, totals, lines);
  } else {
    prestoTree(root, distributed ? 1 : 0, totals, lines);
  }
  // Every line ends with a line break; a fragment is followed by an empty line.
  return `${lines.join('\n')}\n${distributed ? '\n' : ''}`;
}

// ---------------------------------------------------------------------------------------------------
// EXPLAIN (TYPE DISTRIBUTED) of a distributed plan

/** A fragment of a distributed plan with DuckDB's plan of its SQL (lib/planner/fragment.types.ts PlanFragment). */
export interface ExplainFragment {
  id: number;
  partitioning: 'SOURCE' | 'HASH' | 'SINGLE';
  output: { kind: 'SINGLE' } | { kind: 'BROADCAST' } | { kind: 'HASH'; keys: readonly string[]; replicateNullsAndAny?: true };
  /** Its output columns with their types (the root's are the statement's: DistributedExplainText.columns). */
  columns: ExplainColumn[];
  plan: DuckPlan;
  /** As ExplainText.tableName, for the table the fragment scans. */
  tableName: (duckdbName: string) => string;
  /** Read in place (lib/cluster/inline-fragments.ts): no stage of its own, each consumer task runs it. */
  inline?: boolean;
}

export interface DistributedExplainText {
  version: string;
  /** The statement's output columns (the root fragment's Output). */
  columns: ExplainColumn[];
  /** Root first (id 0). */
  fragments: ExplainFragment[];
  /** The fragment whose output a DuckDB table stands for in its consumers' plans (its exchange's stand-in). */
  exchangeOf: (duckdbName: string) => number | undefined;
}

const JOIN_LABELS = new Set([...Object.values(JOIN_NAMES), 'CrossJoin']);

/** The fragments a node's side reads through RemoteSources, up to the next join. */
function sideSources(node: PlanNode): number[] {
  if (node.name === 'RemoteSource') return [Number(node.descriptor[0]![1].slice(1, -1))];
  return JOIN_LABELS.has(node.name) ? [] : node.children.flatMap(sideSources);
}

/**
 * Trino's join distribution where the exchanges show it: REPLICATED when a side reads a broadcast
 * output, PARTITIONED in a HASH fragment whose sides both read hashed outputs (`distribution = ...` and
 * `Distribution: ...`, as visitJoin prints them; a semi or cross join prints only the detail line).
 */
function markDistributions(node: PlanNode, fragment: ExplainFragment, outputOf: (id: number) => ExplainFragment['output'] | undefined): void {
  node.children.forEach((child) => markDistributions(child, fragment, outputOf));
  if (!JOIN_LABELS.has(node.name) || node.children.length !== 2) return;
  const sides = node.children.map((child) => sideSources(child).map((id) => outputOf(id)?.kind));
  const distribution = sides.some((side) => side.includes('BROADCAST'))
    ? 'REPLICATED'
    : fragment.partitioning === 'HASH' && sides.every((side) => side.length > 0 && side.every((kind) => kind === 'HASH'))
      ? 'PARTITIONED'
      : undefined;
  if (!distribution) return;
  if (node.name !== 'SemiJoin' && node.name !== 'CrossJoin') node.descriptor.push(['distribution', distribution]);
  node.details.unshift(`Distribution: ${distribution}`);
}

/** Trino's PartitioningScheme text: `SINGLE []`, `BROADCAST []`, `HASH [orderkey]`. */
const outputPartitioning = (output: ExplainFragment['output']) => (output.kind === 'HASH' ? `HASH ${output.replicateNullsAndAny ? '(replicate nulls and any) ' : ''}${bracketed([...output.keys])}` : `${output.kind} []`);

/**
 * PlanPrinter.textDistributedPlan of a plan cut into fragments (Trino's EXPLAIN and EXPLAIN (TYPE
 * DISTRIBUTED)): `Trino version: ...`, then each fragment in id order as formatFragment prints it,
 * `Fragment N [SOURCE|HASH|SINGLE]`, its output layout and partitioning, its tree (the root's from
 * `Output[...]`, the others' from their top node), and an empty line. Each exchange a fragment reads is
 * Trino's `RemoteSource[sourceFragmentIds = [N]]` with the producer's layout. Trino also prints the
 * LocalExchange nodes its operators run behind; DuckDB's plans have none, so none is printed.
 */
export function renderDistributedText(request: DistributedExplainText): string {
  const byId = new Map(request.fragments.map((f) => [f.id, f]));
  const remote = (duckdbName: string) => {
    const fragmentId = request.exchangeOf(duckdbName);
    const producer = fragmentId === undefined ? undefined : byId.get(fragmentId);
    return producer && { fragmentId: producer.id, layout: producer.columns };
  };
  const nextId = { value: 0 };
  const lines = [`Trino version: ${request.version}`];
  for (const fragment of [...request.fragments].sort((a, b) => a.id - b.id)) {
    const naming: Naming = { tableName: fragment.tableName, remote };
    let top: PlanNode;
    if (fragment.id === 0) {
      top = outputNode({ plan: fragment.plan, columns: request.columns }, naming, nextId);
    } else {
      top = planNodes(fragment.plan.root, naming, nextId);
      top.layout = fragment.columns;
    }
    markDistributions(top, fragment, (id) => byId.get(id)?.output);
    lines.push(`Fragment ${fragment.id} [${fragment.partitioning}]`);
    lines.push(`${INDENT}Output layout: [${(top.layout ?? []).map((c) => c.name).join(', ')}]`);
    lines.push(`${INDENT}Output partitioning: ${outputPartitioning(fragment.output)}`);
    if (fragment.inline) lines.push(`${INDENT}Read in place: no stage of its own; each consumer task runs it itself`);
    trinoTree(top, INDENT, INDENT, undefined, lines);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------
// EXPLAIN (TYPE IO)

export interface TableRef {
  catalog: string;
  schema: string;
  table: string;
}

/** The tables DuckDB's plan scans, in plan order, each once, with the scan's estimated rows. */
export function scannedTables(plan: DuckPlan, tableRef: (duckdbName: string) => TableRef | undefined): { table: TableRef; rows?: number }[] {
  const seen = new Map<string, { table: TableRef; rows?: number }>();
  const visit = (node: DuckPlanNode) => {
    if (SCANS.has(node.operator)) {
      const ref = tableRef(String(node.extra.Table ?? node.extra.Function ?? ''));
      if (ref) {
        const key = `${ref.catalog}\u0000${ref.schema}\u0000${ref.table}`;
        const rows = estimateOf(node);
        if (!seen.has(key)) seen.set(key, rows === undefined ? { table: ref } : { table: ref, rows });
      }
    }
    node.children.forEach(visit);
  };
  visit(plan.root);
  return [...seen.values()];
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

/** A double as Jackson writes it: `25.0`, `"NaN"`. */
class JsonDouble {
  constructor(readonly value: number) {}
}

function estimate(rows: number | undefined): Record<string, JsonDouble> {
  return {
    outputRowCount: new JsonDouble(rows ?? Number.NaN),
    outputSizeInBytes: new JsonDouble(Number.NaN),
    cpuCost: new JsonDouble(Number.NaN),
    maxMemory: new JsonDouble(Number.NaN),
    networkCost: new JsonDouble(Number.NaN),
  };
}

/** Jackson's default pretty printer, as airlift's JsonCodec writes: `"key" : value`, two-space indent, `[ {`. */
function jackson(value: Json | JsonDouble | Record<string, unknown> | unknown[], indent: string): string {
  if (value instanceof JsonDouble) {
    if (!Number.isFinite(value.value)) return `"${Number.isNaN(value.value) ? 'NaN' : value.value > 0 ? 'Infinity' : '-Infinity'}"`;
    return Number.isInteger(value.value) ? `${value.value}.0` : String(value.value);
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return '[ ]';
    return `[ ${value.map((v) => jackson(v as Json, indent)).join(', ')} ]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{ }';
    const inner = `${indent}  `;
    return `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)} : ${jackson(v as Json, inner)}`).join(',\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

const catalogSchemaTable = (t: TableRef) => ({ catalog: t.catalog, schemaTable: { schema: t.schema, table: t.table } });

/** IoPlanPrinter's JSON: inputTableColumnInfos, outputTable (when the statement writes), estimate. */
export function renderIoPlan(inputs: { table: TableRef; rows?: number }[], outputTable: TableRef | undefined, rootRows: number | undefined): string {
  const plan: Record<string, unknown> = {
    inputTableColumnInfos: inputs.map((input) => ({
      table: catalogSchemaTable(input.table),
      constraint: { none: false, columnConstraints: [] },
      estimate: estimate(input.rows),
    })),
    ...(outputTable ? { outputTable: catalogSchemaTable(outputTable) } : {}),
    estimate: estimate(rootRows),
  };
  return jackson(plan, '');
}

/** The estimated rows of the plan's root operator. */
export const rootEstimate = (plan: DuckPlan): number | undefined => estimateOf(plan.root);
