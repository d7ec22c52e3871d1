// Presto dialect on DuckDB's own AST (json_serialize_sql): rewrites `/` to Presto division and
// derives Presto's output column names (`_col0` for unaliased expressions).
// Pure functions over the JSON AST; running json_serialize_sql is the engine's job.
import { rewritePrestoAst, type PrestoAstOptions } from './presto-ast.js';
import { astNumber, NUMBER_MARK, type AstNode } from './duckdb-ast.js';

const isNode = (v: unknown): v is AstNode => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Presto's literal types as decimals: integer -> decimal(10,0), bigint -> decimal(19,0). */
function literalDecimal(node: unknown): { precision: number; scale: number } | undefined {
  if (!isNode(node)) return undefined;
  if (node.class === 'FUNCTION' && node.function_name === '-' && Array.isArray(node.children) && node.children.length === 1) {
    return literalDecimal(node.children[0]);
  }
  if (node.class !== 'CONSTANT' || !isNode(node.value) || !isNode(node.value.type)) return undefined;
  const type = node.value.type;
  if (type.id === 'INTEGER') return { precision: 10, scale: 0 };
  if (type.id === 'BIGINT') return { precision: 19, scale: 0 };
  if (type.id === 'DECIMAL' && isNode(type.type_info)) {
    return { precision: astNumber(type.type_info.width), scale: astNumber(type.type_info.scale) };
  }
  return undefined;
}

/**
 * Presto's decimal division type (Trino DecimalOperators): scale max(s1,s2),
 * precision min(38, p1 + s2 + max(0, s2 - s1)). Only known when both operands are literals and one is decimal.
 */
function decimalQuotientType(a: unknown, b: unknown): { precision: number; scale: number } | undefined {
  const x = literalDecimal(a);
  const y = literalDecimal(b);
  if (!x || !y || (x.scale === 0 && y.scale === 0 && !isDecimalLiteral(a) && !isDecimalLiteral(b))) return undefined;
  const scale = Math.max(x.scale, y.scale);
  const precision = Math.min(38, Math.max(x.precision + y.scale + Math.max(0, y.scale - x.scale), scale, 1));
  return { precision, scale };
}

function isDecimalLiteral(node: unknown): boolean {
  if (!isNode(node)) return false;
  if (node.class === 'FUNCTION' && Array.isArray(node.children) && node.children.length === 1) return isDecimalLiteral(node.children[0]);
  return node.class === 'CONSTANT' && isNode(node.value) && isNode(node.value.type) && node.value.type.id === 'DECIMAL';
}

function isDivision(node: AstNode): boolean {
  return (
    node.class === 'FUNCTION' &&
    node.function_name === '/' &&
    node.is_operator === true &&
    (node.schema === '' || node.schema === undefined) &&
    Array.isArray(node.children) &&
    node.children.length === 2
  );
}

/**
 * Rewrites the tree in place for Presto semantics: every `a / b` becomes `vivace_divide(a, b)`.
 * Returns the number of divisions rewritten (0: leave the statement as written).
 */
export function rewriteDivisions(root: unknown): number {
  let divisions = 0;
  // Bottom-up, so a division sees its operands already rewritten.
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = rewrite(value[i]);
      return value;
    }
    if (!isNode(value)) return value;
    for (const key of Object.keys(value)) value[key] = rewrite(value[key]);
    if (isDivision(value)) {
      divisions++;
      return divisionReplacement(value);
    }
    return doubleLiteralReplacement(value) ?? value;
  };
  rewrite(root);
  return divisions;
}

/**
 * Every Presto rewrite of a parsed statement, in place: divisions, then Presto functions (presto-ast.ts,
 * which also turns divisions inside TRY into vivace_try_divide). Returns the number of rewrites
 * (0: the statement runs as written, without a json_deserialize_sql round trip).
 */
export function rewriteStatement(root: unknown, options: PrestoAstOptions = {}): number {
  const divisions = rewriteDivisions(root);
  return divisions + rewritePrestoAst(root, options);
}

/**
 * DuckDB prints a DOUBLE literal `1e0` back as `1.0`, which parses as DECIMAL: after a round trip
 * through json_deserialize_sql such literals must say what they are.
 */
function doubleLiteralReplacement(node: unknown): AstNode | undefined {
  if (!isNode(node) || node.class !== 'CONSTANT' || !isNode(node.value) || !isNode(node.value.type)) return undefined;
  const id = node.value.type.id;
  if ((id !== 'DOUBLE' && id !== 'FLOAT') || node.value.is_null === true) return undefined;
  const text = String(node.value.value).replace(NUMBER_MARK, '');
  return {
    class: 'CAST',
    type: 'OPERATOR_CAST',
    alias: node.alias,
    query_location: node.query_location,
    child: { ...node, alias: '', value: { type: { id: 'VARCHAR', type_info: null }, is_null: false, value: text } },
    cast_type: { id, type_info: null },
    try_cast: false,
  };
}

