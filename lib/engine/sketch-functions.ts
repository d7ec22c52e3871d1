// Trino's sketch functions in DuckDB, as JavaScript scalar functions over the sketches of ./sketches. An
// aggregate (approx_set, make_set_digest, tdigest_agg, merge, merge_set_digest) reaches here as a scalar over
// DuckDB's list(x) of its group (the translation's doing, sketch-calls.ts), so the sketch sees every value;
// approx_set and make_set_digest see their values' hashes, computed row by row beforehand.
// Errors carry the Trino error name as a prefix (duckdb-errors.ts maps it); values are never pasted into SQL.
import {
  ANY, BIGINT, BLOB, DOUBLE, DuckDBBlobValue, DuckDBDateValue, DuckDBDecimalValue, DuckDBListValue, DuckDBScalarFunction, DuckDBStructValue,
  DuckDBTypeId, LIST, MAP, SMALLINT, blobValue, listValue, mapValue, type DuckDBType, type DuckDBValue,
} from '@duckdb/node-api';
import { SKETCH_FUNCTION_NAMES } from '../sql/sketch-calls.js';
import { prestoTypeOf } from '../connectors/duckdb-types.js';
import { rowScalarFunction } from './row-scalar-function.js';
import { formatType } from '../protocol/presto-type.js';
import { javaDoubleText } from '../protocol/java-float-text.js';
import { doubleToLongBits, murmur3Hash64, murmur3Hash64OfLongHalves } from './sketches/murmur3-hash.js';
import { HyperLogLog, SketchFormatError, type Hash } from './sketches/hyper-log-log.js';
import { SetDigest } from './sketches/set-digest.js';
import { TDigest } from './sketches/t-digest.js';

/** approx_set's buckets (Trino's ApproximateSetAggregation: a standard error of 1.625%). */
const APPROX_SET_BUCKETS = 4096;

const UTF8 = new TextEncoder();

/** A failure Trino reports under `name` (duckdb-errors.ts reads the prefix). */
const failure = (name: string, message: string): Error => new Error(`${name}: ${message}`);

/** Runs a sketch operation, reporting a malformed sketch or argument as Trino's INVALID_FUNCTION_ARGUMENT. */
function guarded<T>(run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof SketchFormatError) throw failure('INVALID_FUNCTION_ARGUMENT', e.message);
    throw e;
  }
}

/** The Trino name of a DuckDB type, for "Unexpected parameters" messages. */
const trinoName = (type: DuckDBType): string => formatType(prestoTypeOf(type));

function unexpected(fn: string, type: DuckDBType, expected: string): Error {
  return failure('FUNCTION_NOT_FOUND', `Unexpected parameters (${trinoName(type)}) for function ${fn}. Expected: ${expected}`);
}

const LONG_TYPES: ReadonlySet<DuckDBTypeId> = new Set([
  DuckDBTypeId.TINYINT, DuckDBTypeId.SMALLINT, DuckDBTypeId.INTEGER, DuckDBTypeId.BIGINT, DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT, DuckDBTypeId.USMALLINT, DuckDBTypeId.UINTEGER,
]);
const DOUBLE_TYPES: ReadonlySet<DuckDBTypeId> = new Set([DuckDBTypeId.FLOAT, DuckDBTypeId.DOUBLE, DuckDBTypeId.DECIMAL]);

/** A decimal as Trino casts one to double (the unscaled value over the power of ten). */
const decimalDouble = (d: DuckDBDecimalValue): number => Number(d.value) / 10 ** d.scale;

const HALVES = new DataView(new ArrayBuffer(8));

/** A hash's halves as the signed BIGINT DuckDB holds it. */
function signedHash({ hi, lo }: Hash): bigint {
  HALVES.setUint32(0, hi);
  HALVES.setUint32(4, lo);
  return HALVES.getBigInt64(0);
}

/** A signed BIGINT hash as its halves. */
function hashHalves(hash: bigint): Hash {
  HALVES.setBigInt64(0, hash);
  return { hi: HALVES.getUint32(0), lo: HALVES.getUint32(4) };
}

