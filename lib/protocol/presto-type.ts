// Type names and client type signatures of result columns, per dialect. prestodb clients parse the `type`
// string and read rows with the legacy signature fields; Trino clients read `typeSignature` (protocol.md §9).
import type {
  ClientTypeSignature,
  ClientTypeSignatureArgument,
  Column,
  OutputColumn,
  PrestoType,
  ProtocolDialect,
} from './types.js';

/** VarcharType.UNBOUNDED_LENGTH: how both servers spell "no length" in a signature. */
export const UNBOUNDED_VARCHAR_LENGTH = 2_147_483_647;

/** Fields some PrestoType variants carry; read through this view because `{ base: string }` blocks narrowing. */
interface TypeFields {
  length?: number;
  precision?: number;
  scale?: number;
  params?: PrestoType[];
  fieldNames?: (string | undefined)[];
}

/**
 * A type's display name (TypeSignature.toString: typeof, DESCRIBE, SHOW COLUMNS). Numeric parameters
 * are joined with ","; nested types with ", " in Trino and "," in prestodb. prestodb's datetime types
 * carry no precision, so the presto dialect prints them bare. A result column's `type` is columnTypeName.
 */
export function formatType(t: PrestoType, dialect: ProtocolDialect = 'trino', column = false): string {
  const f = t as TypeFields;
  const sep = dialect === 'trino' ? ', ' : ',';
  switch (t.base) {
    case 'varchar':
    case 'char':
    case 'varbinary': {
      const length = lengthOf(t);
      return length === undefined || length === UNBOUNDED_VARCHAR_LENGTH ? t.base : `${t.base}(${length})`;
    }
    case 'decimal':
      return column && dialect === 'trino' ? `decimal(${f.precision}, ${f.scale})` : `decimal(${f.precision},${f.scale})`;
    case 'timestamp':
    case 'time':
      return dialect === 'presto' ? t.base : `${t.base}(${f.precision})`;
    case 'timestamp with time zone':
    case 'time with time zone':
      return dialect === 'presto' ? t.base : `${t.base.split(' ')[0]}(${f.precision}) with time zone`;
    case 'array':
    case 'map':
    case 'qdigest':
      return `${t.base}(${(f.params ?? []).map((p) => formatType(p, dialect, column)).join(sep)})`;
    case 'row': {
      const fields = rowFields(t).map(
        ([name, type]) => (name === undefined ? '' : `${name} `) + formatType(type, dialect, column),
      );
      return `row(${fields.join(sep)})`;
    }
    default:
      return t.base;
  }
}

/**
 * The `typeSignature` of a column: Trino's shape, or prestodb's with string row fields and legacy arrays.
 * prestodb repeats every nested signature in its deprecated `typeArguments` beside `arguments`, which
 * doubles the JSON per level (11 MB for a 16-deep array, 2^n in general): here only the outermost level
 * carries them (`nested` signatures have them empty), so the size stays linear in the type.
 */
export function typeSignature(t: PrestoType, dialect: ProtocolDialect, nested = false): ClientTypeSignature {
  const f = t as TypeFields;
  let args: ClientTypeSignatureArgument[];
  switch (t.base) {
    case 'varchar':
    case 'char':
      args = [long(lengthOf(t) ?? UNBOUNDED_VARCHAR_LENGTH)];
      break;
    case 'decimal':
      args = [long(f.precision!), long(f.scale!)];
      break;
    case 'timestamp':
    case 'time':
    case 'timestamp with time zone':
    case 'time with time zone':
      args = dialect === 'presto' ? [] : [long(f.precision!)];
      break;
    case 'array':
    case 'map':
    case 'qdigest':
      args = (f.params ?? []).map((p) => ({ kind: 'TYPE', value: typeSignature(p, dialect, true) }));
      break;
    case 'row':
      return rowSignature(t, dialect, nested);
    default:
      args = [];
  }
  if (dialect === 'trino') return { rawType: t.base, arguments: args };
  // prestodb's deprecated arrays: the TYPE arguments, or nothing as soon as a literal is among them.
  const typeArguments = !nested && args.every((a) => a.kind === 'TYPE') ? args.map((a) => a.value as ClientTypeSignature) : [];
  return { rawType: t.base, typeArguments, literalArguments: [], arguments: args };
}

/**
 * The `type` string of a result column. Trino prints it with its SQL formatter (ProtocolUtil.formatType:
 * every argument joined with ", ", so `decimal(10, 6)`), where its display name has `decimal(10,6)`;
 * prestodb sends the display name.
 */
export function columnTypeName(t: PrestoType, dialect: ProtocolDialect): string {
  return formatType(t, dialect, true);
}

export function outputColumn(c: OutputColumn, dialect: ProtocolDialect): Column {
  return { name: c.name, type: columnTypeName(c.type, dialect), typeSignature: typeSignature(c.type, dialect) };
}

/**
 * Every row field is a NAMED_TYPE; unnamed fields omit fieldName. Trino nests the field's signature object;
 * prestodb nests its type string (its client parses that) and lists field names as literalArguments.
 */
function rowSignature(t: PrestoType, dialect: ProtocolDialect, nested: boolean): ClientTypeSignature {
  const fields = rowFields(t);
  const args: ClientTypeSignatureArgument[] = fields.map(([name, type]) => ({
    kind: 'NAMED_TYPE',
    value: {
      ...(name === undefined ? {} : { fieldName: dialect === 'trino' ? { name } : { name, delimited: false } }),
      typeSignature: dialect === 'trino' ? typeSignature(type, dialect) : formatType(type, dialect),
    },
  }));
  if (dialect === 'trino') return { rawType: 'row', arguments: args };
  return {
    rawType: 'row',
    typeArguments: nested ? [] : fields.map(([, type]) => typeSignature(type, dialect, true)),
    // Jackson writes an absent field name (Optional.empty) inside a list as null.
    literalArguments: nested ? [] : fields.map(([name]) => name ?? null),
    arguments: args,
  };
}

function rowFields(t: PrestoType): [string | undefined, PrestoType][] {
  const f = t as TypeFields;
  // A type that came from a worker as JSON carries null for an anonymous field (JSON has no undefined).
  return (f.params ?? []).map((type, i) => [f.fieldNames?.[i] ?? undefined, type]);
}

/** varchar: undefined when unbounded. CHAR without a length is CHAR(1) in SQL. varbinary has no length. */
function lengthOf(t: PrestoType): number | undefined {
  const length = (t as TypeFields).length;
  if (t.base === 'char') return length ?? 1;
  return t.base === 'varchar' ? length : undefined;
}

function long(value: number): ClientTypeSignatureArgument {
  return { kind: 'LONG', value };
}
