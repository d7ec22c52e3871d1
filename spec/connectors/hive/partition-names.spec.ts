// Partition directory names as Trino writes them: Hive's escaping, the default partition, round trips.
import { expect } from 'chai';
import fc from 'fast-check';
import { duckdbSegmentValue, escapePathName, HIVE_DEFAULT_PARTITION, makePartitionName, parsePartitionName, unescapePathName } from '../../../lib/connectors/hive/partition-names.js';

describe('hive partition names', () => {
  it('escapes what Hive escapes, upper-case hex, and nothing else', () => {
    expect(escapePathName('a b/c=d:e%f')).to.equal('a b%2Fc%3Dd%3Ae%25f');
    expect(escapePathName('\u0001\u007f"#\'*?\\{[]^')).to.equal('%01%7F%22%23%27%2A%3F%5C%7B%5B%5D%5E');
    expect(escapePathName('ü..+')).to.equal('ü..+');
  });

  it('names NULL and the empty string as the default partition', () => {
    expect(makePartitionName(['a', 'b'], [null, ''])).to.equal(`a=${HIVE_DEFAULT_PARTITION}/b=${HIVE_DEFAULT_PARTITION}`);
    expect(parsePartitionName(`a=${HIVE_DEFAULT_PARTITION}/b=x`, ['a', 'b'])).to.deep.equal([null, 'x']);
  });

  it('unescapes as Hive: a % not followed by two hex digits stays', () => {
    expect(unescapePathName('100%')).to.equal('100%');
    expect(unescapePathName('%zz%41')).to.equal('%zzA');
  });

  it('round-trips any value through Trino escaping (property)', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (a, b) => {
      const values = [a === '' ? null : a, b === '' ? null : b];
      expect(parsePartitionName(makePartitionName(['k1', 'k2'], values), ['k1', 'k2'])).to.deep.equal(values);
    }), { numRuns: 500 });
  });

  it('keeps a name inside its directory: no value makes a separator or a parent segment', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (v) => {
      const name = makePartitionName(['k'], [v]);
      expect(name.split('/')).to.have.length(1);
      expect(name.startsWith('k=')).to.equal(true);
    }), { numRuns: 500 });
  });

  it('reads back the values DuckDB wrote (percent-encoded UTF-8)', () => {
    expect(duckdbSegmentValue('x%2Fy%3Dz')).to.equal('x/y=z');
    expect(duckdbSegmentValue('%C3%BC')).to.equal('ü');
    expect(duckdbSegmentValue(HIVE_DEFAULT_PARTITION)).to.equal(null);
  });
});
