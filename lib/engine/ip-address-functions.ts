// Trino's ipaddress in DuckDB: the scalar functions the translation and the row renderer call, over the
// one-field struct lib/sql/ip-address.ts defines. Written in JavaScript so text is parsed and written by
// the one hand-written parser, never by SQL string functions. Errors carry the Trino error name as a
// prefix (duckdb-errors.ts maps it); a user's text only ever follows it.
import { ANY, BLOB, DuckDBBlobValue, blobValue, DuckDBScalarFunction, DuckDBStructValue, STRUCT, UHUGEINT, VARCHAR, structValue, type DuckDBType } from '@duckdb/node-api';
import { IPADDRESS_FIELD, IP_ADDRESS_FUNCTIONS, formatIpAddress, invalidIpAddressMessage, ipAddressOfBytes, parseIpAddress } from '../sql/ip-address.js';

/** DuckDB's type of an ipaddress (IPADDRESS_DUCKDB_TYPE), as the node API builds it. */
const IPADDRESS: DuckDBType = STRUCT({ [IPADDRESS_FIELD]: UHUGEINT });

/** The 128-bit value of a struct an ipaddress is, or undefined for any other value. */
function valueOf(item: unknown): bigint | undefined {
  if (!(item instanceof DuckDBStructValue)) return undefined;
  const value = item.entries[IPADDRESS_FIELD];
  return typeof value === 'bigint' ? value : undefined;
}

/** The ipaddress of one input value; undefined where Trino's cast fails on the value (text, bytes). */
function castValue(item: unknown, type: DuckDBType): bigint | undefined {
  if (typeof item === 'string') return parseIpAddress(item);
  if (item instanceof DuckDBBlobValue) return ipAddressOfBytes(item.bytes);
  const value = valueOf(item);
  if (value !== undefined) return value;
  throw new Error(`TYPE_MISMATCH: Cannot cast ${String(type).toLowerCase()} to ipaddress`);
}

function castFunction(name: string, safe: boolean): DuckDBScalarFunction {
  return DuckDBScalarFunction.create({
    name,
    returnType: IPADDRESS,
    parameterTypes: [ANY],
    mainFunction: (_info, input, output) => {
      const type = input.getColumnVector(0).type;
      const items = input.getColumnValues(0);
      for (let row = 0; row < input.rowCount; row++) {
        const item = items[row];
        if (item === null || item === undefined) {
          output.setItem(row, null);
          continue;
        }
        const value = castValue(item, type);
        if (value === undefined && !safe) {
          const shown = item instanceof DuckDBBlobValue ? `Invalid IP address binary length: ${item.bytes.length}` : invalidIpAddressMessage(String(item));
          throw new Error(`INVALID_CAST_ARGUMENT: ${shown}`);
        }
        output.setItem(row, value === undefined ? null : structValue({ [IPADDRESS_FIELD]: value }));
      }
      output.flush();
    },
  });
}

/**
 * An ipaddress written as text or as its 16 bytes. The parameter is ANY so that a translation may name
 * the call on a value of any type in a branch DuckDB folds away unless the value is an ipaddress (the
 * printer's CASE on typeof); only an ipaddress reaches it.
 */
function writeFunction(name: string, returnType: DuckDBType, write: (value: bigint) => string | DuckDBBlobValue): DuckDBScalarFunction {
  return DuckDBScalarFunction.create({
    name,
    returnType,
    parameterTypes: [ANY],
    mainFunction: (_info, input, output) => {
      const items = input.getColumnValues(0);
      for (let row = 0; row < input.rowCount; row++) {
        const value = valueOf(items[row]);
        output.setItem(row, value === undefined ? null : write(value));
      }
      output.flush();
    },
  });
}

/** The 16 bytes of an ipaddress, big-endian (Trino's cast to varbinary). */
function bytesOf(value: bigint): DuckDBBlobValue {
  const bytes = new Uint8Array(16);
  for (let i = 15, v = value; i >= 0; i--, v >>= 8n) bytes[i] = Number(v & 0xffn);
  return blobValue(bytes);
}

/** The functions to register once on the engine's instance (they are then on every connection). */
export function ipAddressFunctions(): DuckDBScalarFunction[] {
  return [
    castFunction(IP_ADDRESS_FUNCTIONS.cast, false), castFunction(IP_ADDRESS_FUNCTIONS.tryCast, true),
    writeFunction(IP_ADDRESS_FUNCTIONS.text, VARCHAR, formatIpAddress), writeFunction(IP_ADDRESS_FUNCTIONS.bytes, BLOB, bytesOf),
  ];
}
