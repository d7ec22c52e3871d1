// Text of one result value, as Trino's CLI prints it (FormatUtils / AlignedTablePrinter.formatValue): the
// server's text for scalars (numbers keep their JSON text), [a, b] for arrays, {k=v} for maps, {name=value}
// for rows, lower-case hex pairs for varbinary (sent as base64). NULL is "NULL" in the aligned table and
// empty in CSV and TSV.
import { JsonNumber, type JsonValue } from './json-text.js';

export interface TypeSignature {
  rawType: string;
  arguments?: TypeArgument[];
}

export type TypeArgument =
  | { kind: 'TYPE'; value: TypeSignature }
  | { kind: 'LONG'; value: number }
  | { kind: 'NAMED_TYPE'; value: { fieldName?: { name: string }; typeSignature: TypeSignature | string } };

export interface ResultColumn {
  name: string;
  type: string;
  typeSignature?: TypeSignature;
}

export interface FormatOptions {
  nullText: string;
  /** Hex pairs per line of a varbinary; 0: one line. */
  bytesPerLine: number;
}

export const ALIGNED_VALUES: FormatOptions = { nullText: 'NULL', bytesPerLine: 16 };
export const DELIMITED_VALUES: FormatOptions = { nullText: '', bytesPerLine: 0 };

export function formatValue(value: JsonValue, type: TypeSignature | undefined, options: FormatOptions): string {
  if (value === null) return options.nullText;
  // Nested values always print NULL (Trino's formatList/formatMap call the aligned formatter).
  const nested: FormatOptions = { nullText: 'NULL', bytesPerLine: 0 };
  const raw = type?.rawType;
  if (raw === 'varbinary' && typeof value === 'string') return hexDump(value, options.bytesPerLine);
  if (Array.isArray(value)) {
    if (raw === 'row') return formatRow(value, type!, nested);
    const element = typeArgument(type, 0);
    return `[${value.map((v) => formatValue(v, element, nested)).join(', ')}]`;
  }
  if (value instanceof JsonNumber) return value.text;
  if (typeof value === 'object') {
    // A map (keys are JSON member names), or a row the server sent as an object.
    const valueType = raw === 'map' ? typeArgument(type, 1) : undefined;
    const items = Object.entries(value).map(([k, v]) => `${k}=${formatValue(v, valueType, nested)}`);
    return `{${items.join(', ')}}`;
  }
  return String(value);
}

function formatRow(fields: JsonValue[], type: TypeSignature, options: FormatOptions): string {
  const args = type.arguments ?? [];
  const items = fields.map((v, i) => {
    const arg = args[i];
    if (arg?.kind !== 'NAMED_TYPE') return formatValue(v, undefined, options);
    const sig = typeof arg.value.typeSignature === 'string' ? undefined : arg.value.typeSignature;
    const text = formatValue(v, sig, options);
    return arg.value.fieldName ? `${arg.value.fieldName.name}=${text}` : text;
  });
  return `{${items.join(', ')}}`;
}

function typeArgument(type: TypeSignature | undefined, index: number): TypeSignature | undefined {
  const arg = type?.arguments?.[index];
  return arg?.kind === 'TYPE' ? arg.value : undefined;
}

function hexDump(base64: string, bytesPerLine: number): string {
  const pairs = [...Buffer.from(base64, 'base64')].map((b) => b.toString(16).padStart(2, '0'));
  if (bytesPerLine <= 0) return pairs.join(' ');
  const lines: string[] = [];
  for (let i = 0; i < pairs.length; i += bytesPerLine) lines.push(pairs.slice(i, i + bytesPerLine).join(' '));
  return lines.join('\n');
}
