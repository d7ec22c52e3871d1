// A DuckDB scalar function written in JavaScript over text arguments: the catalog listings' helpers
// (system.jdbc type names, declared column types) read DuckDB's catalog columns through them.
import { DuckDBScalarFunction, type DuckDBType } from '@duckdb/node-api';

/** `compute` per row, its arguments as text (NULL as null). */
export function textScalarFunction(name: string, returnType: DuckDBType, parameters: DuckDBType[], compute: (args: (string | null)[]) => string | bigint | null): DuckDBScalarFunction {
  return DuckDBScalarFunction.create({
    name,
    returnType,
    parameterTypes: parameters,
    mainFunction: (_info, input, output) => {
      const columns = parameters.map((_, i) => input.getColumnValues(i));
      for (let row = 0; row < input.rowCount; row++) {
        output.setItem(row, compute(columns.map((c) => (c[row] === null || c[row] === undefined ? null : String(c[row])))));
      }
      output.flush();
    },
  });
}