/** `vivace_divide(a, b)`, cast to Presto's decimal type when both operands are literals. */
/**
 * Aggregates and window functions DuckDB cannot type while it picks a typed macro overload
 * ("multiple overloads match"): a division over them uses the untyped vivace_divide_any.
 */
const AGGREGATES = new Set([
  'sum', 'avg', 'mean', 'count', 'count_star', 'min', 'max', 'any_value', 'arbitrary', 'first', 'last', 'median', 'mode',
  'product', 'fsum', 'favg', 'kahan_sum', 'sumkahan', 'sum_no_overflow', 'stddev', 'stddev_samp', 'stddev_pop', 'variance',
  'var_samp', 'var_pop', 'corr', 'covar_samp', 'covar_pop', 'approx_count_distinct', 'approx_distinct', 'approx_quantile',
  'approx_percentile', 'quantile', 'quantile_cont', 'quantile_disc', 'max_by', 'min_by', 'arg_max', 'arg_min', 'bool_and',
  'bool_or', 'every', 'bit_and', 'bit_or', 'bit_xor', 'geometric_mean', 'geomean', 'kurtosis', 'skewness', 'entropy',
  'regr_slope', 'regr_intercept', 'regr_count', 'regr_r2', 'regr_avgx', 'regr_avgy', 'regr_sxx', 'regr_syy', 'regr_sxy',
  'count_if', 'countif', 'checksum',
]);

function containsAggregate(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(containsAggregate);
  if (!isNode(value)) return false;
  if (value.class === 'WINDOW') return true;
  if (value.class === 'FUNCTION' && typeof value.function_name === 'string' && AGGREGATES.has(value.function_name.toLowerCase())) return true;
  // Subqueries bind on their own: an aggregate inside one is typed before the macro sees it.
  if (value.class === 'SUBQUERY') return false;
  return Object.values(value).some(containsAggregate);
}

function divisionReplacement(node: AstNode): AstNode {
  const children = node.children as unknown[];
  if (containsAggregate(children)) return { ...node, function_name: 'vivace_divide_any', is_operator: false };
  const call: AstNode = { ...node, function_name: 'vivace_divide', is_operator: false, alias: '' };
  const decimal = decimalQuotientType(children[0], children[1]);
  if (!decimal) return { ...call, alias: node.alias };
  return {
    class: 'CAST',
    type: 'OPERATOR_CAST',
    alias: node.alias,
    query_location: node.query_location,
    child: call,
    cast_type: {
      id: 'DECIMAL',
      type_info: { type: 'DECIMAL_TYPE_INFO', alias: '', extension_info: null, width: decimal.precision, scale: decimal.scale },
    },
    try_cast: false,
  };
}

/** The node whose select list names the output: the leftmost SELECT of set operations. */
function namingSelect(node: unknown): AstNode | undefined {
  if (!isNode(node)) return undefined;
  if (node.type === 'SELECT_NODE') return node;
  if (node.type === 'SET_OPERATION_NODE') {
    if (Array.isArray(node.children)) return namingSelect(node.children[0]);
    return namingSelect(node.left);
  }
  if (node.type === 'CTE_NODE' || node.type === 'RECURSIVE_CTE_NODE') return namingSelect(node.query ?? node.left);
  return undefined;
}

/**
 * Presto's output names: alias, else a plain column reference's name, else `_col{i}`.
 * Star expansions keep DuckDB's names; `VALUES` columns are all `_col{i}`.
 */
export function prestoColumnNames(root: AstNode | undefined, duckdbNames: readonly string[]): string[] {
  const select = namingSelect(root);
  const list = select?.select_list;
  if (!select || !Array.isArray(list)) return [...duckdbNames];
  const from = isNode(select.from_table) ? select.from_table : undefined;
  if (list.length === 1 && isNode(list[0]) && list[0].class === 'STAR' && from?.type === 'EXPRESSION_LIST') {
    return duckdbNames.map((_, i) => `_col${i}`);
  }
  const names = [...duckdbNames];
  const starAt = list.findIndex((e) => isNode(e) && e.class === 'STAR');
  const lastStar = list.length - 1 - [...list].reverse().findIndex((e) => isNode(e) && e.class === 'STAR');
  const nameOf = (e: unknown, position: number): string | undefined => {
    if (!isNode(e)) return undefined;
    if (typeof e.alias === 'string' && e.alias !== '') return e.alias;
    if (e.class === 'COLUMN_REF' && Array.isArray(e.column_names)) return String(e.column_names[e.column_names.length - 1]);
    return `_col${position}`;
  };
  const head = starAt < 0 ? list.length : starAt;
  for (let i = 0; i < head && i < names.length; i++) names[i] = nameOf(list[i], i) ?? names[i]!;
  if (starAt >= 0) {
    // Items after the last star map from the end of the output.
    const tail = list.length - 1 - lastStar;
    for (let k = 1; k <= tail; k++) {
      const position = names.length - k;
      if (position >= head) names[position] = nameOf(list[list.length - k], position) ?? names[position]!;
    }
  }
  return names;
}
