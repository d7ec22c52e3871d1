// Turns DuckDB's plain Error messages ("Catalog Error: ...", "LINE n:" + caret) into VivaceErrors
// with Presto error names, Presto-like messages and 1-based error locations.
import type { ErrorName } from '../protocol/error-codes.js';
import type { ErrorLocation } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { CatalogNames } from './dialect/catalog-names.js';

/** DuckDB SQL standing for a user's statement, with the way back to offsets in the statement as written. */
export interface TranslatedText {
  text: string;
  toOriginal(offset: number): number;
}

export interface ErrorContext {
  /** The SQL as the user wrote it; locations are only computed when given. */
  sql?: string;
  /**
   * The text DuckDB saw when it differs from `sql` (the statement's DuckDB translation): its LINE/caret
   * positions are mapped back so the location points into `sql`.
   */
  rewritten?: TranslatedText;
  /** Used to qualify unqualified table names in messages. */
  catalog?: string;
  schema?: string;
  /** The instance's memory_limit as Trino writes a data size (16MB): an out-of-memory error names it. */
  memoryLimit?: string;
}

/** 1-based line/column of a 0-based character offset in `sql`. */
export function locationOfOffset(sql: string, offset: number): ErrorLocation {
  const before = sql.slice(0, Math.max(0, Math.min(offset, sql.length)));
  const lines = before.split('\n');
  return { lineNumber: lines.length, columnNumber: lines[lines.length - 1]!.length + 1 };
}

/** Location from DuckDB's "LINE n: <snippet>\n<spaces>^" trailer, mapped back onto `sql`. */
export function locationFromCaret(message: string, sql: string | undefined): ErrorLocation | undefined {
  const m = /\nLINE (\d+): (.*)\n( *)\^/.exec(message);
  if (!m) return undefined;
  const lineNumber = Number(m[1]);
  const snippet = m[2]!;
  const caret = m[3]!.length - `LINE ${m[1]}: `.length;
  if (caret < 0) return undefined;
  if (!snippet.startsWith('...')) return { lineNumber, columnNumber: caret + 1 };
  // DuckDB shortens long lines to "...<part>..."; find the part in the original line.
  const line = sql?.split('\n')[lineNumber - 1];
  const part = snippet.slice(3).replace(/\.\.\.$/, '');
  const at = line === undefined ? -1 : line.indexOf(part);
  if (at < 0) return undefined;
  return { lineNumber, columnNumber: at + caret - 3 + 1 };
}

/** A rule's outcome when it depends on more than the message: the error name with its text. */
interface Refined {
  name: ErrorName;
  text: string;
}

interface Rule {
  pattern: RegExp;
  name: ErrorName;
  /** Presto-style message from the match (or a different name with its message); DuckDB's text when absent. */
  message?: (m: RegExpExecArray, ctx: ErrorContext, location: ErrorLocation | undefined) => string | Refined;
}

const unquote = (s: string) => s.replace(/^"(.*)"$/, '$1');

/** DuckDB's first line without its category ("Binder Error: "): Trino's messages carry none. */
function withoutCategory(line: string): string {
  const at = line.indexOf(' Error: ');
  return at > 0 && at < 40 ? line.slice(at + ' Error: '.length) : line;
}

/** 0-based offset of a location in `sql`, when it lies inside it. */
function offsetIn(sql: string | undefined, location: ErrorLocation | undefined): number | undefined {
  if (sql === undefined || location === undefined) return undefined;
  const offset = offsetOfLocation(sql, location);
  return offset >= 0 && offset < sql.length ? offset : undefined;
}

/** The dotted name written at `offset` (1 to `maxParts` identifiers), lowercased as Trino canonicalizes names. */
function identifierChainAt(sql: string, offset: number, maxParts: number): string[] | undefined {
  const ident = /"((?:[^"]|"")*)"|([a-z_][\w$]*)/iy;
  const parts: string[] = [];
  let at = offset;
  for (;;) {
    ident.lastIndex = at;
    const m = ident.exec(sql);
    if (!m) return parts.length > 0 ? parts : undefined;
    parts.push((m[1]?.replace(/""/g, '"') ?? m[2]!).toLowerCase());
    const dot = skipSpaces(sql, ident.lastIndex);
    if (parts.length === maxParts || sql[dot] !== '.') return parts;
    at = skipSpaces(sql, dot + 1);
  }
}

