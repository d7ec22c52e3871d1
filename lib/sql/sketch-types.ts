// Trino's sketch types (HyperLogLog, P4HyperLogLog, SetDigest, qdigest(T), tdigest): their values are
// serialized sketches, held here as DuckDB BLOBs and sent in base64 as Trino sends them. A column of one,
// a cast of NULL or of a varbinary to one, and the value read back work; the functions computing them are
// sketch-calls.ts and engine/sketch-functions.ts (qdigest's are not supported).
import type { DataType } from './ast.js';
import type { PrestoType } from '../protocol/types.js';
import { fold } from './names.js';

/** The sketch types by their folded name, with Trino's spelling of each (StandardTypes). */
const SKETCH_NAMES: Readonly<Record<string, string>> = {
  hyperloglog: 'HyperLogLog',
  p4hyperloglog: 'P4HyperLogLog',
  setdigest: 'SetDigest',
  qdigest: 'qdigest',
  tdigest: 'tdigest',
};

/** The value types a qdigest summarizes (Trino: qdigest(bigint), qdigest(double), qdigest(real)). */
const QDIGEST_VALUES: ReadonlySet<string> = new Set(['bigint', 'double', 'real']);

/** Whether `name` (folded) is a sketch type's name. */
export const isSketchName = (name: string): boolean => Object.hasOwn(SKETCH_NAMES, name);

/** Whether a Trino type (as reported) is a sketch type. */
export const isSketchType = (t: PrestoType): boolean => Object.values(SKETCH_NAMES).includes(t.base);

/** The Trino type a sketch type tree names, or undefined for another type or a qdigest of another value type. */
export function sketchType(t: DataType): PrestoType | undefined {
  if (t.type !== 'GenericDataType') return undefined;
  const name = fold(t.name.value);
  if (!isSketchName(name)) return undefined;
  if (name !== 'qdigest') return t.arguments.length === 0 ? { base: SKETCH_NAMES[name]! } : undefined;
  const [value] = t.arguments;
  if (t.arguments.length !== 1 || value?.type !== 'GenericDataType' || value.arguments.length > 0) return undefined;
  const folded = fold(value.name.value);
  return QDIGEST_VALUES.has(folded) ? ({ base: 'qdigest', params: [{ base: folded }] } as unknown as PrestoType) : undefined;
}

/** Trino's sketch functions not computed here (sketch-calls.ts has those that are), by the sketch type they need. */
const SKETCH_FUNCTIONS: Readonly<Record<string, string>> = {
  qdigest_agg: 'qdigest',
  quantile_at_value: 'qdigest',
  scale_qdigest: 'qdigest',
  scale_tdigest: 'tdigest',
  trimmed_mean: 'tdigest',
  destructure_tdigest: 'tdigest',
};

/** The sketch types a Trino function needs, when it is one of the sketch functions; undefined otherwise. */
export const sketchFunctionTypes = (name: string): string | undefined => (Object.hasOwn(SKETCH_FUNCTIONS, name) ? SKETCH_FUNCTIONS[name] : undefined);
