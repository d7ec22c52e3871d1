// SHOW FUNCTIONS from duckdb_functions(), best effort: DuckDB's type names mapped to Presto's where they
// have a plain counterpart, macros shown as scalar functions, table functions and pragmas left out.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { OutputColumn } from '../../protocol/types.js';
import type { LikeFilter } from '../../sql/dialect-statement.js';
import { likeMatcher } from './like-pattern.js';
import { rows } from './catalog-metadata.js';
import type { ShowResult } from './show-metadata.js';

const COLUMNS: OutputColumn[] = [
  ...['Function', 'Return Type', 'Argument Types', 'Function Type'].map((name) => ({ name, type: { base: 'varchar' } })),
  { name: 'Deterministic', type: { base: 'boolean' } },
  { name: 'Description', type: { base: 'varchar' } },
];

const SIMPLE: Record<string, string> = {
  FLOAT: 'real',
  BLOB: 'varbinary',
  HUGEINT: 'decimal(38,0)',
  UHUGEINT: 'decimal(38,0)',
  UBIGINT: 'decimal(20,0)',
  UINTEGER: 'bigint',
  USMALLINT: 'integer',
  UTINYINT: 'smallint',
  'TIMESTAMP WITH TIME ZONE': 'timestamp(6) with time zone',
  TIMESTAMP: 'timestamp(6)',
  TIME: 'time(6)',
  INTERVAL: 'interval day to second',
};

/** A DuckDB type text as Presto spells it: `INTEGER[]` -> `array(integer)`; generic names kept. */
export function prestoTypeText(text: string | null | undefined): string {
  if (text === null || text === undefined) return 'unknown';
  if (text.endsWith('[]')) return `array(${prestoTypeText(text.slice(0, -2))})`;
  return SIMPLE[text] ?? text.toLowerCase();
}

export async function showFunctions(connection: DuckDBConnection, like?: LikeFilter): Promise<ShowResult> {
  const match = likeMatcher(like);
  const found = await rows(
    connection,
    `SELECT function_name, function_type, return_type, parameter_types, varargs, stability, description
     FROM duckdb_functions()
     WHERE function_type IN ('scalar', 'aggregate', 'macro') AND function_name NOT LIKE 'vivace\\_%' ESCAPE '\\'
       AND function_name NOT LIKE '\\_\\_%' ESCAPE '\\'`,
  );
  const seen = new Set<string>();
  const out: [string, string, string, string, boolean, string][] = [];
  for (const [name, type, returnType, parameterTypes, varargs, stability, description] of found) {
    const fn = String(name);
    if (!match(fn)) continue;
    const args = ((parameterTypes as { items?: unknown[] } | null)?.items ?? []).map((t) => prestoTypeText(t as string | null));
    if (varargs !== null && varargs !== undefined) args.push(`${prestoTypeText(String(varargs))}...`);
    const row: [string, string, string, string, boolean, string] = [
      fn,
      type === 'macro' ? '' : prestoTypeText(returnType as string | null),
      args.join(', '),
      type === 'aggregate' ? 'aggregate' : 'scalar',
      type === 'macro' || stability === 'CONSISTENT',
      description === null || description === undefined ? '' : String(description),
    ];
    const key = JSON.stringify(row);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(row);
  }
  out.sort((a, b) => cmp(a[0].toLowerCase(), b[0].toLowerCase()) || cmp(a[1], b[1]) || cmp(a[2], b[2]) || cmp(a[3], b[3]));
  return { columns: COLUMNS, rows: out };
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