function skipSpaces(sql: string, at: number): number {
  while (at < sql.length && (sql[at] === ' ' || sql[at] === '\t' || sql[at] === '\n' || sql[at] === '\r')) at++;
  return at;
}

/**
 * The table name as written at the error's location (DuckDB's caret points at the table reference):
 * its 1-3 parts, lowercased as Presto does, when its last part is `table` (DuckDB names only the table).
 */
function writtenName(table: string, ctx: ErrorContext, location: ErrorLocation | undefined): string[] | undefined {
  const offset = offsetIn(ctx.sql, location);
  const parts = offset === undefined ? undefined : identifierChainAt(ctx.sql!, offset, 3);
  return parts?.[parts.length - 1] === unquote(table).toLowerCase() ? parts : undefined;
}

function qualify(name: string, ctx: ErrorContext, written?: string[]): string {
  const parts = written ?? unquote(name).split('.');
  const catalog = ctx.catalog ?? 'memory';
  const schema = ctx.schema ?? 'default';
  if (parts.length === 1) return `${catalog}.${schema}.${parts[0]}`;
  if (parts.length === 2) return `${catalog}.${parts[0]}.${parts[1]}`;
  return parts.join('.');
}

/** DuckDB's type names (SQL or physical, as its messages give them) in Trino's spelling. */
const TYPE_NAMES: Record<string, string> = {
  INT8: 'tinyint', INT16: 'smallint', INT32: 'integer', INT64: 'bigint', INT128: 'decimal(38,0)', HUGEINT: 'decimal(38,0)',
  FLOAT: 'real', FLOAT4: 'real', FLOAT8: 'double', BOOL: 'boolean', BLOB: 'varbinary', STRING: 'varchar', INTEGER_LITERAL: 'integer',
  STRING_LITERAL: 'varchar', 'TIMESTAMP WITH TIME ZONE': 'timestamp with time zone', 'TIME WITH TIME ZONE': 'time with time zone',
  // Trino's ipaddress (lib/sql/ip-address.ts).
  'STRUCT(VIVACE_IPADDRESS UHUGEINT)': 'ipaddress',
};

function trinoTypeName(duckdb: string): string {
  const type = duckdb.trim();
  if (type.endsWith('[]')) return `array(${trinoTypeName(type.slice(0, -2))})`;
  const upper = type.toUpperCase();
  return TYPE_NAMES[upper] ?? (upper.endsWith('_LITERAL') ? upper.slice(0, -'_LITERAL'.length) : type).toLowerCase();
}

/** Splits `INTEGER, DECIMAL(18,3), STRUCT(a INTEGER, b VARCHAR)` at its top-level commas. */
function splitTypes(list: string): string[] {
  const types: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < list.length; i++) {
    const c = list[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) {
      types.push(list.slice(start, i));
      start = i + 1;
    }
  }
  if (list.trim() !== '') types.push(list.slice(start));
  return types.map(trinoTypeName);
}

const BINARY_OPERATORS = new Set(['+', '-', '*', '/', '%', '=', '<>', '!=', '<', '>', '<=', '>=', '||']);

/**
 * A call no signature accepts. An operator is Trino's TYPE_MISMATCH "Cannot apply operator"; a function
 * is its FUNCTION_NOT_FOUND "Unexpected parameters", named as the user wrote it (a Presto function may
 * run under another DuckDB name).
 */
function noMatchingSignature(m: RegExpExecArray, ctx: ErrorContext, location: ErrorLocation | undefined): Refined {
  const name = m[1]!;
  const types = splitTypes(m[2]!);
  const first = name.charCodeAt(0);
  const isWord = first === 0x5f || (first >= 0x41 && first <= 0x5a) || (first >= 0x61 && first <= 0x7a);
  if (!isWord) {
    if (BINARY_OPERATORS.has(name) && types.length === 2) return { name: 'TYPE_MISMATCH', text: `Cannot apply operator: ${types[0]} ${name} ${types[1]}` };
    return { name: 'TYPE_MISMATCH', text: `Cannot apply operator ${name} to (${types.join(', ')})` };
  }
  const offset = offsetIn(ctx.sql, location);
  const written = offset === undefined ? undefined : identifierChainAt(ctx.sql!, offset, 3);
  return { name: 'FUNCTION_NOT_FOUND', text: `Unexpected parameters (${types.join(', ')}) for function ${written?.join('.') ?? name.toLowerCase()}` };
}

/**
 * LIMIT/OFFSET below zero. Written as a literal (`LIMIT -1`), Trino's grammar refuses it (its row count is
 * an unsigned integer, `?` or ALL); otherwise (a parameter) its analyzer does.
 */
