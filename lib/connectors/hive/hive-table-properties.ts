// The WITH (...) properties of a hive catalog's CREATE TABLE / CREATE TABLE AS and CREATE SCHEMA, read off
// the parse tree (EXECUTE's parameters are bound as literals by then) and checked as Trino's
// HiveTableProperties and HiveMetadata check them; and back, the properties SHOW CREATE TABLE prints.
import type { Expression, Property } from '../../sql/ast.js';
import { fold } from '../../sql/names.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import type { HiveStorageFormat } from '../catalog.types.js';
import type { TableMetadata } from './hive-metastore.js';

export const STORAGE_FORMATS: readonly HiveStorageFormat[] = ['ORC', 'PARQUET', 'AVRO', 'RCBINARY', 'RCTEXT', 'SEQUENCEFILE', 'JSON', 'OPENX_JSON', 'TEXTFILE', 'CSV', 'REGEX'];
/** The formats DuckDB here can read and write. */
export const READABLE_FORMATS: ReadonlySet<HiveStorageFormat> = new Set(['PARQUET', 'JSON', 'TEXTFILE', 'CSV']);

export interface HiveTableProperties {
  format: HiveStorageFormat;
  partitionedBy: string[];
  externalLocation?: string;
  skipHeaderLineCount?: number;
  csvSeparator?: string;
  csvQuote?: string;
  csvEscape?: string;
  textfileFieldSeparator?: string;
  textfileFieldSeparatorEscape?: string;
  nullFormat?: string;
}

/** Trino's Hive table properties this connector does not implement (known names: NOT_SUPPORTED, not unknown). */
const UNIMPLEMENTED = new Set([
  'bucketed_by', 'bucketing_version', 'bucket_count', 'sorted_by', 'orc_bloom_filter_columns', 'orc_bloom_filter_fpp',
  'parquet_bloom_filter_columns', 'avro_schema_url', 'avro_schema_literal', 'skip_footer_line_count', 'regex', 'regex_case_insensitive',
  'transactional', 'auto_purge', 'extra_properties', 'partition_projection_enabled', 'partition_projection_ignore',
  'partition_projection_location_template',
]);

/** Table parameters and serde parameters as Trino's HiveMetadata names them. */
export const SKIP_HEADER_KEY = 'skip.header.line.count';
const SERDE_KEYS = {
  csvSeparator: 'separatorChar', csvQuote: 'quoteChar', csvEscape: 'escapeChar',
  textfileFieldSeparator: 'field.delim', textfileFieldSeparatorEscape: 'escape.delim', nullFormat: 'serialization.null.format',
} as const;

function stringValue(e: Expression | undefined, catalog: string, name: string): string {
  if (e?.type === 'StringLiteral') return e.value;
  throw invalid(catalog, name, 'a string literal is expected');
}

const invalid = (catalog: string, name: string, why: string) =>
  new VivaceError('INVALID_TABLE_PROPERTY', `Invalid value for catalog '${catalog}' table property '${name}': ${why}`);

function singleCharacter(value: string, name: string): string {
  if ([...value].length !== 1) throw new VivaceError('INVALID_TABLE_PROPERTY', `${name} must be a single character string, but was: '${value}'`);
  return value;
}

/** The properties that take one character, and their field. */
const SINGLE_CHARACTER: Readonly<Record<string, 'csvSeparator' | 'csvQuote' | 'csvEscape' | 'textfileFieldSeparator' | 'textfileFieldSeparatorEscape'>> = {
  csv_separator: 'csvSeparator', csv_quote: 'csvQuote', csv_escape: 'csvEscape',
  textfile_field_separator: 'textfileFieldSeparator', textfile_field_separator_escape: 'textfileFieldSeparatorEscape',
};

