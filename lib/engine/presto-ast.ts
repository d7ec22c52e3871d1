// Presto functions that macros cannot express, rewritten on DuckDB's serialized AST
// (json_serialize_sql): lambdas, variadic calls, session values and DATE + INTERVAL.
// Pure functions; statement-rewriter.ts runs this pass next to the division rewrite.
import type { AstNode } from './duckdb-ast.js';
import { mysqlToStrftime } from './presto-functions.js';
import { VivaceError } from '../protocol/vivace-error.js';

export interface PrestoAstOptions {
  /** The session time zone, for current_timezone(). */
  timeZone?: string;
}

const isNode = (v: unknown): v is AstNode => typeof v === 'object' && v !== null && !Array.isArray(v);

const NO_LOCATION = '\u0000n:18446744073709551615';

function call(name: string, children: unknown[], like?: AstNode): AstNode {
  return {
    class: 'FUNCTION',
    type: 'FUNCTION',
    alias: like?.alias ?? '',
    query_location: like?.query_location ?? NO_LOCATION,
    function_name: name,
    schema: '',
    children,
    filter: null,
    order_bys: { type: 'ORDER_MODIFIER', orders: [] },
    distinct: false,
    is_operator: false,
    export_state: false,
    catalog: '',
  };
}

const columnRef = (...names: string[]): AstNode => ({ class: 'COLUMN_REF', type: 'COLUMN_REF', alias: '', query_location: NO_LOCATION, column_names: names });

const constant = (id: 'VARCHAR' | 'INTEGER' | 'BOOLEAN', value: unknown): AstNode => ({
  class: 'CONSTANT',
  type: 'VALUE_CONSTANT',
  alias: '',
  query_location: NO_LOCATION,
  value: { type: { id, type_info: null }, is_null: false, value: id === 'INTEGER' ? `\u0000n:${String(value)}` : value },
});

const operator = (type: 'OPERATOR_NOT' | 'OPERATOR_COALESCE', children: unknown[], alias = ''): AstNode => ({ class: 'OPERATOR', type, alias, query_location: NO_LOCATION, children });

const lambda = (param: string, expr: unknown): AstNode => ({ class: 'LAMBDA', type: 'LAMBDA', alias: '', query_location: NO_LOCATION, lhs: columnRef(param), expr });

const isLambda = (v: unknown): v is AstNode => isNode(v) && v.class === 'LAMBDA';

/** A lambda's parameter names: `x -> ...` or `(k, v) -> ...`. */
function lambdaParams(node: AstNode): string[] {
  const lhs = node.lhs;
  const names = (v: unknown): string | undefined => (isNode(v) && v.class === 'COLUMN_REF' && Array.isArray(v.column_names) && v.column_names.length === 1 ? String(v.column_names[0]) : undefined);
  if (isNode(lhs) && lhs.class === 'FUNCTION' && lhs.function_name === 'row' && Array.isArray(lhs.children)) return lhs.children.map(names).filter((n): n is string => !!n);
  const one = names(lhs);
  return one ? [one] : [];
}

/** A copy of `expr` with each bare reference to a parameter replaced (`k` -> `vivace_e.key`). */
function substitute(expr: unknown, replacements: Map<string, () => AstNode>): unknown {
  if (Array.isArray(expr)) return expr.map((e) => substitute(e, replacements));
  if (!isNode(expr)) return expr;
  if (expr.class === 'COLUMN_REF' && Array.isArray(expr.column_names) && expr.column_names.length >= 1) {
    const make = replacements.get(String(expr.column_names[0]));
    if (make) {
      const base = make();
      const rest = expr.column_names.slice(1).map(String);
      const replaced = rest.length === 0 ? base : columnRef(...(base.column_names as string[]), ...rest);
      return { ...replaced, alias: expr.alias };
    }
  }
  const out: AstNode = {};
  for (const [k, v] of Object.entries(expr)) out[k] = substitute(v, replacements);
  return out;
}

/** `(p1, p2) -> body` as a one-parameter lambda over `vivace_e`, each pi replaced by field(i). */
function overEntry(fn: AstNode, field: (i: number) => AstNode): AstNode {
  const params = lambdaParams(fn);
  const map = new Map<string, () => AstNode>(params.map((p, i) => [p, () => field(i)]));
  return lambda('vivace_e', substitute(fn.expr, map));
}

