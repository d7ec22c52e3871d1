// PREPARE / EXECUTE / DEALLOCATE PREPARE and DESCRIBE INPUT / OUTPUT. Prepared statements live in the
// client (Added-Prepare, then the Prepared-Statement header); the server only checks and substitutes.
import type { DuckDBConnection } from '@duckdb/node-api';
import { DuckDBTypeId } from '@duckdb/node-api';
import type { OutputColumn, PrestoType, Session, SessionUpdates } from '../../protocol/types.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import { formatType } from '../../protocol/presto-type.js';
import { dialectOf } from '../../protocol/header-prefix.js';
import { prestoTypeOf } from '../duckdb-types.js';
import { parseStatement } from '../../sql/parser.js';
import { findAll, walk } from '../../sql/tree-walk.js';
import type { Statement } from '../../sql/ast.js';
import { parameterTypesFromLiterals } from '../../sql/parameter-types.js';
import type { Cell } from './values-plan.js';
import type { ShowResult } from './show-metadata.js';

/** The SQL of a prepared statement the client sent; NOT_FOUND as Presto's Session.getPreparedStatement. */
function lookUp(session: Session, name: string): string {
  if (Object.hasOwn(session.preparedStatements, name)) return session.preparedStatements[name]!;
  // Unquoted names are folded to lower case here, while clients may keep the case they sent.
  const key = Object.keys(session.preparedStatements).find((k) => k.toLowerCase() === name.toLowerCase());
  if (key === undefined) throw new VivaceError('NOT_FOUND', `Prepared statement not found: ${name}`);
  return session.preparedStatements[key]!;
}

/**
 * Statements a prepared statement may not be or hold, named as in Trino's PrepareTask message (PREPARE,
 * EXECUTE, DEALLOCATE there). EXECUTE IMMEDIATE and DESCRIBE INPUT/OUTPUT read prepared statements or run
 * SQL too, and EXPLAIN runs the statement inside it: allowing any of them inside a prepared statement lets
 * `p = EXECUTE p` (or `EXPLAIN EXECUTE p`, `DESCRIBE OUTPUT p`, a -> b -> a) recurse until memory runs out.
 */
const NOT_PREPARABLE: Readonly<Partial<Record<Statement['type'], string>>> = {
  Prepare: 'PREPARE', Execute: 'EXECUTE', ExecuteImmediate: 'EXECUTE IMMEDIATE', Deallocate: 'DEALLOCATE',
  DescribeInput: 'DESCRIBE INPUT', DescribeOutput: 'DESCRIBE OUTPUT',
};

/** The tree of a prepared statement's SQL (a syntax error is the client's: SYNTAX_ERROR with its location). */
function treeOf(sql: string): Statement {
  return parseStatement(sql);
}

/** The first statement in `sql` (itself, or one inside it) that a prepared statement may not hold. */
function notPreparable(sql: string): string | undefined {
  let found: string | undefined;
  // Trino's grammar: the statement and everything inside it (EXPLAIN's statement included).
  walk(treeOf(sql), (node) => {
    found ??= NOT_PREPARABLE[node.type as Statement['type']];
    return found === undefined;
  });
  return found;
}

function refusePreparing(sql: string): void {
  const type = notPreparable(sql);
  if (type !== undefined) throw new VivaceError('NOT_SUPPORTED', `Invalid statement type for prepared statement: ${type}`);
}

/**
 * Lookups of prepared statements per request (its header's statements), a backstop against any other
 * way a prepared statement could reach itself: a statement reads one or two (EXPLAIN EXECUTE p).
 */
const lookups = new WeakMap<object, number>();
export const MAX_PREPARED_LOOKUPS = 16;

/**
 * The SQL of a prepared statement to run or describe (EXECUTE, DESCRIBE INPUT/OUTPUT). A statement sent
 * in the Prepared-Statement header is checked here as PREPARE checks its own: `p=EXECUTE%20p` fails
 * with Trino's "Invalid statement type for prepared statement: EXECUTE" (NOT_SUPPORTED).
 */
export function preparedStatement(session: Session, name: string): string {
  const sql = lookUp(session, name);
  const count = (lookups.get(session.preparedStatements) ?? 0) + 1;
  if (count > MAX_PREPARED_LOOKUPS) {
    throw new VivaceError('NOT_SUPPORTED', `A statement may use at most ${MAX_PREPARED_LOOKUPS} prepared statements`);
  }
  lookups.set(session.preparedStatements, count);
  refusePreparing(sql);
  return sql;
}

/**
 * PREPARE name FROM sql: the statement was parsed with the PREPARE (Trino's grammar) and must not be
 * PREPARE, EXECUTE, EXECUTE IMMEDIATE, DEALLOCATE or DESCRIBE INPUT/OUTPUT (NOT_SUPPORTED).
 */
export function prepareStatement(name: string, sql: string): SessionUpdates {
  refusePreparing(sql);
  return { addedPreparedStatements: { [name]: sql } };
}