function negativeRowCount(ctx: ErrorContext, location: ErrorLocation | undefined): Refined {
  const offset = offsetIn(ctx.sql, location);
  const before = offset === undefined ? '' : ctx.sql!.slice(Math.max(0, offset - 16), offset).trimEnd().toLowerCase();
  const clause = before.endsWith('offset') ? 'OFFSET' : before.endsWith('limit') ? 'LIMIT' : undefined;
  if (offset !== undefined && ctx.sql![offset] === '-' && clause) {
    return { name: 'SYNTAX_ERROR', text: `mismatched input '-'. Expecting: '?', ${clause === 'LIMIT' ? "'ALL', " : ''}<integer>` };
  }
  return { name: 'NUMERIC_VALUE_OUT_OF_RANGE', text: `${clause ?? 'LIMIT/OFFSET'} row count must be greater or equal to 0` };
}

/** The unsigned integer written at the location (an ORDER BY ordinal), if any. */
function integerAt(ctx: ErrorContext, location: ErrorLocation | undefined): string | undefined {
  const offset = offsetIn(ctx.sql, location);
  if (offset === undefined) return undefined;
  let end = offset;
  while (end < ctx.sql!.length && ctx.sql!.charCodeAt(end) >= 0x30 && ctx.sql!.charCodeAt(end) <= 0x39) end++;
  return end > offset ? ctx.sql!.slice(offset, end) : undefined;
}

/** Trino's spelling of DuckDB's special doubles in a value. */
const javaNumber = (value: string) => ({ inf: 'Infinity', '-inf': '-Infinity', nan: 'NaN' })[value] ?? value;

/** Trino names the target of a failed VARCHAR cast in upper case, INT for integer. */
const castTarget = (duckdb: string) => (duckdb === 'INT32' ? 'INT' : trinoTypeName(duckdb).toUpperCase());

/**
 * A date/time value that does not parse: written as a literal (DATE '...'), Trino's INVALID_LITERAL;
 * otherwise a cast, INVALID_CAST_ARGUMENT.
 */
function badTemporal(kind: 'date' | 'timestamp' | 'time', value: string, ctx: ErrorContext): Refined {
  const literal = `${kind} '${value}'`;
  if (ctx.sql?.toLowerCase().includes(literal.toLowerCase())) return { name: 'INVALID_LITERAL', text: `'${value}' is not a valid ${kind.toUpperCase()} literal` };
  return { name: 'INVALID_CAST_ARGUMENT', text: `Value cannot be cast to ${kind}: ${value}` };
}

