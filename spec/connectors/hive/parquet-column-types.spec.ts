// Whether a Parquet column reads as its table's declared type, as Trino's Hive connector decides
// (ParquetTypeTranslator's coercions, then ColumnReaderFactory), and the messages it fails with, against the
// footers DuckDB writes (parquet_schema()).
import { expect } from 'chai';
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetDescriptor, parquetSchemaSql, topLevelColumns, unreadableAs, unreadableColumns, type ParquetColumnType } from '../../../lib/connectors/hive/parquet-column-types.js';
import { quoteString } from '../../../lib/sql/sql-formatter.js';
import type { PrestoType } from '../../../lib/protocol/types.js';

describe('hive: a Parquet column read as the declared type (Trino\'s ColumnReaderFactory)', () => {
  let dir: string;
  let columns: Map<string, ParquetColumnType>;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-parquet-types-'));
    const file = join(dir, 'f.parquet');
    const db = await DuckDBInstance.create(':memory:');
    const c = await db.connect();
    await c.run(`COPY (SELECT 'z' AS s, 7 AS i, 7::BIGINT AS l, 1.5::DOUBLE AS d, 1.5::FLOAT AS f, DATE '2020-01-01' AS dt, TIMESTAMP '2020-01-01' AS ts,
      1.25::DECIMAL(10,2) AS dec, 1::TINYINT AS t, true AS b, 'x'::BLOB AS bin, 1.5::DECIMAL(30,2) AS big, [1, 2] AS arr, {'p': 1, 'q': [2]} AS st, 3 AS "After")
      TO ${quoteString(file)} (FORMAT parquet)`);
    const rows = (await c.runAndReadAll(parquetSchemaSql(quoteString(file)))).getRows();
    c.closeSync();
    db.closeSync();
    const files = topLevelColumns(rows);
    expect([...files.keys()]).to.deep.equal([file]);
    columns = new Map(files.get(file)!.map((col) => [col.name, col]));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the top-level columns of a footer, nested ones skipped, in parquet-mr\'s descriptor text', () => {
    expect([...columns.keys()]).to.deep.equal(['s', 'i', 'l', 'd', 'f', 'dt', 'ts', 'dec', 't', 'b', 'bin', 'big', 'arr', 'st', 'After']);
    const text = (name: string) => parquetDescriptor(columns.get(name)!);
    expect(text('s')).to.equal('[s] optional binary s (STRING)');
    expect(text('i')).to.equal('[i] optional int32 i (INTEGER(32,true))');
    expect(text('t')).to.equal('[t] optional int32 t (INTEGER(8,true))');
    expect(text('d')).to.equal('[d] optional double d');
    expect(text('dt')).to.equal('[dt] optional int32 dt (DATE)');
    expect(text('ts')).to.equal('[ts] optional int64 ts (TIMESTAMP(MICROS,false))');
    expect(text('dec')).to.equal('[dec] optional int64 dec (DECIMAL(10,2))');
    expect(text('big')).to.equal('[big] optional fixed_len_byte_array(16) big (DECIMAL(30,2))');
    expect(text('bin')).to.equal('[bin] optional binary bin');
    expect(text('After')).to.equal('[After] optional int32 After (INTEGER(32,true))');
  });

  it('fails as Trino: an annotation that does not fit (Unsupported ...), a physical type nothing reads (Reading ... is not supported)', () => {
    const as = (type: PrestoType, name: string) => unreadableAs(type, columns.get(name)!);
    expect(as({ base: 'integer' }, 's')).to.equal('Unsupported Trino column type (integer) for Parquet column ([s] optional binary s (STRING))');
    expect(as({ base: 'bigint' }, 'dt')).to.equal('Unsupported Trino column type (bigint) for Parquet column ([dt] optional int32 dt (DATE))');
    expect(as({ base: 'decimal', precision: 10, scale: 2 }, 'i')).to.equal('Unsupported Trino column type (decimal(10,2)) for Parquet column ([i] optional int32 i (INTEGER(32,true)))');
    expect(as({ base: 'timestamp', precision: 3 }, 'l')).to.equal('Unsupported Trino column type (timestamp(3)) for Parquet column ([l] optional int64 l (INTEGER(64,true)))');
    expect(as({ base: 'varchar' }, 'i')).to.equal('Reading Trino column (varchar) from Parquet column ([i] optional int32 i (INTEGER(32,true))) is not supported by optimized parquet reader');
    expect(as({ base: 'bigint' }, 'd')).to.equal('Reading Trino column (bigint) from Parquet column ([d] optional double d) is not supported by optimized parquet reader');
    expect(as({ base: 'boolean' }, 'i')).to.match(/^Reading Trino column \(boolean\)/);
    expect(as({ base: 'varchar', length: 3 }, 'big')).to.match(/^Reading Trino column \(varchar\(3\)\)/);
    expect(as({ base: 'date' }, 's')).to.match(/^Unsupported Trino column type \(date\)/);
  });

  it('reads what Trino reads or coerces: integers of any width, an integer as double, a float as double, a short decimal of scale 0 as an integer, a decimal rescaled', () => {
    const ok: [PrestoType, string][] = [
      [{ base: 'bigint' }, 'i'], [{ base: 'integer' }, 'l'], [{ base: 'smallint' }, 'i'], [{ base: 'tinyint' }, 'l'], [{ base: 'double' }, 'i'], [{ base: 'double' }, 'l'],
      [{ base: 'double' }, 'f'], [{ base: 'real' }, 'f'], [{ base: 'date' }, 'dt'], [{ base: 'timestamp', precision: 6 }, 'ts'], [{ base: 'bigint' }, 'ts'],
      [{ base: 'decimal', precision: 12, scale: 4 }, 'dec'], [{ base: 'decimal', precision: 38, scale: 2 }, 'big'], [{ base: 'decimal', precision: 10, scale: 0 }, 'i'],
      [{ base: 'varchar' }, 's'], [{ base: 'varchar', length: 1 }, 's'], [{ base: 'char', length: 1 }, 's'], [{ base: 'varbinary' }, 'bin'], [{ base: 'varchar' }, 'bin'],
      [{ base: 'boolean' }, 'b'], [{ base: 'array', params: [{ base: 'integer' }] }, 'arr'],
    ];
    for (const [type, name] of ok) expect(unreadableAs(type, columns.get(name)!), `${JSON.stringify(type)} from ${name}`).to.equal(undefined);
  });

  it('names each declared column some file cannot be read as, by the first such file, matching names case-insensitively', () => {
    const first = [...columns.values()];
    const second: ParquetColumnType[] = [{ name: 'I', physical: 'BYTE_ARRAY', converted: 'UTF8', repetition: 'OPTIONAL' }];
    const out = unreadableColumns([{ name: 'i', type: { base: 'integer' } }, { name: 'after', type: { base: 'varchar' } }, { name: 'missing', type: { base: 'integer' } }], [first, second]);
    expect(Object.fromEntries(out)).to.deep.equal({
      i: 'Unsupported Trino column type (integer) for Parquet column ([I] optional binary I (STRING))',
      after: 'Reading Trino column (varchar) from Parquet column ([After] optional int32 After (INTEGER(32,true))) is not supported by optimized parquet reader',
    });
  });
});