export function deallocateStatement(session: Session, name: string): SessionUpdates {
  lookUp(session, name);
  return { deallocatedPreparedStatements: [name] };
}

/** The `?` markers of `sql` in text order, from its Trino tree. */
function parameterMarkers(sql: string): { start: number; end: number }[] {
  return findAll(treeOf(sql), 'Parameter').map((p) => p.location).sort((a, b) => a.start - b.start);
}

/** How many `?` markers a statement has. */
export function parameterCount(sql: string): number {
  return parameterMarkers(sql).length;
}

/** `sql` with its `?` markers replaced, in order, by the parenthesized USING expressions. */
export function substituteParameters(sql: string, parameters: string[]): string {
  const markers = parameterMarkers(sql);
  if (markers.length !== parameters.length) {
    throw new VivaceError('SYNTAX_ERROR', `Incorrect number of parameters: expected ${markers.length} but found ${parameters.length}`);
  }
  let out = '';
  let copied = 0;
  markers.forEach((m, i) => {
    out += `${sql.slice(copied, m.start)}(${parameters[i]})`;
    copied = m.end;
  });
  return out + sql.slice(copied);
}

/**
 * DESCRIBE INPUT: Position (bigint, from 0) and Type of each parameter; `unknown` when neither DuckDB
 * (which prepares the statement's translation) nor a literal beside the parameter tells.
 */
export async function describeInput(connection: DuckDBConnection, session: Session, sql: string, translate: (tree: Statement) => string): Promise<ShowResult> {
  const tree = treeOf(sql);
  const count = findAll(tree, 'Parameter').length;
  const types: string[] = Array.from({ length: count }, () => 'unknown');
  if (count > 0) {
    const translated = (() => {
      try {
        return translate(tree);
      } catch {
        return undefined;
      }
    })();
    const prepared = translated === undefined ? undefined : await connection.prepare(translated).catch(() => undefined);
    if (prepared) {
      try {
        for (let i = 0; i < Math.min(count, prepared.parameterCount); i++) {
          // node-api numbers parameters from 1 and throws for a parameter DuckDB could not type.
          const type = (() => {
            try {
              return prepared.parameterType(i + 1);
            } catch {
              return undefined;
            }
          })();
          if (type && type.typeId !== DuckDBTypeId.SQLNULL && type.typeId !== DuckDBTypeId.ANY) {
            types[i] = formatType(prestoTypeOf(type), dialectOf(session.prefix));
          }
        }
      } finally {
        prepared.destroySync();
      }
    }
    for (const [position, type] of parameterTypesFromLiterals(tree)) {
      if (types[position] === 'unknown') types[position] = formatType(type, dialectOf(session.prefix));
    }
  }
  return {
    columns: [
      { name: 'Position', type: { base: 'bigint' } },
      { name: 'Type', type: { base: 'varchar' } },
    ],
    rows: types.map((type, i) => [i, type]),
  };
}

export const DESCRIBE_OUTPUT_COLUMNS: OutputColumn[] = [
  ...['Column Name', 'Catalog', 'Schema', 'Table', 'Type'].map((name) => ({ name, type: { base: 'varchar' } })),
  { name: 'Type Size', type: { base: 'bigint' } },
  { name: 'Aliased', type: { base: 'boolean' } },
];

/** Which select-list entries carry an alias (a SELECT without `*`; none otherwise). */
export function aliasedColumns(sql: string): boolean[] {
  const tree = treeOf(sql);
  if (tree.type !== 'Query' || tree.body.type !== 'QuerySpecification') return [];
  const items = tree.body.select.selectItems;
  if (items.some((item) => item.type !== 'SingleColumn')) return [];
  return items.map((item) => item.type === 'SingleColumn' && item.alias !== undefined);
}

/** DESCRIBE OUTPUT rows for a planned statement's columns. Source table lineage is not tracked (null). */
export function describeOutputRows(session: Session, columns: OutputColumn[], aliased: boolean[]): Cell[][] {
  const dialect = dialectOf(session.prefix);
  return columns.map((c, i) => [c.name, null, null, null, formatType(c.type, dialect), typeSize(c.type), aliased[i] ?? false]);
}

/** Fixed width in bytes (Presto's Type.getFixedSize), 0 for variable-width types. */
function typeSize(t: PrestoType): number {
  switch (t.base) {
    case 'boolean':
    case 'tinyint':
      return 1;
    case 'smallint':
      return 2;
    case 'integer':
    case 'real':
    case 'date':
      return 4;
    case 'bigint':
    case 'double':
    case 'timestamp':
    case 'time':
    case 'interval day to second':
    case 'interval year to month':
      return 8;
    case 'decimal':
      return (t as { precision: number }).precision <= 18 ? 8 : 16;
    case 'timestamp with time zone':
    case 'uuid':
      return 16;
    default:
      return 0;
  }
}