const RULES: Rule[] = [
  { pattern: /^Parser Error: (.*)/, name: 'SYNTAX_ERROR', message: (m) => m[1]! },
  { pattern: /^INTERRUPT Error/, name: 'USER_CANCELED', message: () => 'Query was canceled' },
  // Trino's ExceededMemoryLimitException: "Query exceeded per-node memory limit of 16MB [Allocated: ...]".
  { pattern: /^Out of Memory Error: (.*)/, name: 'EXCEEDED_LOCAL_MEMORY_LIMIT', message: (m, ctx) => (ctx.memoryLimit === undefined ? `Query exceeded per-node memory limit: ${m[1]}` : `Query exceeded per-node memory limit of ${ctx.memoryLimit} [${m[1]}]`) },
  { pattern: /Division by zero/, name: 'DIVISION_BY_ZERO', message: () => 'Division by zero' },
  {
    pattern: /^Catalog Error: Table with name (\S+) does not exist because schema "?([^"\s]+)"? does not exist/,
    name: 'SCHEMA_NOT_FOUND',
    message: (m, ctx, location) => {
      const written = writtenName(unquote(m[1]!).split('.').pop()!, ctx, location);
      return `Schema '${written?.length === 3 ? written[0] : (ctx.catalog ?? 'memory')}.${m[2]}' does not exist`;
    },
  },
  {
    pattern: /^Catalog Error: (?:Table|View) with name (\S+) does not exist/,
    name: 'TABLE_NOT_FOUND',
    message: (m, ctx, location) => `Table '${qualify(m[1]!, ctx, writtenName(m[1]!, ctx, location))}' does not exist`,
  },
  { pattern: /^(?:Binder|Catalog) Error: Catalog "?([^"\s!]+)"? does not exist/, name: 'CATALOG_NOT_FOUND', message: (m) => `Catalog '${m[1]}' does not exist` },
  { pattern: /^Catalog Error: Catalog with name "?([^"\s!]+)"? does not exist/, name: 'CATALOG_NOT_FOUND', message: (m) => `Catalog '${m[1]}' does not exist` },
  { pattern: /^(?:Binder|Catalog) Error: Schema with name "?([^"\s!]+)"? does not exist/, name: 'SCHEMA_NOT_FOUND', message: (m, ctx) => `Schema '${m[1]!.includes('.') ? m[1] : `${ctx.catalog ?? 'memory'}.${m[1]}`}' does not exist` },
  { pattern: /^Catalog Error: Type with name "?([^"\s!]+)"? does not exist/, name: 'TYPE_NOT_FOUND', message: (m) => `Unknown type: ${m[1]!.toLowerCase()}` },
  // Trino's analyzer names columns as canonicalized (lower case): SELECT T -> Column 't' cannot be resolved.
  { pattern: /^Binder Error: Referenced column "?([^"]+)"? (?:was )?not found/, name: 'COLUMN_NOT_FOUND', message: (m) => `Column '${m[1]!.toLowerCase()}' cannot be resolved` },
  {
    pattern: /^Binder Error: Referenced table "([^"]+)" not found/,
    name: 'COLUMN_NOT_FOUND',
    message: (m, ctx, location) => {
      const offset = offsetIn(ctx.sql, location);
      const written = offset === undefined ? undefined : identifierChainAt(ctx.sql!, offset, 4);
      return `Column '${written && written.length > 1 ? written.join('.') : `${m[1]!.toLowerCase()}.*`}' cannot be resolved`;
    },
  },
  { pattern: /^Binder Error: [A-Za-z ]{1,40} "([^"]+)" does not have a column named "([^"]+)"/, name: 'COLUMN_NOT_FOUND', message: (m) => `Column '${m[1]!.toLowerCase()}.${m[2]!.toLowerCase()}' cannot be resolved` },
  { pattern: /^Binder Error: Table "[^"]+" does not have a column with name "([^"]+)"/, name: 'COLUMN_NOT_FOUND', message: (m) => `Column '${m[1]!.toLowerCase()}' cannot be resolved` },
  { pattern: /^Binder Error: Ambiguous reference to column name "([^"]+)"/, name: 'AMBIGUOUS_NAME', message: (m) => `Column '${m[1]!.toLowerCase()}' is ambiguous` },
  { pattern: /^Binder Error: Ambiguous reference/, name: 'AMBIGUOUS_NAME' },
  { pattern: /^Binder Error: LIMIT\/OFFSET cannot be negative/, name: 'NUMERIC_VALUE_OUT_OF_RANGE', message: (_m, ctx, location) => negativeRowCount(ctx, location) },
  {
    pattern: /^Binder Error: ORDER term out of range/,
    name: 'INVALID_COLUMN_REFERENCE',
    message: (m, ctx, location) => {
      const ordinal = integerAt(ctx, location);
      return ordinal === undefined ? withoutCategory(m.input) : `ORDER BY position ${ordinal} is not in select list`;
    },
  },
  { pattern: /^Binder Error: GROUP BY term out of range/, name: 'INVALID_COLUMN_REFERENCE' },
  {
    pattern: /^Binder Error: column "([^"]+)" must appear in the GROUP BY clause/,
    name: 'EXPRESSION_NOT_AGGREGATE',
    message: (m) => `'${m[1]!.toLowerCase()}' must be an aggregate expression or appear in GROUP BY clause`,
  },
  { pattern: /^Binder Error: aggregate function calls cannot be nested/, name: 'NESTED_AGGREGATION' },
  { pattern: /^Binder Error: WHERE clause cannot contain (?:aggregates|window functions)/, name: 'EXPRESSION_NOT_SCALAR', message: () => 'WHERE clause cannot contain aggregations, window functions or grouping operations' },
  { pattern: /^Binder Error: table \S+ has \d+ columns but \d+ values were supplied/, name: 'TYPE_MISMATCH' },
  { pattern: /^Binder Error: No function matches the given name and argument types '([^'(]+)\(([^']*)\)'/, name: 'FUNCTION_NOT_FOUND', message: noMatchingSignature },
  { pattern: /^Binder Error: Could not choose a best candidate function for the function call "([^"(]+)\(([^"]*)\)"/, name: 'FUNCTION_NOT_FOUND', message: noMatchingSignature },
  { pattern: /^Catalog Error: (?:Scalar |Aggregate |Table )?Function with name "?([^"\s!]+)"? does not exist/, name: 'FUNCTION_NOT_FOUND', message: (m) => `Function '${m[1]}' not registered` },
  { pattern: /^Catalog Error: (?:Table|View) with name "?([^"\s]+)"? already exists/, name: 'TABLE_ALREADY_EXISTS', message: (m, ctx) => `Table '${qualify(m[1]!, ctx)}' already exists` },
  { pattern: /^Catalog Error: Schema with name "?([^"\s]+)"? already exists/, name: 'SCHEMA_ALREADY_EXISTS', message: (m, ctx) => `Schema '${ctx.catalog ?? 'memory'}.${m[1]}' already exists` },
  { pattern: /already exists/, name: 'ALREADY_EXISTS' },
  // The value guards of presto-functions.ts fail a cast of Presto's message (a cast, not error(), so TRY() still answers NULL).
  { pattern: /^Conversion Error: Could not convert string 'INVALID_FUNCTION_ARGUMENT: (.*)' to INT64$/, name: 'INVALID_FUNCTION_ARGUMENT', message: (m) => m[1]! },
  { pattern: /^Conversion Error: Could not convert string '(.*)' to ([A-Z0-9]+)$/, name: 'INVALID_CAST_ARGUMENT', message: (m) => `Cannot cast '${m[1]}' to ${castTarget(m[2]!)}` },
  {
    pattern: /^Conversion Error: Type [A-Z0-9]+ with value (\S+) can't be cast because the value is out of range for the destination type ([A-Z0-9]+)/,
    name: 'NUMERIC_VALUE_OUT_OF_RANGE',
    message: (m) => `Out of range for ${trinoTypeName(m[2]!)}: ${javaNumber(m[1]!)}`,
  },
  { pattern: /^Conversion Error: Could not cast value (\S+) to ([A-Z]+\(\d+,\d+\))$/, name: 'NUMERIC_VALUE_OUT_OF_RANGE', message: (m) => `Cannot cast value ${m[1]} to ${trinoTypeName(m[2]!)}` },
  { pattern: /^Conversion Error: Unimplemented type for cast \(([^>]+) -> ([^)]+)\)/, name: 'TYPE_MISMATCH', message: (m) => `Cannot cast ${trinoTypeName(m[1]!)} to ${trinoTypeName(m[2]!)}` },
  { pattern: /^Conversion Error: date field value out of range: "([^"]*)"/, name: 'INVALID_CAST_ARGUMENT', message: (m, ctx) => badTemporal('date', m[1]!, ctx) },
  { pattern: /^Conversion Error: invalid date field format: "([^"]*)"/, name: 'INVALID_CAST_ARGUMENT', message: (m, ctx) => badTemporal('date', m[1]!, ctx) },
  { pattern: /^Conversion Error: invalid timestamp field format: "([^"]*)"/, name: 'INVALID_CAST_ARGUMENT', message: (m, ctx) => badTemporal('timestamp', m[1]!, ctx) },
  { pattern: /^Conversion Error/, name: 'INVALID_CAST_ARGUMENT' },
  { pattern: /^Out of Range Error: Overflow in (addition|subtraction|multiplication) of ([A-Z0-9]+) \((.*)\)$/, name: 'NUMERIC_VALUE_OUT_OF_RANGE', message: (m) => `${trinoTypeName(m[2]!)} ${m[1]} overflow: ${m[3]}` },
  { pattern: /^Out of Range Error/, name: 'NUMERIC_VALUE_OUT_OF_RANGE' },
  // A varchar(n) or char(n) column's CHECK (duckdb-printer.ts boundedColumnCheck): Trino's fail() of its INSERT.
  {
    pattern: /^Constraint Error: CHECK constraint failed.*\(Error: (Cannot truncate non-space characters when casting from varchar\(\d+\) to \w+\(\d+\) on INSERT)\)$/s,
    name: 'GENERIC_USER_ERROR',
    message: (m) => m[1]!,
  },
  // The same check a hive INSERT makes in its query (hive-writes.ts bounded), through error().
  { pattern: /^Invalid Input Error: (Cannot truncate non-space characters when casting from varchar\(\d+\) to \w+\(\d+\) on INSERT)$/, name: 'GENERIC_USER_ERROR', message: (m) => m[1]! },
  { pattern: /^Constraint Error/, name: 'CONSTRAINT_VIOLATION' },
  { pattern: /^Permission Error/, name: 'PERMISSION_DENIED', message: (m) => `Access Denied: ${withoutCategory(m.input)}` },
  { pattern: /^TransactionContext Error: Current transaction is aborted/, name: 'TRANSACTION_ALREADY_ABORTED' },
  { pattern: /^TransactionContext Error: .{0,200}conflict/, name: 'TRANSACTION_CONFLICT' },
  {
    // The system catalog is attached read-only (catalogs/system-catalog.ts); name it as the user does.
    pattern: /^Invalid Input Error: Cannot execute statement of type "([^"]+)" on database "([^"]+)" which is attached in read-only mode/,
    name: 'NOT_SUPPORTED',
    message: (m) => `Catalog '${CatalogNames.prestoName(m[2]!) ?? m[2]}' is read-only: ${m[1]} is not supported`,
  },
  { pattern: /^Invalid Input Error: (Reading system\.\w+\.\w+ failed: .*)/, name: 'GENERIC_INTERNAL_ERROR', message: (m) => m[1]! },
  // The engine's JavaScript functions (ip-address-functions.ts, sketch-functions.ts) prefix their messages with Trino's error name, as does
  // a hive Parquet column Trino would not read as declared (hive-read-sql.ts).
  { pattern: /^Invalid Input Error: (INVALID_CAST_ARGUMENT|TYPE_MISMATCH|INVALID_FUNCTION_ARGUMENT|FUNCTION_NOT_FOUND|NOT_SUPPORTED): (.*)/, name: 'INVALID_CAST_ARGUMENT', message: (m) => ({ name: m[1] as ErrorName, text: m[2]! }) },
  { pattern: /^Invalid Input Error/, name: 'INVALID_FUNCTION_ARGUMENT' },
  { pattern: /^Not implemented Error/, name: 'NOT_SUPPORTED' },
  // Whatever else the binder or the catalog says is about the statement the user wrote.
  { pattern: /^Catalog Error: .{0,300} does not exist/, name: 'NOT_FOUND' },
  { pattern: /^(?:Binder|Catalog) Error/, name: 'GENERIC_USER_ERROR' },
];