/** The 64-bit hash of one value as Trino's approx_set hashes it: bigint as a long, double by its bits, varchar's UTF-8. */
function approxSetHash(type: DuckDBType): (value: DuckDBValue) => bigint {
  if (LONG_TYPES.has(type.typeId)) return (v) => signedHash(murmur3Hash64OfLongHalves(v as number | bigint));
  if (DOUBLE_TYPES.has(type.typeId)) return (v) => signedHash(murmur3Hash64OfLongHalves(doubleToLongBits(v instanceof DuckDBDecimalValue ? decimalDouble(v) : (v as number))));
  if (type.typeId === DuckDBTypeId.VARCHAR) return (v) => murmur3Hash64(UTF8.encode(v as string));
  throw unexpected('approx_set', type, 'approx_set(bigint), approx_set(double), approx_set(varchar(x))');
}

/**
 * The hash make_set_digest adds: a value Java holds as a long (integers, date, a short decimal's unscaled
 * value) hashed as one, a value held as bytes (varchar, varbinary) by its bytes.
 */
function setDigestHash(type: DuckDBType): (value: DuckDBValue) => bigint {
  if (LONG_TYPES.has(type.typeId)) return (v) => signedHash(murmur3Hash64OfLongHalves(v as number | bigint));
  if (type.typeId === DuckDBTypeId.DATE) return (v) => signedHash(murmur3Hash64OfLongHalves((v as DuckDBDateValue).days));
  if (type.typeId === DuckDBTypeId.DECIMAL && type.width <= 18) return (v) => signedHash(murmur3Hash64OfLongHalves((v as DuckDBDecimalValue).value));
  if (type.typeId === DuckDBTypeId.VARCHAR) return (v) => murmur3Hash64(UTF8.encode(v as string));
  if (type.typeId === DuckDBTypeId.BLOB) return (v) => murmur3Hash64((v as DuckDBBlobValue).bytes);
  throw unexpected('make_set_digest', type, 'make_set_digest(T)');
}

/** A function of one argument of any type, computed per row by what `compute` makes of the type; NULL stays NULL. */
function typedFunction(name: string, returnType: DuckDBType, compute: (type: DuckDBType) => (value: DuckDBValue) => DuckDBValue): DuckDBScalarFunction {
  return DuckDBScalarFunction.create({
    name,
    returnType,
    parameterTypes: [ANY],
    specialHandling: true,
    mainFunction: (_info, input, output) => {
      const apply = compute(input.getColumnVector(0).type);
      const values = input.getColumnValues(0);
      for (let row = 0; row < input.rowCount; row++) {
        const value = values[row];
        output.setItem(row, value === null || value === undefined ? null : apply(value));
      }
      output.flush();
    },
  });
}

/** Each row's hash, in DuckDB's chunks (short calls into JavaScript). */
function hashFunction(name: string, hashOf: (type: DuckDBType) => (value: DuckDBValue) => bigint): DuckDBScalarFunction {
  return typedFunction(name, BIGINT, (type) => {
    const hash = hashOf(type);
    return (value) => BigInt.asIntN(64, hash(value));
  });
}

const approxSetHashes = (): DuckDBScalarFunction => hashFunction(SKETCH_FUNCTION_NAMES.approxSetHash, approxSetHash);
const setDigestHashes = (): DuckDBScalarFunction => hashFunction(SKETCH_FUNCTION_NAMES.setDigestHash, setDigestHash);

/** The element type of a LIST column (the translation passes list(x)). */
function elementType(type: DuckDBType): DuckDBType {
  if (type.typeId !== DuckDBTypeId.LIST) throw new Error('a sketch aggregate takes the list of its group');
  return type.valueType;
}

/** A scalar over list(x) per group: NULL for a group with no values (no rows, or NULLs only), as Trino's aggregates. */
function listFunction(name: string, build: (type: DuckDBType) => (items: readonly DuckDBValue[]) => Uint8Array | undefined): DuckDBScalarFunction {
  return typedFunction(name, BLOB, (type) => {
    const sketch = build(elementType(type));
    return (list) => {
      const bytes = guarded(() => sketch((list as DuckDBListValue).items.filter((v) => v !== null && v !== undefined)));
      return bytes === undefined ? null : blobValue(bytes);
    };
  });
}

/** approx_set over the hashes of its group (vivace_approx_set_hash), each once. */
const approxSet = (): DuckDBScalarFunction => listFunction(SKETCH_FUNCTION_NAMES.approxSet, () => (items) => {
  if (items.length === 0) return undefined;
  const hll = HyperLogLog.create(APPROX_SET_BUCKETS);
  for (const item of items) hll.addHash(hashHalves(item as bigint));
  return hll.serialize();
});