/** Reads CREATE TABLE's properties; `defaultFormat`: hive.storage-format. */
export function tableProperties(properties: readonly Property[], catalog: string, defaultFormat: HiveStorageFormat): HiveTableProperties {
  const out: HiveTableProperties = { format: defaultFormat, partitionedBy: [] };
  const seen = new Set<string>();
  for (const p of properties) {
    const name = fold(p.name.value);
    if (seen.has(name)) throw new VivaceError('INVALID_TABLE_PROPERTY', `Duplicate property: ${name}`);
    seen.add(name);
    if (p.value === undefined) continue; // DEFAULT
    switch (name) {
      case 'format': {
        const value = stringValue(p.value, catalog, name).toUpperCase();
        if (!(STORAGE_FORMATS as readonly string[]).includes(value)) throw invalid(catalog, name, `'${stringValue(p.value, catalog, name)}' is not one of ${STORAGE_FORMATS.join(', ')}`);
        out.format = value as HiveStorageFormat;
        break;
      }
      case 'partitioned_by': {
        if (p.value.type !== 'ArrayConstructor') throw invalid(catalog, name, 'an ARRAY of column names is expected');
        out.partitionedBy = p.value.values.map((v) => stringValue(v, catalog, name).toLowerCase());
        break;
      }
      case 'external_location':
        out.externalLocation = stringValue(p.value, catalog, name);
        break;
      case 'skip_header_line_count': {
        const v = p.value;
        const n = v.type === 'LongLiteral' ? Number(v.value) : NaN;
        if (!Number.isSafeInteger(n) || n < 0) throw new VivaceError('INVALID_TABLE_PROPERTY', `Invalid value for skip_header_line_count property: ${v.type === 'LongLiteral' ? v.value : '?'}`);
        out.skipHeaderLineCount = n;
        break;
      }
      case 'null_format':
        out.nullFormat = stringValue(p.value, catalog, name);
        break;
      default:
        if (Object.hasOwn(SINGLE_CHARACTER, name)) {
          out[SINGLE_CHARACTER[name]!] = singleCharacter(stringValue(p.value, catalog, name), name);
          break;
        }
        if (UNIMPLEMENTED.has(name)) throw new VivaceError('NOT_SUPPORTED', `Table property '${name}' is not supported by this catalog`);
        throw new VivaceError('INVALID_TABLE_PROPERTY', `Catalog '${catalog}' table property '${name}' does not exist`);
    }
  }
  checkFormatProperties(out);
  return out;
}

/** Trino's HiveMetadata checks: each format-specific property only with its format. */
function checkFormatProperties(p: HiveTableProperties): void {
  const only = (set: unknown, property: string, formats: readonly HiveStorageFormat[]) => {
    if (set !== undefined && !formats.includes(p.format)) throw new VivaceError('INVALID_TABLE_PROPERTY', `Cannot specify ${property} table property for storage format: ${p.format}`);
  };
  only(p.skipHeaderLineCount, 'skip_header_line_count', ['CSV', 'TEXTFILE']);
  only(p.csvSeparator, 'csv_separator', ['CSV']);
  only(p.csvQuote, 'csv_quote', ['CSV']);
  only(p.csvEscape, 'csv_escape', ['CSV']);
  only(p.textfileFieldSeparator, 'textfile_field_separator', ['TEXTFILE']);
  only(p.textfileFieldSeparatorEscape, 'textfile_field_separator_escape', ['TEXTFILE']);
  only(p.nullFormat, 'null_format', ['TEXTFILE']);
}

/** The format names DuckDB cannot read here answer NOT_SUPPORTED, naming the format. */
export function checkReadableFormat(format: string): void {
  if (!READABLE_FORMATS.has(format as HiveStorageFormat)) throw new VivaceError('NOT_SUPPORTED', `Storage format ${format} is not supported by this catalog (no reader here); use PARQUET, CSV, JSON or TEXTFILE`);
}

/** The table and serde parameters the properties become in the metastore. */
export function storedProperties(p: HiveTableProperties): { parameters: Record<string, string>; serdeParameters: Record<string, string> } {
  const parameters: Record<string, string> = {};
  const serdeParameters: Record<string, string> = {};
  if (p.skipHeaderLineCount !== undefined) parameters[SKIP_HEADER_KEY] = String(p.skipHeaderLineCount);
  for (const [key, serde] of Object.entries(SERDE_KEYS) as [keyof typeof SERDE_KEYS, string][]) {
    const value = p[key];
    if (value !== undefined) serdeParameters[serde] = value;
  }
  return { parameters, serdeParameters };
}

/** What the metastore says back as properties (for reading files and for SHOW CREATE TABLE). */
export function propertiesOf(table: TableMetadata): HiveTableProperties {
  const serde = table.serdeParameters ?? {};
  const out: HiveTableProperties = {
    format: (table.storageFormat ?? 'PARQUET') as HiveStorageFormat,
    partitionedBy: table.partitionColumns.map((c) => c.name),
    ...(table.externalLocation === undefined ? {} : { externalLocation: table.externalLocation }),
  };
  const skip = table.parameters?.[SKIP_HEADER_KEY];
  if (skip !== undefined && Number.isSafeInteger(Number(skip))) out.skipHeaderLineCount = Number(skip);
  for (const [key, serdeKey] of Object.entries(SERDE_KEYS) as [keyof typeof SERDE_KEYS, string][]) {
    const value = serde[serdeKey];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** CREATE SCHEMA's properties: Trino's Hive schema has `location` only. */
export function schemaLocationProperty(properties: readonly Property[], catalog: string): string | undefined {
  let location: string | undefined;
  for (const p of properties) {
    const name = fold(p.name.value);
    if (name !== 'location') throw new VivaceError('INVALID_SCHEMA_PROPERTY', `Catalog '${catalog}' schema property '${name}' does not exist`);
    if (p.value === undefined) continue;
    if (p.value.type !== 'StringLiteral') throw new VivaceError('INVALID_SCHEMA_PROPERTY', `Invalid value for catalog '${catalog}' schema property 'location': a string literal is expected`);
    location = p.value.value;
  }
  return location;
}