/** The VivaceError for anything DuckDB (or our own code) threw. */
export function toVivaceError(err: unknown, ctx: ErrorContext = {}): VivaceError {
  if (err instanceof VivaceError) return err;
  const full = err instanceof Error ? err.message : String(err);
  const firstLine = full.split('\n')[0]!.replace(/!$/, '');
  for (const rule of RULES) {
    const m = rule.pattern.exec(firstLine);
    if (!m) continue;
    const location = ctx.sql === undefined ? undefined : ctx.rewritten ? mappedCaret(full, ctx.rewritten, ctx.sql) : locationFromCaret(full, ctx.sql);
    const said = rule.message ? rule.message(m, ctx, location) : withoutCategory(firstLine);
    const { name, text } = typeof said === 'string' ? { name: rule.name, text: said } : said;
    const message = location ? `line ${location.lineNumber}:${location.columnNumber}: ${text}` : text;
    return new VivaceError(name, message, { location, cause: err });
  }
  return new VivaceError('GENERIC_INTERNAL_ERROR', firstLine || 'Internal error', { cause: err });
}

/** The caret's location in the rewritten text, as a location in `sql` (the text as written). */
function mappedCaret(message: string, rewritten: TranslatedText, sql: string): ErrorLocation | undefined {
  const location = locationFromCaret(message, rewritten.text);
  if (!location) return undefined;
  return locationOfOffset(sql, rewritten.toOriginal(offsetOfLocation(rewritten.text, location)));
}

/** 0-based offset of a 1-based line/column in `sql`. */
export function offsetOfLocation(sql: string, location: ErrorLocation): number {
  let offset = 0;
  const lines = sql.split('\n');
  for (let i = 0; i < location.lineNumber - 1 && i < lines.length; i++) offset += lines[i]!.length + 1;
  return offset + location.columnNumber - 1;
}

/** A SYNTAX_ERROR at a 0-based offset (json_serialize_sql reports parse errors that way). */
export function syntaxErrorAt(sql: string, offset: number | undefined, text: string): VivaceError {
  if (offset === undefined) return new VivaceError('SYNTAX_ERROR', text);
  const location = locationOfOffset(sql, offset);
  return new VivaceError('SYNTAX_ERROR', `line ${location.lineNumber}:${location.columnNumber}: ${text}`, { location });
}
