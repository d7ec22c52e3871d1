// Turns DuckDB's plain Error messages ("Catalog Error: ...", "LINE n:" + caret) into VivaceErrors
// with Presto error names, Presto-like messages and 1-based error locations.
import type { ErrorName } from '../protocol/error-codes.js';
import type { ErrorLocation } from '../protocol/types.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { CatalogNames } from './dialect/catalog-names.js';
import type { Rewritten } from './rewrite-map.js';

export interface ErrorContext {
  /** The SQL as the user wrote it; locations are only computed when given. */
  sql?: string;
  /**
   * The text DuckDB saw when it differs from `sql` (text rewrites): its LINE/caret positions are
   * mapped back so the location points into `sql`.
   */
  rewritten?: Rewritten;
  /** Used to qualify unqualified table names in messages. */
  catalog?: string;
  schema?: string;
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

interface Rule {
  pattern: RegExp;
  name: ErrorName;
  /** Presto-style message from the match; DuckDB's first line when absent. */
  message?: (m: RegExpExecArray, ctx: ErrorContext, location: ErrorLocation | undefined) => string;
}

const unquote = (s: string) => s.replace(/^"(.*)"$/, '$1');

/**
 * The table name as written at the error's location (DuckDB's caret points at the table reference):
 * its 1-3 parts, lowercased as Presto does, when its last part is `table` (DuckDB names only the table).
 */
function writtenName(table: string, ctx: ErrorContext, location: ErrorLocation | undefined): string[] | undefined {
  if (ctx.sql === undefined || location === undefined) return undefined;
  const lines = ctx.sql.split('\n');
  if (location.lineNumber > lines.length) return undefined;
  let offset = location.columnNumber - 1;
  for (let i = 0; i < location.lineNumber - 1; i++) offset += lines[i]!.length + 1;
  const ident = /"((?:[^"]|"")*)"|([A-Za-z_][\w$]*)/y;
  const dot = /\s*\.\s*/y;
  const parts: string[] = [];
  for (;;) {
    ident.lastIndex = offset;
    const m = ident.exec(ctx.sql);
    if (!m) return undefined;
    parts.push((m[1]?.replace(/""/g, '"') ?? m[2]!).toLowerCase());
    dot.lastIndex = ident.lastIndex;
    if (parts.length === 3 || !dot.exec(ctx.sql)) break;
    offset = dot.lastIndex;
  }
  return parts[parts.length - 1] === unquote(table).toLowerCase() ? parts : undefined;
}

function qualify(name: string, ctx: ErrorContext, written?: string[]): string {
  const parts = written ?? unquote(name).split('.');
  const catalog = ctx.catalog ?? 'memory';
  const schema = ctx.schema ?? 'default';
  if (parts.length === 1) return `${catalog}.${schema}.${parts[0]}`;
  if (parts.length === 2) return `${catalog}.${parts[0]}.${parts[1]}`;
  return parts.join('.');
}

const RULES: Rule[] = [
  { pattern: /^Parser Error: (.*)/, name: 'SYNTAX_ERROR', message: (m) => m[1]! },
  { pattern: /^INTERRUPT Error/, name: 'USER_CANCELED', message: () => 'Query was canceled' },
  { pattern: /^Out of Memory Error: (.*)/, name: 'EXCEEDED_LOCAL_MEMORY_LIMIT', message: (m) => `Query exceeded per-node memory limit: ${m[1]}` },
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
  { pattern: /^Binder Error: Referenced column "?([^"]+)"? not found/, name: 'COLUMN_NOT_FOUND', message: (m) => `Column '${m[1]}' cannot be resolved` },
  { pattern: /^Binder Error: Table "([^"]+)" does not have a column named "([^"]+)"/, name: 'COLUMN_NOT_FOUND', message: (m) => `Column '${m[1]}.${m[2]}' cannot be resolved` },
  { pattern: /^Catalog Error: (?:Scalar |Aggregate |Table )?Function with name "?([^"\s!]+)"? does not exist/, name: 'FUNCTION_NOT_FOUND', message: (m) => `Function '${m[1]}' not registered` },
  { pattern: /^Catalog Error: (?:Table|View) with name "?([^"\s]+?)"? already exists/, name: 'TABLE_ALREADY_EXISTS', message: (m, ctx) => `Table '${qualify(m[1]!, ctx)}' already exists` },
  { pattern: /^Catalog Error: Schema with name "?([^"\s]+?)"? already exists/, name: 'SCHEMA_ALREADY_EXISTS', message: (m, ctx) => `Schema '${ctx.catalog ?? 'memory'}.${m[1]}' already exists` },
  { pattern: /already exists/, name: 'ALREADY_EXISTS' },
  { pattern: /^Conversion Error/, name: 'INVALID_CAST_ARGUMENT' },
  { pattern: /^Out of Range Error/, name: 'NUMERIC_VALUE_OUT_OF_RANGE' },
  { pattern: /^Binder Error: (?:No function matches|Could not choose a best candidate)/, name: 'TYPE_MISMATCH' },
  {
    // The system catalog is attached read-only (catalogs/system-catalog.ts); name it as the user does.
    pattern: /^Invalid Input Error: Cannot execute statement of type "([^"]+)" on database "([^"]+)" which is attached in read-only mode/,
    name: 'NOT_SUPPORTED',
    message: (m) => `Catalog '${CatalogNames.prestoName(m[2]!) ?? m[2]}' is read-only: ${m[1]} is not supported`,
  },
  { pattern: /^Invalid Input Error: (Reading system\.\w+\.\w+ failed: .*)/, name: 'GENERIC_INTERNAL_ERROR', message: (m) => m[1]! },
  { pattern: /^Invalid Input Error/, name: 'INVALID_FUNCTION_ARGUMENT' },
  { pattern: /^Not implemented Error/, name: 'NOT_SUPPORTED' },
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
    const text = rule.message ? rule.message(m, ctx, location) : firstLine;
    const message = location ? `line ${location.lineNumber}:${location.columnNumber}: ${text}` : text;
    return new VivaceError(rule.name, message, { location, cause: err });
  }
  return new VivaceError('GENERIC_INTERNAL_ERROR', firstLine || 'Internal error', { cause: err });
}

/** The caret's location in the rewritten text, as a location in `sql` (the text as written). */
function mappedCaret(message: string, rewritten: Rewritten, sql: string): ErrorLocation | undefined {
  const location = locationFromCaret(message, rewritten.text);
  if (!location) return undefined;
  return locationOfOffset(sql, rewritten.map.toOriginal(offsetOfLocation(rewritten.text, location)));
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
