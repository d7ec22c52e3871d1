import { expect } from 'chai';
import {
  UNBOUNDED_VARCHAR_LENGTH,
  columnTypeName,
  formatType,
  outputColumn,
  typeSignature,
} from '../../lib/protocol/presto-type.js';
import type { PrestoType } from '../../lib/protocol/types.js';

const bigint: PrestoType = { base: 'bigint' };
const varchar: PrestoType = { base: 'varchar' };
const mapType: PrestoType = { base: 'map', params: [varchar, bigint] };
const rowType: PrestoType = { base: 'row', params: [bigint, varchar], fieldNames: ['a', 'b'] };

describe('presto-type', () => {
  describe('formatType', () => {
    it('prints scalar and parametric names (Trino by default)', () => {
      expect(formatType(bigint)).to.equal('bigint');
      expect(formatType(varchar)).to.equal('varchar');
      expect(formatType({ base: 'varchar', length: 10 })).to.equal('varchar(10)');
      expect(formatType({ base: 'varchar', length: UNBOUNDED_VARCHAR_LENGTH })).to.equal('varchar');
      expect(formatType({ base: 'char', length: 3 })).to.equal('char(3)');
      expect(formatType({ base: 'char' })).to.equal('char(1)');
      expect(formatType({ base: 'varbinary' })).to.equal('varbinary');
      expect(formatType({ base: 'decimal', precision: 10, scale: 2 })).to.equal('decimal(10,2)');
      expect(formatType({ base: 'timestamp', precision: 3 })).to.equal('timestamp(3)');
      expect(formatType({ base: 'time', precision: 0 })).to.equal('time(0)');
      expect(formatType({ base: 'timestamp with time zone', precision: 6 })).to.equal('timestamp(6) with time zone');
      expect(formatType({ base: 'time with time zone', precision: 3 })).to.equal('time(3) with time zone');
      expect(formatType({ base: 'array', params: [bigint] })).to.equal('array(bigint)');
    });

    it('joins nested types with ", " for Trino and "," for prestodb', () => {
      expect(formatType(mapType, 'trino')).to.equal('map(varchar, bigint)');
      expect(formatType(mapType, 'presto')).to.equal('map(varchar,bigint)');
      expect(formatType(rowType, 'trino')).to.equal('row(a bigint, b varchar)');
      expect(formatType(rowType, 'presto')).to.equal('row(a bigint,b varchar)');
      expect(formatType({ base: 'decimal', precision: 38, scale: 0 }, 'presto')).to.equal('decimal(38,0)');
    });

    it("prints a result column's decimal as Trino's ProtocolUtil does, its display name as TypeSignature does", () => {
      const decimal: PrestoType = { base: 'decimal', precision: 10, scale: 6 };
      expect(columnTypeName(decimal, 'trino')).to.equal('decimal(10, 6)');
      expect(columnTypeName({ base: 'array', params: [{ base: 'row', params: [decimal], fieldNames: ['d'] }] }, 'trino')).to.equal('array(row(d decimal(10, 6)))');
      expect(columnTypeName(decimal, 'presto')).to.equal('decimal(10,6)');
      expect(formatType(decimal, 'trino')).to.equal('decimal(10,6)');
      expect(outputColumn({ name: 'd', type: decimal }, 'trino').type).to.equal('decimal(10, 6)');
    });

    it('prints unnamed row fields as bare types', () => {
      const anon: PrestoType = { base: 'row', params: [bigint, varchar], fieldNames: [undefined, 'b'] };
      expect(formatType(anon, 'trino')).to.equal('row(bigint, b varchar)');
      expect(formatType(anon, 'presto')).to.equal('row(bigint,b varchar)');
    });

    it('nests', () => {
      const nested: PrestoType = { base: 'array', params: [{ base: 'map', params: [varchar, rowType] }] };
      expect(formatType(nested, 'trino')).to.equal('array(map(varchar, row(a bigint, b varchar)))');
      expect(formatType(nested, 'presto')).to.equal('array(map(varchar,row(a bigint,b varchar)))');
    });

    it('prints prestodb datetime types without precision (they are not parametric there)', () => {
      expect(formatType({ base: 'timestamp', precision: 3 }, 'presto')).to.equal('timestamp');
      expect(formatType({ base: 'timestamp with time zone', precision: 3 }, 'presto')).to.equal(
        'timestamp with time zone',
      );
    });
  });

  describe('typeSignature (trino)', () => {
    it('gives scalars no arguments', () => {
      expect(typeSignature(bigint, 'trino')).to.deep.equal({ rawType: 'bigint', arguments: [] });
    });

    it('gives varchar its length, unbounded as 2147483647', () => {
      expect(typeSignature(varchar, 'trino')).to.deep.equal({
        rawType: 'varchar',
        arguments: [{ kind: 'LONG', value: 2147483647 }],
      });
      expect(typeSignature({ base: 'varchar', length: 25 }, 'trino')).to.deep.equal({
        rawType: 'varchar',
        arguments: [{ kind: 'LONG', value: 25 }],
      });
      expect(typeSignature({ base: 'varbinary' }, 'trino')).to.deep.equal({ rawType: 'varbinary', arguments: [] });
    });

    it('gives decimal and datetime types LONG arguments', () => {
      expect(typeSignature({ base: 'decimal', precision: 12, scale: 2 }, 'trino')).to.deep.equal({
        rawType: 'decimal',
        arguments: [
          { kind: 'LONG', value: 12 },
          { kind: 'LONG', value: 2 },
        ],
      });
      expect(typeSignature({ base: 'timestamp with time zone', precision: 3 }, 'trino')).to.deep.equal({
        rawType: 'timestamp with time zone',
        arguments: [{ kind: 'LONG', value: 3 }],
      });
    });

    it('gives array and map TYPE arguments', () => {
      expect(typeSignature(mapType, 'trino')).to.deep.equal({
        rawType: 'map',
        arguments: [
          { kind: 'TYPE', value: { rawType: 'varchar', arguments: [{ kind: 'LONG', value: 2147483647 }] } },
          { kind: 'TYPE', value: { rawType: 'bigint', arguments: [] } },
        ],
      });
    });

    it('gives row fields NAMED_TYPE with a nested signature object', () => {
      const anon: PrestoType = { base: 'row', params: [bigint, bigint], fieldNames: ['a', undefined] };
      expect(typeSignature(anon, 'trino')).to.deep.equal({
        rawType: 'row',
        arguments: [
          { kind: 'NAMED_TYPE', value: { fieldName: { name: 'a' }, typeSignature: { rawType: 'bigint', arguments: [] } } },
          { kind: 'NAMED_TYPE', value: { typeSignature: { rawType: 'bigint', arguments: [] } } },
        ],
      });
    });
  });

  describe('typeSignature (presto)', () => {
    it('adds the deprecated typeArguments and literalArguments arrays', () => {
      expect(typeSignature(varchar, 'presto')).to.deep.equal({
        rawType: 'varchar',
        typeArguments: [],
        literalArguments: [],
        arguments: [{ kind: 'LONG', value: 2147483647 }],
      });
      const bigintSig = { rawType: 'bigint', typeArguments: [], literalArguments: [], arguments: [] };
      expect(typeSignature({ base: 'array', params: [bigint] }, 'presto')).to.deep.equal({
        rawType: 'array',
        typeArguments: [bigintSig],
        literalArguments: [],
        arguments: [{ kind: 'TYPE', value: bigintSig }],
      });
    });

    it('gives datetime types no arguments', () => {
      expect(typeSignature({ base: 'timestamp', precision: 3 }, 'presto')).to.deep.equal({
        rawType: 'timestamp',
        typeArguments: [],
        literalArguments: [],
        arguments: [],
      });
    });

    it('gives row fields a type string, delimited:false names, and the legacy arrays', () => {
      const row: PrestoType = { base: 'row', params: [{ base: 'integer' }, varchar], fieldNames: ['a', 'b'] };
      expect(typeSignature(row, 'presto')).to.deep.equal({
        rawType: 'row',
        typeArguments: [
          { rawType: 'integer', typeArguments: [], literalArguments: [], arguments: [] },
          {
            rawType: 'varchar',
            typeArguments: [],
            literalArguments: [],
            arguments: [{ kind: 'LONG', value: 2147483647 }],
          },
        ],
        literalArguments: ['a', 'b'],
        arguments: [
          { kind: 'NAMED_TYPE', value: { fieldName: { name: 'a', delimited: false }, typeSignature: 'integer' } },
          { kind: 'NAMED_TYPE', value: { fieldName: { name: 'b', delimited: false }, typeSignature: 'varchar' } },
        ],
      });
    });

    it('writes nested row field types in prestodb form', () => {
      const row: PrestoType = { base: 'row', params: [mapType], fieldNames: [undefined] };
      const sig = typeSignature(row, 'presto');
      expect(sig.arguments).to.deep.equal([{ kind: 'NAMED_TYPE', value: { typeSignature: 'map(varchar,bigint)' } }]);
      expect(sig.literalArguments).to.deep.equal([null]);
    });
  });

  it('outputColumn renders name, type and signature for the dialect', () => {
    expect(outputColumn({ name: '_col0', type: bigint }, 'trino')).to.deep.equal({
      name: '_col0',
      type: 'bigint',
      typeSignature: { rawType: 'bigint', arguments: [] },
    });
    expect(outputColumn({ name: 'm', type: mapType }, 'presto')).to.include({ name: 'm', type: 'map(varchar,bigint)' });
  });

  it('keeps the signature of a deeply nested type linear in size for both dialects (prestodb\'s legacy arrays at the top only)', () => {
    const nest = (depth: number, leaf: PrestoType): PrestoType => (depth === 0 ? leaf : { base: 'array', params: [nest(depth - 1, leaf)] });
    const row = (depth: number): PrestoType => (depth === 0 ? { base: 'bigint' } : { base: 'row', params: [row(depth - 1)], fieldNames: ['f'] });
    for (const dialect of ['presto', 'trino'] as const) {
      const size = (t: PrestoType) => JSON.stringify(outputColumn({ name: 'x', type: t }, dialect)).length;
      expect(size(nest(32, { base: 'bigint' })), dialect).to.be.below(4 * size(nest(16, { base: 'bigint' })));
      expect(size(row(32)), dialect).to.be.below(8 * size(row(16)));
    }
    const top = typeSignature(nest(2, { base: 'bigint' }), 'presto');
    expect(top.typeArguments).to.have.length(1);
    expect(top.typeArguments![0]!.typeArguments).to.deep.equal([]);
  });
});
