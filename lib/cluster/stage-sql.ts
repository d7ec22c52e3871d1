// The DuckDB SQL of a stage (planner/aggregate-stages.ts): its Trino text translated by the DuckDB printer, with the
// table it reads standing for the rows it is given. A leaf reads its splits as the table's connector
// reads them (connector.types.ts splitSourceSql); the root reads the leaves' partial rows. Each worker
// builds these itself, from the user's statement and the split or input files it checked: no SQL travels
// between nodes.
import { parseStatement } from '../sql/index.js';
import { translateStatement } from '../sql/duckdb-translation.js';
import { quoteString } from '../sql/sql-formatter.js';
import type { Session } from '../protocol/types.js';
import { PARTIALS_TABLE, type StagePlan } from '../planner/aggregate-stages.js';
import type { Split } from '../connectors/connector.types.js';

/**
 * The splits of a table's parts for `workers` workers: one per part, and a part cut into row slices when
 * there are fewer parts than workers (tiny's tables are one part each), so every worker gets work.
 */
export function splitsOf(files: readonly string[], workers: number, rows?: readonly number[]): Split[] {
  const slices = files.length === 0 ? 1 : Math.max(1, Math.ceil(Math.max(1, workers) / files.length));
  return files.flatMap((file, i) => Array.from({ length: slices }, (_, slice) => ({ file, slice, slices, ...(slices > 1 && rows?.[i] !== undefined ? { rows: rows[i] } : {}) })));
}

/** SQL reading the leaves' partial rows from local Parquet files. */
export function inputSourceSql(files: readonly string[]): string {
  if (files.length === 0) throw new Error('A root task needs at least one input');
  return `SELECT * FROM read_parquet([${files.map(quoteString).join(', ')}])`;
}

/**
 * Each stage's DuckDB SQL, kept per plan (cachedStages keeps plans, so a repeated statement finds its
 * own) by what the translation reads of the session and the source: a stage task skips parsing and
 * translating again (0.1-0.3 ms each).
 */
const translations = new WeakMap<StagePlan, Map<string, string>>();
const MAX_TRANSLATIONS_PER_PLAN = 64;

function translated(plan: StagePlan, sql: string, session: Session, table: { catalog: string; schema: string; table: string }, source: string): string {
  const key = `${sql === plan.leafSql ? 'leaf' : 'root'}\u0000${session.catalog ?? ''}\u0000${session.schema ?? ''}\u0000${session.timeZone ?? ''}\u0000${session.user}\u0000${source}`;
  let kept = translations.get(plan);
  const known = kept?.get(key);
  if (known !== undefined) return known;
  const text = translate(sql, session, table, source);
  if (!kept) translations.set(plan, (kept = new Map()));
  if (kept.size >= MAX_TRANSLATIONS_PER_PLAN) kept.delete(kept.keys().next().value!);
  kept.set(key, text);
  return text;
}

function translate(sql: string, session: Session, table: { catalog: string; schema: string; table: string }, source: string): string {
  const tree = parseStatement(sql);
  return translateStatement(tree, sql, {
    catalog: session.catalog,
    schema: session.schema,
    timeZone: session.timeZone,
    user: session.user,
    databaseOf: (catalog) => catalog,
    virtualTable: (catalog, schema, name) => (catalog === table.catalog && schema === table.schema && name === table.table ? source : undefined),
  }).sql;
}

/** The leaf's DuckDB SQL over `source` (splitSourceSql). */
export function leafDuckDbSql(plan: StagePlan, session: Session, source: string): string {
  return translated(plan, plan.leafSql, session, plan.table, source);
}

/** The root's DuckDB SQL over `source` (inputSourceSql). */
export function rootDuckDbSql(plan: StagePlan, session: Session, source: string): string {
  return translated(plan, plan.rootSql, session, PARTIALS_TABLE, source);
}
