// DuckDB type texts (duckdb_columns().data_type) read back and named as Trino names them.
import { expect } from 'chai';
import { formatType } from '../../../lib/protocol/presto-type.js';
import { prestoTypeOfText } from '../../../lib/engine/catalogs/system-jdbc.js';
import { duckdbTypeOfText } from '../../../lib/engine/catalogs/duckdb-type-text.js';
import { expectLinear } from '../../support/linear-time.js';

const trino = (text: string) => formatType(prestoTypeOfText(text), 'trino');

describe('DuckDB type texts', () => {
  it('reads the text of a wide struct in linear time (no copy of the rest per token)', () => {
    const wide = (size: number) => `STRUCT(${Array.from({ length: Math.ceil(size / 20) }, (_, i) => `f${i} TIMESTAMP WITH TIME ZONE`).join(', ')})`;
    expectLinear('duckdbTypeOfText', (t) => duckdbTypeOfText(t), (size) => [wide(size), `STRUCT(${'x'.repeat(size)} INTEGER)`]);
  });

  it('names scalar types as prestoTypeOf does', () => {
    const cases: [string, string][] = [
      ['BOOLEAN', 'boolean'], ['TINYINT', 'tinyint'], ['INTEGER', 'integer'], ['BIGINT', 'bigint'], ['HUGEINT', 'bigint'],
      ['FLOAT', 'real'], ['DOUBLE', 'double'], ['DECIMAL(15,2)', 'decimal(15,2)'], ['DECIMAL(38, 0)', 'decimal(38,0)'],
      ['VARCHAR', 'varchar'], ['JSON', 'json'], ['BLOB', 'varbinary'], ['DATE', 'date'], ['UUID', 'uuid'],
      ['TIME', 'time(6)'], ['TIME WITH TIME ZONE', 'time(6) with time zone'], ['TIMESTAMP', 'timestamp(6)'],
      ['TIMESTAMP_MS', 'timestamp(3)'], ['TIMESTAMP_S', 'timestamp(0)'], ['TIMESTAMP_NS', 'timestamp(9)'],
      ['TIMESTAMP WITH TIME ZONE', 'timestamp(6) with time zone'], ['INTERVAL', 'interval day to second'],
      ["ENUM('a', 'b')", 'varchar'], ['BIT', 'varchar'],
    ];
    for (const [text, name] of cases) expect(trino(text), text).to.equal(name);
  });

  it('reads nested types: lists, fixed arrays, maps and structs with quoted names', () => {
    expect(trino('INTEGER[]')).to.equal('array(integer)');
    expect(trino('INTEGER[][]')).to.equal('array(array(integer))');
    expect(trino('DOUBLE[3]')).to.equal('array(double)');
    expect(trino('MAP(VARCHAR, DECIMAL(15,2))')).to.equal('map(varchar, decimal(15,2))');
    expect(trino('STRUCT(a STRUCT(b INTEGER)[], m MAP(VARCHAR, INTEGER[]))')).to.equal('row(a array(row(b integer)), m map(varchar, array(integer)))');
    const struct = duckdbTypeOfText('STRUCT("x ""y""" INTEGER, "select" VARCHAR, Up DOUBLE)');
    expect(prestoTypeOfText('STRUCT("x ""y""" INTEGER, "select" VARCHAR, Up DOUBLE)')).to.deep.include({ fieldNames: ['x "y"', 'select', 'Up'] });
    expect((struct as unknown as { entryNames: string[] }).entryNames).to.deep.equal(['x "y"', 'select', 'Up']);
  });

  it('rejects text that is no type, and the listing falls back to the text in lower case', () => {
    expect(() => duckdbTypeOfText('INTEGER)')).to.throw(SyntaxError);
    expect(() => duckdbTypeOfText('STRUCT(a')).to.throw(SyntaxError);
    expect(trino('MAP(VARCHAR')).to.equal('map(varchar');
  });
});