const ENTRY_FIELD = (i: number) => columnRef('vivace_e', i === 0 ? 'key' : 'value');

const INTERVAL_FUNCTIONS = new Set(['to_years', 'to_months', 'to_days', 'to_weeks', 'to_hours', 'to_minutes', 'to_seconds', 'to_milliseconds', 'to_microseconds', 'to_centuries', 'to_decades', 'to_millennia', 'to_quarters']);

function isInterval(v: unknown): boolean {
  if (!isNode(v)) return false;
  if (v.class === 'FUNCTION' && typeof v.function_name === 'string' && INTERVAL_FUNCTIONS.has(v.function_name) && !v.is_operator) return true;
  if (v.class === 'CAST' && isNode(v.cast_type) && v.cast_type.id === 'INTERVAL') return true;
  return v.class === 'CONSTANT' && isNode(v.value) && isNode(v.value.type) && v.value.type.id === 'INTERVAL';
}

/** any_match: true if some element matches; false for an empty array. */
const anyMatch = (a: unknown, f: AstNode, alias: unknown = ''): AstNode =>
  operator('OPERATOR_COALESCE', [call('list_bool_or', [call('list_transform', [a, f])]), constant('BOOLEAN', false)], String(alias ?? ''));

/** Widths and precisions of a format past this would build the string while DuckDB plans (2e9: 2 GB). */
export const MAX_FORMAT_WIDTH = 1_000_000;

/** A constant format's widths and precisions (`%2000000000d`, `%.9999999f`) stay under MAX_FORMAT_WIDTH. */
function checkFormatWidths(f: unknown): void {
  if (!isNode(f) || f.class !== 'CONSTANT' || !isNode(f.value) || typeof f.value.value !== 'string') return;
  const text = f.value.value;
  const digitsAt = (from: number): { value: number; end: number } => {
    let value = 0;
    let end = from;
    while (end < text.length && text.charCodeAt(end) >= 48 && text.charCodeAt(end) <= 57) {
      value = Math.min(value * 10 + (text.charCodeAt(end) - 48), Number.MAX_SAFE_INTEGER);
      end++;
    }
    return { value, end };
  };
  const tooWide = () => new VivaceError('INVALID_FUNCTION_ARGUMENT', `Width and precision in a format must not exceed ${MAX_FORMAT_WIDTH}`);
  for (let i = text.indexOf('%'); i >= 0 && i < text.length; i = text.indexOf('%', i + 1)) {
    let j = i + 1;
    let number = digitsAt(j);
    if (text[number.end] === '$') j = number.end + 1; // an argument index, not a width
    while (j < text.length && '-#+ 0,(<'.includes(text[j]!)) j++;
    number = digitsAt(j);
    if (number.value > MAX_FORMAT_WIDTH) throw tooWide();
    j = number.end;
    if (text[j] === '.' && digitsAt(j + 1).value > MAX_FORMAT_WIDTH) throw tooWide();
  }
}

function withFormat(f: unknown, make: (format: AstNode) => AstNode): AstNode | undefined {
  const format = isNode(f) && f.class === 'CONSTANT' && isNode(f.value) && isNode(f.value.type) && f.value.type.id === 'VARCHAR' && typeof f.value.value === 'string' ? f.value.value : undefined;
  return format === undefined ? undefined : make(constant('VARCHAR', mysqlToStrftime(format)));
}

type Rewrite = (node: AstNode, args: unknown[], options: PrestoAstOptions) => AstNode | undefined;

