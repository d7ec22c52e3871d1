// PREPARE / EXECUTE / DEALLOCATE PREPARE and DESCRIBE INPUT / OUTPUT. Prepared statements live in the
// client (Added-Prepare, then the Prepared-Statement header); the server only checks and substitutes.
import type { DuckDBConnection } from '@duckdb/node-api';
import { DuckDBTypeId } from '@duckdb/node-api';
import type { OutputColumn, PrestoType, Session, SessionUpdates } from '../../protocol/types.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import { formatType } from '../../protocol/presto-type.js';
import { dialectOf } from '../../protocol/header-prefix.js';
import { prestoTypeOf } from '../../connectors/duckdb-types.js';
import { parseStatement } from '../../sql/parser.js';
import { findAll, walk } from '../../sql/tree-walk.js';
import type { Expression, Query, Statement } from '../../sql/ast.js';
import { parameterTypesFromLiterals } from '../../sql/parameter-types.js';
import { outputOrigins } from '../../sql/output-origins.js';
import { bindingKey, bindParameters, checkParameterCount, checkRowCount, parametersOf, relocate, rowCountParameters } from '../../sql/parameter-binding.js';
import { expression as formatExpression } from '../../sql/sql-formatter.js';
import { positionAt } from '../../sql/syntax-error.js';
import { executionRows } from '../row-batch.js';
import type { Plan } from '../engine.types.js';
import type { BoundStatement, DialectContext } from './dialect-planner.js';
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

/** What may stand for a row count: what Trino's TypeCoercion coerces to bigint (unknown is a NULL). */
const ROW_COUNT_TYPES: ReadonlySet<string> = new Set(['tinyint', 'smallint', 'integer', 'bigint', 'unknown']);
const MAX_BIGINT = 2n ** 63n - 1n;

/** Trino's expression printing in its messages: `null` in lower case. */
const printed = (e: Expression) => (e.type === 'NullLiteral' ? 'null' : formatExpression(e));

/** The rows of a planned statement, drained. */
async function rowsOf(plan: Plan): Promise<unknown[][]> {
  return executionRows(plan.execute(), 1 << 16);
}

/**
 * The values of the markers that stand for a row count (LIMIT ?, OFFSET ?, FETCH FIRST ? ROWS), by
 * position, as Trino's analyzeParameterAsRowCount evaluates them: the USING expression, planned through
 * the gate as `SELECT e1, e2`, must be of a type that coerces to bigint (TYPE_MISMATCH) and not NULL
 * (INVALID_ARGUMENTS); its value is then held to the clause's bound.
 */
async function rowCountValues(ctx: DialectContext, sql: string, tree: Statement, values: readonly Expression[]): Promise<Map<number, bigint>> {
  const counts = new Map<number, bigint>();
  const markers = rowCountParameters(tree);
  if (markers.length === 0) return counts;
  const expressions = markers.map((m) => relocate(values[m.position]!, m.parameter.location));
  const location = tree.location;
  const query: Query = {
    type: 'Query', with: undefined, orderBy: undefined, offset: undefined, limit: undefined, location,
    body: {
      type: 'QuerySpecification', location, from: undefined, where: undefined, groupBy: undefined, having: undefined, windows: [],
      select: { type: 'Select', distinct: false, location, selectItems: expressions.map((e) => ({ type: 'SingleColumn', expression: e, alias: undefined, location: e.location })) },
    },
  };
  const plan = await ctx.planBound({ tree: query, sql, key: `row counts\u0000${bindingKey(expressions)}` }, ctx.session);
  const wrongType = plan.columns.findIndex((c) => !ROW_COUNT_TYPES.has(c.type.base));
  if (wrongType >= 0) {
    plan.release();
    const position = positionAt(sql, markers[wrongType]!.parameter.location.start);
    throw new VivaceError('TYPE_MISMATCH', `line ${position.lineNumber}:${position.columnNumber}: Cannot cast type ${formatType(plan.columns[wrongType]!.type)} to bigint`, { location: position });
  }
  const row = (await rowsOf(plan))[0] ?? [];
  markers.forEach((m, i) => {
    const value = row[i];
    if (typeof value !== 'number') {
      const position = positionAt(sql, m.parameter.location.start);
      throw new VivaceError('INVALID_ARGUMENTS', `line ${position.lineNumber}:${position.columnNumber}: Parameter value provided for ${m.clause} is NULL: ${printed(values[m.position]!)}`, { location: position });
    }
    // Past 2^53 a JSON number is not exact, but any such count means every row.
    const count = Number.isSafeInteger(value) ? BigInt(value) : value > 0 ? MAX_BIGINT : BigInt(Math.trunc(value));
    checkRowCount(sql, m.parameter, m.clause, count);
    counts.set(m.position, count);
  });
  return counts;
}

/**
 * EXECUTE and EXECUTE IMMEDIATE: the prepared statement's tree with its markers bound to the USING
 * expressions (parameter-binding.ts), planned through the gate as a statement of its own. Call after
 * the connection went back (`ctx.release`).
 */
export async function executePrepared(ctx: DialectContext, sql: string, values: readonly Expression[]): Promise<Plan> {
  const tree = treeOf(sql);
  checkParameterCount(tree, sql, values.length);
  const counts = await rowCountValues(ctx, sql, tree, values);
  return ctx.planBound({ tree: bindParameters(tree, values, counts), sql, key: bindingKey(values) }, ctx.session);
}

/**
 * A prepared statement bound for DESCRIBE OUTPUT, whose parameters are not known yet: NULL for each
 * value, and row counts that keep the output as it is (as Trino's analyzer leaves a described row count
 * unevaluated).
 */
export function describedStatement(sql: string): BoundStatement {
  const tree = treeOf(sql);
  const markers = parametersOf(tree);
  const values: Expression[] = markers.map((p) => ({ type: 'NullLiteral', location: p.location }));
  const counts = new Map(rowCountParameters(tree).map((m) => [m.position, m.clause === 'FETCH FIRST' ? 1n : 0n]));
  return { tree: bindParameters(tree, values, counts), sql, key: 'describe' };
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

/**
 * DESCRIBE OUTPUT rows for a planned statement's columns, as Trino's DescribeOutputRewrite: the origin
 * table's catalog, schema and name where the tree tells it (output-origins.ts), else empty strings.
 */
export function describeOutputRows(session: Session, sql: string, columns: OutputColumn[]): Cell[][] {
  const dialect = dialectOf(session.prefix);
  const origins = outputOrigins(treeOf(sql), columns.length, session);
  return columns.map((c, i) => {
    const { table, aliased } = origins[i] ?? { aliased: false };
    return [c.name, table?.catalog ?? '', table?.schema ?? '', table?.table ?? '', formatType(c.type, dialect), typeSize(c.type), aliased];
  });
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
    case 'time':
    case 'interval day to second':
    case 'interval year to month':
      return 8;
    case 'decimal':
      return (t as { precision: number }).precision <= 18 ? 8 : 16;
    // Trino's short forms are one long; the long ones add an int (picoseconds, or the zone's key).
    case 'timestamp':
      return (t as { precision?: number }).precision! > 6 ? 12 : 8;
    case 'timestamp with time zone':
      return (t as { precision?: number }).precision! > 3 ? 12 : 8;
    case 'time with time zone':
      return (t as { precision?: number }).precision! > 9 ? 12 : 8;
    case 'uuid':
    case 'ipaddress':
      return 16;
    default:
      return 0;
  }
}
