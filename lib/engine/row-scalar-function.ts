// DuckDB scalar functions written in JavaScript, computed row by row: over text arguments for the catalog
// listings' helpers (system.jdbc type names, declared column types), over values for the sketches.
import { DuckDBScalarFunction, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';

/**
 * `compute` per row over the row's argument values (undefined read as null). With `nulls`, DuckDB hands
 * rows with a NULL argument to `compute` too (special handling); without, DuckDB's default applies.
 */
export function rowScalarFunction(
  name: string, returnType: DuckDBType, parameters: DuckDBType[], compute: (args: (DuckDBValue | null)[]) => DuckDBValue, nulls = false,
): DuckDBScalarFunction {
  return DuckDBScalarFunction.create({
    name,
    returnType,
    parameterTypes: parameters,
    ...(nulls && { specialHandling: true }),
    mainFunction: (_info, input, output) => {
      const columns = parameters.map((_, i) => input.getColumnValues(i));
      for (let row = 0; row < input.rowCount; row++) output.setItem(row, compute(columns.map((c) => c[row] ?? null)));
      output.flush();
    },
  });
}

/** `compute` per row, its arguments as text (NULL as null). */
export function textScalarFunction(name: string, returnType: DuckDBType, parameters: DuckDBType[], compute: (args: (string | null)[]) => string | bigint | null): DuckDBScalarFunction {
  return rowScalarFunction(name, returnType, parameters, (args) => compute(args.map((a) => (a === null ? null : String(a)))));
}