/** make_set_digest over the hashes of its group (vivace_set_digest_hash), each as often as its value. */
const makeSetDigest = (): DuckDBScalarFunction => listFunction(SKETCH_FUNCTION_NAMES.makeSetDigest, () => (items) => {
  if (items.length === 0) return undefined;
  const digest = SetDigest.create();
  for (const item of items) digest.addHash(item as bigint);
  return digest.serialize();
});

/** A value tdigest_agg takes: any number, as Trino coerces it to double. */
function tdigestValue(type: DuckDBType, fn: string): (value: DuckDBValue) => number {
  if (type.typeId === DuckDBTypeId.DECIMAL) return (v) => decimalDouble(v as DuckDBDecimalValue);
  if (LONG_TYPES.has(type.typeId)) return (v) => Number(v as number | bigint);
  if (DOUBLE_TYPES.has(type.typeId)) return (v) => v as number;
  throw unexpected('tdigest_agg', type, fn);
}

/** TDigestFunctions.verifyWeight. */
function verifyWeight(weight: number): number {
  if (!Number.isFinite(weight)) throw failure('INVALID_FUNCTION_ARGUMENT', `weight must be finite, was ${javaDoubleText(weight)}`);
  if (!(weight >= 1)) throw failure('INVALID_FUNCTION_ARGUMENT', `weight must be >= 1, was ${javaDoubleText(weight)}`);
  return weight;
}

/** tdigest_agg(x) over list(x), tdigest_agg(x, w) over list({v: x, w: w}); a row with a NULL is skipped. */
const tdigestAgg = (): DuckDBScalarFunction => listFunction(SKETCH_FUNCTION_NAMES.tdigestAgg, (type) => {
  const signature = 'tdigest_agg(double), tdigest_agg(double, double)';
  let add: (digest: TDigest, item: DuckDBValue) => void;
  if (type.typeId === DuckDBTypeId.STRUCT) {
    const [valueOf, weightOf] = [tdigestValue(type.entryTypes[0]!, signature), tdigestValue(type.entryTypes[1]!, signature)];
    add = (digest, item) => {
      const [v, w] = Object.values((item as DuckDBStructValue).entries);
      if (v !== null && v !== undefined && w !== null && w !== undefined) digest.add(valueOf(v), verifyWeight(weightOf(w)));
    };
  } else {
    const valueOf = tdigestValue(type, signature);
    add = (digest, item) => digest.add(valueOf(item));
  }
  return (items) => {
    const digest = new TDigest();
    for (const item of items) add(digest, item);
    return digest.totalWeight === 0 ? undefined : digest.serialize();
  };
});

const bytesOf = (v: DuckDBValue): Uint8Array => (v as DuckDBBlobValue).bytes;

/** A merge takes sketches (BLOBs to DuckDB); anything else is Trino's FUNCTION_NOT_FOUND. */
function sketchesOnly(fn: string, expected: string, type: DuckDBType): void {
  if (type.typeId !== DuckDBTypeId.BLOB) throw unexpected(fn, type, expected);
}

/** merge(x) of HyperLogLogs (their format tags 1 to 3) or tdigests (tag 0), as Trino's merge aggregations. */
const merge = (): DuckDBScalarFunction => listFunction(SKETCH_FUNCTION_NAMES.merge, (type) => {
  sketchesOnly('merge', 'merge(HyperLogLog), merge(qdigest(T)), merge(tdigest)', type);
  return (items) => {
    if (items.length === 0) return undefined;
    const sketches = items.map(bytesOf);
    if (sketches.every((s) => s[0] === 0)) {
      const [first, ...rest] = sketches.map((s) => TDigest.deserialize(s));
      for (const t of rest) first!.mergeWith(t);
      return first!.serialize();
    }
    const [first, ...rest] = sketches.map((s) => HyperLogLog.deserialize(s));
    for (const h of rest) first!.mergeWith(h);
    return first!.serialize();
  };
});

const mergeSetDigest = (): DuckDBScalarFunction => listFunction(SKETCH_FUNCTION_NAMES.mergeSetDigest, (type) => {
  sketchesOnly('merge_set_digest', 'merge_set_digest(SetDigest)', type);
  return (items) => {
    if (items.length === 0) return undefined;
    const [first, ...rest] = items.map((v) => SetDigest.deserialize(bytesOf(v)));
    for (const d of rest) first!.mergeWith(d);
    return first!.serialize();
  };
});

