// How Trino's sketch functions are called in DuckDB: the engine's JavaScript functions (engine/sketch-functions.ts)
// by name, each aggregate as a scalar over DuckDB's list(x) of the group, and the Trino type each call's value has.
import type { Expression, FunctionCall } from './ast.js';
import type { PrestoType } from '../protocol/types.js';
import { fold } from './names.js';

/** The engine's functions (registered under these names, named only by the translation). */
export const SKETCH_FUNCTION_NAMES = {
  approxSetHash: 'vivace_approx_set_hash',
  setDigestHash: 'vivace_set_digest_hash',
  approxSet: 'vivace_approx_set',
  makeSetDigest: 'vivace_make_set_digest',
  tdigestAgg: 'vivace_tdigest_agg',
  merge: 'vivace_merge_sketches',
  mergeSetDigest: 'vivace_merge_set_digest',
  toP4: 'vivace_hll_to_p4',
  cardinality: 'vivace_sketch_cardinality',
  emptyApproxSet: 'vivace_empty_approx_set',
  intersectionCardinality: 'vivace_intersection_cardinality',
  jaccardIndex: 'vivace_jaccard_index',
  hashCounts: 'vivace_hash_counts',
  valueAtQuantile: 'vivace_value_at_quantile',
  valuesAtQuantiles: 'vivace_values_at_quantiles',
} as const;

/**
 * Trino's sketch aggregates, by name: the engine function over list(x), how many arguments each takes, and
 * the engine function hashing each value first, row by row (a HyperLogLog depends on the set of hashes only,
 * so its list holds each hash once). Hashing in DuckDB's chunks keeps each call into JavaScript short: one
 * call over a whole group's values would hold the worker's event loop (and its heartbeats) for seconds.
 */
const AGGREGATES: Readonly<Record<string, { fn: string; arities: readonly number[]; hash?: string; distinct?: boolean }>> = {
  approx_set: { fn: SKETCH_FUNCTION_NAMES.approxSet, arities: [1], hash: SKETCH_FUNCTION_NAMES.approxSetHash, distinct: true },
  make_set_digest: { fn: SKETCH_FUNCTION_NAMES.makeSetDigest, arities: [1], hash: SKETCH_FUNCTION_NAMES.setDigestHash },
  tdigest_agg: { fn: SKETCH_FUNCTION_NAMES.tdigestAgg, arities: [1, 2] },
  merge: { fn: SKETCH_FUNCTION_NAMES.merge, arities: [1] },
  merge_set_digest: { fn: SKETCH_FUNCTION_NAMES.mergeSetDigest, arities: [1] },
};

/** Trino's sketch scalars, by name, and the engine function each one is. */
const SCALARS: Readonly<Record<string, string>> = {
  empty_approx_set: SKETCH_FUNCTION_NAMES.emptyApproxSet,
  intersection_cardinality: SKETCH_FUNCTION_NAMES.intersectionCardinality,
  jaccard_index: SKETCH_FUNCTION_NAMES.jaccardIndex,
  hash_counts: SKETCH_FUNCTION_NAMES.hashCounts,
  value_at_quantile: SKETCH_FUNCTION_NAMES.valueAtQuantile,
  values_at_quantiles: SKETCH_FUNCTION_NAMES.valuesAtQuantiles,
};

/**
 * A sketch aggregate call as DuckDB runs it: the engine function over `list(...)`, the list taking the
 * call's DISTINCT, FILTER and OVER (printed by `list`, given the list's one argument and whether the list
 * may hold each value once). tdigest_agg(x, w) lists {v: x, w: w} pairs. Undefined for another call or
 * arity (printed as written, DuckDB then refuses it).
 */
export function sketchAggregate(name: string, args: readonly string[], list: (argument: string, distinct: boolean) => string): string | undefined {
  const aggregate = Object.hasOwn(AGGREGATES, name) ? AGGREGATES[name] : undefined;
  if (!aggregate || !aggregate.arities.includes(args.length)) return undefined;
  const value = args.length === 2 ? `struct_pack("v" := ${args[0]}, "w" := ${args[1]})` : args[0]!;
  return `${aggregate.fn}(${list(aggregate.hash ? `${aggregate.hash}(${value})` : value, aggregate.distinct === true)})`;
}

/** Whether a name is one of the sketch aggregates (the printer prints their arguments itself). */
export const isSketchAggregate = (name: string): boolean => Object.hasOwn(AGGREGATES, name);

/** A sketch scalar call as DuckDB runs it (its arguments printed by `print`), or undefined for another function. */
export function sketchScalar(name: string, args: readonly Expression[], print: (e: Expression) => string): string | undefined {
  return Object.hasOwn(SCALARS, name) ? `${SCALARS[name]}(${args.map(print).join(', ')})` : undefined;
}

/**
 * The Trino type of a sketch function's value: HyperLogLog, SetDigest or tdigest; merge(x) is of x's type
 * (`argumentType`, when the tree tells it). Undefined for other calls.
 */
export function sketchCallType(call: FunctionCall, argumentType: (e: Expression) => PrestoType | undefined): PrestoType | undefined {
  const name = fold(call.name.parts[call.name.parts.length - 1]!.value);
  switch (name) {
    case 'approx_set':
    case 'empty_approx_set':
      return { base: 'HyperLogLog' };
    case 'make_set_digest':
    case 'merge_set_digest':
      return { base: 'SetDigest' };
    case 'tdigest_agg':
      return { base: 'tdigest' };
    case 'merge': {
      const t = call.arguments.length === 1 ? argumentType(call.arguments[0]!) : undefined;
      // merge of a P4HyperLogLog is Trino's HyperLogLog merge too (the types cast freely).
      return t && (t.base === 'HyperLogLog' || t.base === 'P4HyperLogLog' || t.base === 'tdigest') ? { base: t.base === 'tdigest' ? 'tdigest' : 'HyperLogLog' } : undefined;
    }
    default:
      return undefined;
  }
}
