// Trino calls DuckDB cannot take as written, and what they become. Most supported functions keep their
// name: DuckDB's builtin, or a TEMP macro of the same name (lib/engine/presto-functions.ts). Macros cannot
// take lambdas, be variadic or see session values; those calls are translated here (function-catalog.ts
// marks them 'rewrite'). Pure: the printer hands in how to print an argument.
import type { Expression, LambdaExpression } from './ast.js';
import { mysqlToStrftime } from './mysql-date-format.js';
import { quoteString } from './sql-formatter.js';
import { duckdbJsonPath } from './json-path.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { formatType } from '../protocol/presto-type.js';
import { fullyDeclaredType } from './declared-types.js';

/** What a translation needs from the printer. */
export interface CallPrinter {
  expression(e: Expression): string;
  /** `(p1, p2, ...) -> body` as a one-parameter DuckDB lambda over `vivace_e`, each pi printed as `field(i)`. */
  lambdaOverEntry(f: LambdaExpression, field: (i: number) => string): string;
  /** The session's time zone (current_timezone()). */
  readonly timeZone: string | undefined;
  /** The server's version (version()). */
  readonly version: string | undefined;
}

/** DuckDB text for a call, or undefined to print the call as written. */
type CallTranslation = (args: readonly Expression[], p: CallPrinter) => string | undefined;

const isLambda = (e: Expression | undefined): e is LambdaExpression => e?.type === 'LambdaExpression';

const ENTRY = '"vivace_e"';
const ENTRY_FIELD = (i: number) => `${ENTRY}.${i === 0 ? '"key"' : '"value"'}`;

/** Widths and precisions of a format past this would build the string while DuckDB plans (2e9: 2 GB). */
export const MAX_FORMAT_WIDTH = 1_000_000;

/** A constant format's widths and precisions (`%2000000000d`, `%.9999999f`) stay under MAX_FORMAT_WIDTH. */
function checkFormatWidths(f: Expression | undefined): void {
  if (f?.type !== 'StringLiteral') return;
  const text = f.value;
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

/** The session zone as a literal; a zone name is word characters and / + - : only (else UTC). */
function zoneLiteral(zone: string | undefined): string {
  const valid = zone !== undefined && zone.length >= 1 && zone.length <= 64 && [...zone].every((c) => /[\w/+\-:]/.test(c));
  return quoteString(valid ? zone : 'UTC');
}

const CALLS: Readonly<Record<string, CallTranslation>> = {
  transform: ([a, f], p) => (isLambda(f) ? `list_transform(${p.expression(a!)}, ${p.expression(f)})` : undefined),
  // reduce(array, initial, (s, x) -> s', s -> out): DuckDB's list_reduce takes the initial value last.
  reduce: ([a, init, f, out], p) =>
    isLambda(f) && isLambda(out)
      ? `list_extract(list_transform([list_reduce(${p.expression(a!)}, ${p.expression(f)}, ${p.expression(init!)})], ${p.expression(out)}), 1)`
      : undefined,
  any_match: ([a, f], p) => (isLambda(f) ? `coalesce(list_bool_or(list_transform(${p.expression(a!)}, ${p.expression(f)})), false)` : undefined),
  all_match: ([a, f], p) => (isLambda(f) ? `coalesce(list_bool_and(list_transform(${p.expression(a!)}, ${p.expression(f)})), true)` : undefined),
  none_match: ([a, f], p) => (isLambda(f) ? `(NOT coalesce(list_bool_or(list_transform(${p.expression(a!)}, ${p.expression(f)})), false))` : undefined),
  map_filter: ([m, f], p) =>
    isLambda(f) ? `map_from_entries(list_filter(map_entries(${p.expression(m!)}), ${p.lambdaOverEntry(f, ENTRY_FIELD)}))` : undefined,
  transform_values: ([m, f], p) => {
    if (!isLambda(f)) return undefined;
    const map = p.expression(m!);
    return `map(map_keys(${map}), list_transform(map_entries(${map}), ${p.lambdaOverEntry(f, ENTRY_FIELD)}))`;
  },
  transform_keys: ([m, f], p) => {
    if (!isLambda(f)) return undefined;
    const map = p.expression(m!);
    return `map(list_transform(map_entries(${map}), ${p.lambdaOverEntry(f, ENTRY_FIELD)}), map_values(${map}))`;
  },
  zip_with: ([a, b, f], p) =>
    isLambda(f)
      ? `list_transform(list_zip(${p.expression(a!)}, ${p.expression(b!)}), ${p.lambdaOverEntry(f, (i) => `struct_extract_at(${ENTRY}, ${i + 1})`)})`
      : undefined,
  // A constant MySQL format is translated here: strptime wants a constant, and binding the date_format
  // macro's translation chain costs ~6 ms per statement (the macro stays for computed formats).
  date_parse: ([s, f], p) => (f?.type === 'StringLiteral' ? `strptime(${p.expression(s!)}, ${quoteString(mysqlToStrftime(f.value))})` : undefined),
  date_format: ([t, f], p) => (f?.type === 'StringLiteral' ? `strftime(${p.expression(t!)}, ${quoteString(mysqlToStrftime(f.value))})` : undefined),
  // Java's String.format is close to printf; DuckDB's format() uses {} placeholders.
  format: (args, p) => {
    checkFormatWidths(args[0]);
    return `printf(${args.map((a) => p.expression(a)).join(', ')})`;
  },
  current_timezone: (args, p) => (args.length === 0 ? zoneLiteral(p.timeZone) : undefined),
  version: (args, p) => (args.length === 0 ? quoteString(p.version ?? '') : undefined),
  // DuckDB's parser wants IF's third argument.
  if: (args, p) => (args.length === 2 ? `if(${p.expression(args[0]!)}, ${p.expression(args[1]!)}, NULL)` : undefined),
  // DuckDB's VARCHAR has no length: a value built of string literals is typed from the tree (else the macro).
  typeof: (args) => {
    const type = args.length === 1 ? fullyDeclaredType(args[0]!) : undefined;
    return type && quoteString(formatType(type));
  },
  json_extract: jsonPathCall('json_extract'),
  json_extract_scalar: jsonPathCall('json_extract_scalar'),
  json_size: jsonPathCall('json_size'),
};

/** A call taking Trino's JSON path as a literal, the path as DuckDB reads it (json-path.ts); others as written. */
function jsonPathCall(name: string): CallTranslation {
  return (args, p) => {
    const [json, path] = args;
    if (args.length !== 2 || path?.type !== 'StringLiteral') return undefined;
    return `${name}(${p.expression(json!)}, ${quoteString(duckdbJsonPath(path.value))})`;
  };
}

/** The DuckDB text of a call to Trino function `name` (lower case), or undefined to print it as written. */
export function translateCall(name: string, args: readonly Expression[], p: CallPrinter): string | undefined {
  const translation = Object.hasOwn(CALLS, name) ? CALLS[name] : undefined;
  return translation?.(args, p);
}