/** A scalar over sketches (and other arguments): NULL when any argument is NULL. */
function scalar(name: string, returnType: DuckDBType, parameterTypes: DuckDBType[], compute: (...args: DuckDBValue[]) => DuckDBValue): DuckDBScalarFunction {
  return rowScalarFunction(name, returnType, parameterTypes, (args) => (args.includes(null) ? null : guarded(() => compute(...(args as DuckDBValue[])))), true);
}

/** Cast of a HyperLogLog to P4HyperLogLog: the dense form (HyperLogLogOperators.castToP4Hll). */
const toP4 = (): DuckDBScalarFunction => scalar(SKETCH_FUNCTION_NAMES.toP4, BLOB, [BLOB], (v) => {
  const hll = HyperLogLog.deserialize(bytesOf(v));
  hll.makeDense();
  return blobValue(hll.serialize());
});

/** cardinality of a SetDigest (a whole one by its lengths) or else of a HyperLogLog. */
const cardinality = (): DuckDBScalarFunction => scalar(SKETCH_FUNCTION_NAMES.cardinality, BIGINT, [BLOB], (v) => {
  const bytes = bytesOf(v);
  return BigInt(SetDigest.matches(bytes) ? SetDigest.deserialize(bytes).cardinality() : HyperLogLog.deserialize(bytes).cardinality());
});

const emptyApproxSet = (): DuckDBScalarFunction => DuckDBScalarFunction.create({
  name: SKETCH_FUNCTION_NAMES.emptyApproxSet,
  returnType: BLOB,
  parameterTypes: [],
  mainFunction: (_info, input, output) => {
    const empty = blobValue(HyperLogLog.create(APPROX_SET_BUCKETS).serialize());
    for (let row = 0; row < input.rowCount; row++) output.setItem(row, empty);
    output.flush();
  },
});

const digests = (a: DuckDBValue, b: DuckDBValue): [SetDigest, SetDigest] => [SetDigest.deserialize(bytesOf(a)), SetDigest.deserialize(bytesOf(b))];

const intersectionCardinality = (): DuckDBScalarFunction => scalar(SKETCH_FUNCTION_NAMES.intersectionCardinality, BIGINT, [BLOB, BLOB], (a, b) => BigInt(SetDigest.intersectionCardinality(...digests(a, b))));
const jaccardIndex = (): DuckDBScalarFunction => scalar(SKETCH_FUNCTION_NAMES.jaccardIndex, DOUBLE, [BLOB, BLOB], (a, b) => SetDigest.jaccardIndex(...digests(a, b)));
const hashCounts = (): DuckDBScalarFunction => scalar(SKETCH_FUNCTION_NAMES.hashCounts, MAP(BIGINT, SMALLINT), [BLOB], (v) =>
  mapValue(SetDigest.deserialize(bytesOf(v)).hashCounts().map(([key, value]) => ({ key, value }))));

const valueAtQuantile = (): DuckDBScalarFunction => scalar(SKETCH_FUNCTION_NAMES.valueAtQuantile, DOUBLE, [BLOB, DOUBLE], (t, q) => TDigest.deserialize(bytesOf(t)).valueAt(q as number));

const valuesAtQuantiles = (): DuckDBScalarFunction => scalar(SKETCH_FUNCTION_NAMES.valuesAtQuantiles, LIST(DOUBLE), [BLOB, LIST(DOUBLE)], (t, qs) => {
  const quantiles = (qs as DuckDBListValue).items.map((q) => q as number);
  if (quantiles.some((q, i) => i > 0 && q < quantiles[i - 1]!)) throw failure('INVALID_FUNCTION_ARGUMENT', 'percentiles must be sorted in increasing order');
  return listValue(TDigest.deserialize(bytesOf(t)).valuesAt(quantiles));
});

/** The functions to register once on the engine's instance, before any connection's macros name them. */
export function sketchFunctions(): DuckDBScalarFunction[] {
  return [
    approxSetHashes, setDigestHashes, approxSet, makeSetDigest, tdigestAgg, merge, mergeSetDigest, toP4, cardinality, emptyApproxSet,
    intersectionCardinality, jaccardIndex, hashCounts, valueAtQuantile, valuesAtQuantiles,
  ].map((create) => create());
}
