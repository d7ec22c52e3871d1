// CALL of the procedures Vivace serves, read off the tree as Trino's CallTask binds them: the hive
// connector's system.sync_partition_metadata(schema_name, table_name, mode, case_sensitive), positional or
// named arguments (not both), constants only. Any other procedure is Trino's PROCEDURE_NOT_FOUND.
import type { Call, Expression, Identifier, QualifiedName } from './ast.js';
import { fold, partsOf } from './names.js';
import { VivaceError } from '../protocol/vivace-error.js';

export type SyncMode = 'ADD' | 'DROP' | 'FULL';

export interface SyncPartitionCall {
  /** The catalog the procedure belongs to (its name's first part, else the session's). */
  catalog: string;
  schema: string;
  table: string;
  mode: SyncMode;
  caseSensitive: boolean;
}

const ARGUMENTS = ['SCHEMA_NAME', 'TABLE_NAME', 'MODE', 'CASE_SENSITIVE'] as const;
const REQUIRED = 3;

/** Whether a CALL names sync_partition_metadata (`system.` in the session's catalog, or `catalog.system.`). */
export function isSyncPartitionMetadata(call: Call): boolean {
  const parts = partsOf(call.name);
  return (parts.length === 2 || parts.length === 3) && parts[parts.length - 2] === 'system' && parts[parts.length - 1] === 'sync_partition_metadata';
}

function invalid(message: string): VivaceError {
  return new VivaceError('INVALID_PROCEDURE_ARGUMENT', message);
}

/** A constant argument's value: a string, a boolean or NULL (Trino evaluates constant expressions; literals here). */
function constant(e: Expression, name: string): string | boolean | null {
  if (e.type === 'StringLiteral') return e.value;
  if (e.type === 'BooleanLiteral') return e.value;
  if (e.type === 'NullLiteral') return null;
  throw invalid(`Procedure argument ${name} must be a constant string or boolean literal here`);
}

/** The procedure's arguments bound by position or name, with Trino's CallTask errors. */
function bind(call: Call): Map<(typeof ARGUMENTS)[number], Expression> {
  const named = call.arguments.some((a) => a.name !== undefined);
  if (named && call.arguments.some((a) => a.name === undefined)) throw invalid('Named and positional arguments cannot be mixed');
  if (call.arguments.length > ARGUMENTS.length) throw invalid('Too many arguments for procedure');
  const bound = new Map<(typeof ARGUMENTS)[number], Expression>();
  call.arguments.forEach((argument, i) => {
    const name = named ? fold(argument.name!.value).toUpperCase() : ARGUMENTS[i]!;
    const known = ARGUMENTS.find((a) => a === name);
    if (!known) throw invalid(`Unknown argument name: ${argument.name!.value}`);
    if (bound.has(known)) throw invalid(`Duplicate procedure argument: ${known}`);
    bound.set(known, argument.value);
  });
  for (const required of ARGUMENTS.slice(0, REQUIRED)) if (!bound.has(required)) throw invalid(`Required procedure argument '${required}' is missing`);
  return bound;
}

/** The sync_partition_metadata call's target and mode; the catalog from its name or the session's. */
export function syncPartitionCall(call: Call, sessionCatalog: string | undefined): SyncPartitionCall {
  const parts = partsOf(call.name);
  const catalog = parts.length === 3 ? parts[0]! : sessionCatalog === undefined ? undefined : fold(sessionCatalog);
  if (catalog === undefined) throw new VivaceError('MISSING_CATALOG_NAME', 'Catalog must be specified when session catalog is not set');
  const bound = bind(call);
  const text = (name: (typeof ARGUMENTS)[number]): string => {
    const value = constant(bound.get(name)!, name);
    if (value === null) throw invalid(`${name.toLowerCase()} cannot be null`);
    if (typeof value !== 'string') throw invalid(`Procedure argument ${name} must be of type varchar`);
    return value;
  };
  const schema = text('SCHEMA_NAME');
  const table = text('TABLE_NAME');
  const modeText = text('MODE');
  const mode = modeText.toUpperCase();
  if (mode !== 'ADD' && mode !== 'DROP' && mode !== 'FULL') throw invalid(`Invalid partition metadata sync mode: ${modeText}`);
  let caseSensitive = true;
  if (bound.has('CASE_SENSITIVE')) {
    const value = constant(bound.get('CASE_SENSITIVE')!, 'CASE_SENSITIVE');
    if (value !== null && typeof value !== 'boolean') throw invalid('Procedure argument CASE_SENSITIVE must be of type boolean');
    caseSensitive = value ?? true;
  }
  // SchemaTableName folds both to lower case.
  return { catalog, schema: schema.toLowerCase(), table: table.toLowerCase(), mode, caseSensitive };
}

/**
 * The table a sync_partition_metadata call writes as a qualified name, `[catalog.]schema.table` (the catalog
 * when its name has one), for the checks every write goes through; undefined when its arguments do not bind.
 */
export function syncPartitionTarget(call: Call): QualifiedName | undefined {
  if (!isSyncPartitionMetadata(call)) return undefined;
  let bound: SyncPartitionCall;
  try {
    bound = syncPartitionCall(call, '');
  } catch {
    return undefined;
  }
  const part = (value: string): Identifier => ({ type: 'Identifier', value, quoted: true, location: call.location });
  const named = partsOf(call.name).length === 3;
  return { type: 'QualifiedName', parts: [...(named ? [part(bound.catalog)] : []), part(bound.schema), part(bound.table)], location: call.location };
}

/** The mode a sync_partition_metadata call asks for (FULL, the widest, when its arguments do not bind: the call fails later). */
export function syncPartitionMode(call: Call): SyncMode {
  try {
    return syncPartitionCall(call, '').mode;
  } catch {
    return 'FULL';
  }
}
