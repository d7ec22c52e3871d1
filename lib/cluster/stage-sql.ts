// The DuckDB SQL of a fragment (distributed-plan.ts): its Trino text translated by the DuckDB printer,
// with each table it reads standing for the rows it is given: its scan's splits, read as the table's
// connector reads them (connector.types.ts splitSourceSql), and each source's exchange table, the files
// its producers wrote. Each worker builds these itself, from the user's statement and the split or
// input files it checked: no SQL travels between nodes.
import { parseStatement } from '../sql/index.js';
import { translateStatement } from '../sql/duckdb-translation.js';
import { quoteString } from '../sql/sql-formatter.js';
import type { Session } from '../protocol/types.js';
import type { ScannedTable, Split } from '../connectors/connector.types.js';
import { EXCHANGE_CATALOG, type PlanFragment } from '../planner/fragment.types.js';

/**
 * The splits of a table's parts for `workers` workers: one per part, and a part cut into row slices when
 * there are fewer parts than workers (tiny's tables are one part each), so every worker gets work.
 */
export function splitsOf(files: readonly string[], workers: number, rows?: readonly number[]): Split[] {
  const slices = files.length === 0 ? 1 : Math.max(1, Math.ceil(Math.max(1, workers) / files.length));
  return files.flatMap((file, i) => Array.from({ length: slices }, (_, slice) => ({ file, slice, slices, ...(slices > 1 && rows?.[i] !== undefined ? { rows: rows[i] } : {}) })));
}

/**
 * A SOURCE fragment's splits of its table's parts for `workers` workers: splitsOf's, or each part whole
 * when its tasks read whole parts (scan.whole: a subquery over the table's partitioning column runs there,
 * which a slice of a part would cut short), however few the parts.
 */
export function scanSplitsOf(scan: NonNullable<PlanFragment['scan']>, files: readonly string[], workers: number, rows?: readonly number[]): Split[] {
  return splitsOf(files, scan.whole ? 1 : workers, rows);
}

/** SQL reading a source fragment's outputs from local Parquet files. */
export function inputSourceSql(files: readonly string[]): string {
  if (files.length === 0) throw new Error('An exchange input needs at least one file');
  return `SELECT * FROM read_parquet([${files.map(quoteString).join(', ')}])`;
}

/** A table a fragment's SQL names and the DuckDB SQL that stands for it on this task. */
export interface VirtualSource {
  table: ScannedTable;
  source: string;
}

/**
 * Each fragment's DuckDB SQL, kept per fragment (the plans are kept, so a repeated statement finds its
 * own) by what the translation reads of the session and the sources: a task skips parsing and translating
 * again (0.1-0.3 ms each). A text holding the query's start (current_timestamp and its kin) serves only the
 * query of that start: another query of the statement translates it again.
 */
const translations = new WeakMap<PlanFragment, Map<string, FragmentText>>();

interface FragmentText {
  sql: string;
  /** The query start the text holds (Session.startTime), if it reads one. */
  queryStart?: number;
}
const MAX_TRANSLATIONS_PER_FRAGMENT = 64;

/** A fragment's DuckDB SQL, each of `sources`' tables read as its source SQL. */
export function fragmentDuckDbSql(fragment: PlanFragment, session: Session, sources: readonly VirtualSource[]): string {
  const key = [session.catalog ?? '', session.schema ?? '', session.timeZone ?? '', session.user, ...sources.map((s) => s.source)].join('\u0000');
  let kept = translations.get(fragment);
  const known = kept?.get(key);
  if (known !== undefined && (known.queryStart === undefined || known.queryStart === session.startTime)) return known.sql;
  const text = translate(fragment.sql, session, sources, fragment.zoneFree === true);
  if (!kept) translations.set(fragment, (kept = new Map()));
  kept.delete(key);
  if (kept.size >= MAX_TRANSLATIONS_PER_FRAGMENT) kept.delete(kept.keys().next().value!);
  kept.set(key, text);
  return text.sql;
}

/** The exchange catalog, whose tables hold no zoned value in a fragment marked zoneFree. */
const ZONE_FREE_EXCHANGE: ReadonlySet<string> = new Set([EXCHANGE_CATALOG]);

function translate(sql: string, session: Session, sources: readonly VirtualSource[], zoneFree: boolean): FragmentText {
  const tree = parseStatement(sql);
  const translation = translateStatement(tree, sql, {
    ...(zoneFree ? { zoneFreeCatalogs: ZONE_FREE_EXCHANGE } : {}),
    catalog: session.catalog,
    schema: session.schema,
    timeZone: session.timeZone,
    user: session.user,
    // Every task of the query prints its start (the coordinator's, in the session), as Trino's tasks read the session's.
    ...(session.startTime > 0 ? { queryStart: session.startTime } : {}),
    databaseOf: (catalog) => catalog,
    virtualTable: (catalog, schema, name) => sources.find(({ table }) => catalog === table.catalog && schema === table.schema && name === table.table)?.source,
  });
  return { sql: translation.sql, ...(translation.readsQueryStart ? { queryStart: session.startTime } : {}) };
}