/** Function name -> rewrite; undefined leaves the call as is (a macro or DuckDB handles it, or it fails there). */
const REWRITES: Record<string, Rewrite> = {
  transform: (n, [a, f]) => (isLambda(f) ? call('list_transform', [a, f], n) : undefined),
  // reduce(array, initial, (s, x) -> s', s -> out): DuckDB's list_reduce takes the initial value last.
  reduce: (n, [a, init, f, out]) =>
    isLambda(f) && isLambda(out) ? call('list_extract', [call('list_transform', [call('list_value', [call('list_reduce', [a, f, init])]), out]), constant('INTEGER', 1)], n) : undefined,
  any_match: (n, [a, f]) => (isLambda(f) ? anyMatch(a, f, n.alias) : undefined),
  all_match: (n, [a, f]) => (isLambda(f) ? operator('OPERATOR_COALESCE', [call('list_bool_and', [call('list_transform', [a, f])]), constant('BOOLEAN', true)], String(n.alias ?? '')) : undefined),
  none_match: (n, [a, f]) => (isLambda(f) ? operator('OPERATOR_NOT', [anyMatch(a, f)], String(n.alias ?? '')) : undefined),
  map_filter: (n, [m, f]) => (isLambda(f) ? call('map_from_entries', [call('list_filter', [call('map_entries', [m]), overEntry(f, ENTRY_FIELD)])], n) : undefined),
  transform_values: (n, [m, f]) => (isLambda(f) ? call('map', [call('map_keys', [m]), call('list_transform', [call('map_entries', [m]), overEntry(f, ENTRY_FIELD)])], n) : undefined),
  transform_keys: (n, [m, f]) => (isLambda(f) ? call('map', [call('list_transform', [call('map_entries', [m]), overEntry(f, ENTRY_FIELD)]), call('map_values', [m])], n) : undefined),
  zip_with: (n, [a, b, f]) =>
    isLambda(f) ? call('list_transform', [call('list_zip', [a, b]), overEntry(f, (i) => call('struct_extract_at', [columnRef('vivace_e'), constant('INTEGER', i + 1)]) as AstNode)], n) : undefined,
  // A constant MySQL format is translated here: strptime wants a constant, and binding the date_format
  // macro's translation chain costs ~6 ms per statement (the macro stays for computed formats).
  date_parse: (n, [s, f]) => withFormat(f, (format) => call('strptime', [s, format], n)),
  date_format: (n, [t, f]) => withFormat(f, (format) => call('strftime', [t, format], n)),
  // Java's String.format is close to printf; DuckDB's format() uses {} placeholders.
  format: (n, args) => {
    checkFormatWidths(args[0]);
    return call('printf', args, n);
  },
  current_timezone: (n, args, o) => (args.length === 0 ? { ...constant('VARCHAR', o.timeZone && /^[\w/+\-:]{1,64}$/.test(o.timeZone) ? o.timeZone : 'UTC'), alias: n.alias } : undefined),
};

/** Struct fields reached through a substituted entry parameter must keep working: `vivace_e.key` is a COLUMN_REF. */
function isPlainCall(node: AstNode): boolean {
  return node.class === 'FUNCTION' && !node.is_operator && (node.schema === '' || node.schema === undefined) && (node.catalog === '' || node.catalog === undefined) && Array.isArray(node.children);
}

/**
 * Rewrites the tree in place for Presto functions DuckDB's macros cannot cover. Divisions inside
 * TRY(...) become vivace_try_divide (NULL on zero: TRY refuses the volatile error()). Returns the
 * number of rewrites (0: the statement can run as written).
 */
export function rewritePrestoAst(root: unknown, options: PrestoAstOptions = {}): number {
  let count = 0;
  const visit = (value: unknown, inTry: boolean): unknown => {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = visit(value[i], inTry);
      return value;
    }
    if (!isNode(value)) return value;
    const name = value.class === 'FUNCTION' && typeof value.function_name === 'string' ? value.function_name.toLowerCase() : undefined;
    const childInTry = inTry || (value.class === 'OPERATOR' && value.type === 'OPERATOR_TRY');
    for (const key of Object.keys(value)) value[key] = visit(value[key], childInTry);
    if (!name) return value;
    if (inTry && name === 'vivace_divide') {
      count++;
      return { ...value, function_name: 'vivace_try_divide' };
    }
    if (value.is_operator === true && (name === '+' || name === '-') && Array.isArray(value.children) && value.children.length === 2) {
      const [a, b] = value.children;
      if (isInterval(b) && !isInterval(a)) {
        count++;
        return call(name === '+' ? 'vivace_plus_interval' : 'vivace_minus_interval', [a, b], value);
      }
      if (name === '+' && isInterval(a) && !isInterval(b)) {
        count++;
        return call('vivace_plus_interval', [b, a], value);
      }
      return value;
    }
    const rewrite = isPlainCall(value) ? REWRITES[name] : undefined;
    const replaced = rewrite?.(value, value.children as unknown[], options);
    if (!replaced) return value;
    count++;
    return replaced;
  };
  visit(root, false);
  return count;
}

/** Presto functions rewritten on DuckDB's tree (a statement calling none of them, and dividing nothing, needs no tree). */
export const REWRITTEN_FUNCTIONS: ReadonlySet<string> = new Set(Object.keys(REWRITES));
