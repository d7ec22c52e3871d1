// A prepared statement's `?` markers bound to EXECUTE's USING expressions on the tree, as Trino binds them
// (ParameterExtractor, the analyzer's parameter map): never by pasting text, so a row count (`LIMIT ?`,
// `OFFSET ?`, `FETCH FIRST ? ROWS`) takes its value as the grammar takes a `?` there.
import type { Expression, Location, LongLiteral, Node, Parameter, Statement } from './ast.js';
import { walk } from './tree-walk.js';
import { positionAt } from './syntax-error.js';
import { VivaceError } from '../protocol/vivace-error.js';
import type { ErrorName } from '../protocol/error-codes.js';

/** Where a parameter stands for a row count (Trino's analyzeParameterAsRowCount names the clause so). */
export type RowCountClause = 'LIMIT' | 'OFFSET' | 'FETCH FIRST';

const isNode = (v: unknown): v is Node => v !== null && typeof v === 'object' && typeof (v as { type?: unknown }).type === 'string';

/** The statement's `?` markers in text order, as Trino's ParameterExtractor finds them (not inside a PREPARE's statement). */
export function parametersOf(statement: Statement): Parameter[] {
  const found: Parameter[] = [];
  walk(statement, (node) => {
    if (node.type === 'Parameter') found.push(node);
    return node.type !== 'Prepare';
  });
  return found.sort((a, b) => a.location.start - b.location.start);
}

function failAt(sql: string, location: Location, name: ErrorName, message: string): VivaceError {
  const position = positionAt(sql, location.start);
  return new VivaceError(name, `line ${position.lineNumber}:${position.columnNumber}: ${message}`, { location: position });
}

/** Trino's QueryPreparer.validateParameters: as many USING values as markers (INVALID_PARAMETER_USAGE at the statement). */
export function checkParameterCount(statement: Statement, sql: string, supplied: number): void {
  const expected = parametersOf(statement).length;
  if (expected !== supplied) {
    throw failAt(sql, statement.location, 'INVALID_PARAMETER_USAGE', `Incorrect number of parameters: expected ${expected} but found ${supplied}`);
  }
}

/** The markers that stand for a row count, with their position among the statement's markers and their clause. */
export function rowCountParameters(statement: Statement): { position: number; parameter: Parameter; clause: RowCountClause }[] {
  const positions = new Map(parametersOf(statement).map((p, i) => [p, i]));
  const found: { position: number; parameter: Parameter; clause: RowCountClause }[] = [];
  const add = (count: Node | undefined, clause: RowCountClause) => {
    if (count?.type === 'Parameter') found.push({ position: positions.get(count)!, parameter: count, clause });
  };
  walk(statement, (node) => {
    if (node.type === 'Prepare') return false;
    if (node.type === 'Offset') add(node.rowCount, 'OFFSET');
    else if (node.type === 'Limit') add(node.rowCount, 'LIMIT');
    else if (node.type === 'FetchFirst') add(node.rowCount, 'FETCH FIRST');
    return true;
  });
  return found;
}

/**
 * A row count's value checked as Trino's analyzer checks it: OFFSET and LIMIT at least 0, FETCH FIRST
 * at least 1 (NUMERIC_VALUE_OUT_OF_RANGE at the clause's marker).
 */
export function checkRowCount(sql: string, parameter: Parameter, clause: RowCountClause, value: bigint): void {
  if (clause === 'FETCH FIRST' ? value > 0n : value >= 0n) return;
  const rule = clause === 'FETCH FIRST' ? 'must be positive' : 'must be greater or equal to 0';
  throw failAt(sql, parameter.location, 'NUMERIC_VALUE_OUT_OF_RANGE', `${clause} row count ${rule} (actual value: ${value})`);
}

/** `node` with every location set to `location`: a USING expression stands where its marker stood (error locations). */
export function relocate<T extends Node>(node: T, location: Location): T {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'location') copy[key] = location;
    else if (Array.isArray(value)) copy[key] = value.map((item: unknown) => (isNode(item) ? relocate(item, location) : item));
    else copy[key] = isNode(value) ? relocate(value, location) : value;
  }
  return copy as T;
}

/**
 * `statement` with its markers bound: a row count to its value (`rowCounts`, by marker position), any
 * other marker to its USING expression (`values`, by position), which stands at the marker's location.
 * The count must already be checked (checkParameterCount).
 */
export function bindParameters(statement: Statement, values: readonly Expression[], rowCounts: ReadonlyMap<number, bigint>): Statement {
  const positions = new Map(parametersOf(statement).map((p, i) => [p, i]));
  if (positions.size === 0) return statement;
  const bind = (node: Node): Node => {
    if (node.type === 'Parameter') {
      const position = positions.get(node);
      if (position === undefined) return node;
      const count = rowCounts.get(position);
      if (count !== undefined) return { type: 'LongLiteral', value: String(count), text: String(count), location: node.location } satisfies LongLiteral;
      return relocate(values[position]!, node.location);
    }
    if (node.type === 'Prepare') return node;
    let changed = false;
    const copy: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      const mapped = Array.isArray(value) ? value.map((item: unknown) => (isNode(item) ? bind(item) : item)) : isNode(value) ? bind(value) : value;
      if (Array.isArray(value) ? (mapped as unknown[]).some((m, i) => m !== value[i]) : mapped !== value) changed = true;
      copy[key] = mapped;
    }
    return changed ? (copy as unknown as Node) : node;
  };
  try {
    return bind(statement) as Statement;
  } catch (err) {
    if (err instanceof RangeError) throw new VivaceError('SYNTAX_ERROR', 'line 1:1: statement is too large (stack overflow while binding parameters)', { location: { lineNumber: 1, columnNumber: 1 } });
    throw err;
  }
}

/** What identifies bound values for caches keyed by the prepared statement's text: the values' trees, locations aside. */
export function bindingKey(values: readonly Expression[]): string {
  return JSON.stringify(values, (key, value: unknown) => (key === 'location' ? undefined : value));
}
