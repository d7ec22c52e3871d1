// Java .properties text as Trino's catalog files are read: separators, comments, continuations, escapes,
// the line of each entry; any text parses or fails with a line, and never takes more than one pass.
import { expect } from 'chai';
import fc from 'fast-check';
import { parsePropertiesText, PropertiesSyntaxError } from '../../lib/connectors/properties-text.js';

describe('properties text', () => {
  it('reads = and : and blank separators, comments, blank lines and CRLF, with each entry\'s line', () => {
    const text = '# comment\n! also\n\nconnector.name=hive\r\nlocal.location : /srv/lake\nhive.storage-format PARQUET\n  indented = yes  \n';
    expect(parsePropertiesText(text)).to.deep.equal([
      { key: 'connector.name', value: 'hive', line: 4 },
      { key: 'local.location', value: '/srv/lake', line: 5 },
      { key: 'hive.storage-format', value: 'PARQUET', line: 6 },
      { key: 'indented', value: 'yes  ', line: 7 },
    ]);
  });

  it('joins continued lines and decodes escapes as Java does', () => {
    expect(parsePropertiesText('a=one \\\n    two\nb\\=c=\\u0041\\t\\\\\nd=x\\\\\n')).to.deep.equal([
      { key: 'a', value: 'one two', line: 1 },
      { key: 'b=c', value: 'A\t\\', line: 3 },
      { key: 'd', value: 'x\\', line: 4 },
    ]);
  });

  it('refuses a malformed \\u escape with its line', () => {
    expect(() => parsePropertiesText('a=1\nb=\\u12g4\n')).to.throw(PropertiesSyntaxError).with.property('line', 2);
  });

  it('parses any text or fails with a line number, and keys and lines stay in order', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom('a', '=', ':', ' ', '\\', '\n', '\r', '#', '!', 'u', '0', '\t') , maxLength: 200 }), (text) => {
      try {
        const entries = parsePropertiesText(text);
        const lines = entries.map((e) => e.line);
        expect(lines).to.deep.equal([...lines].sort((x, y) => x - y));
        for (const line of lines) expect(line).to.be.within(1, text.split('\n').length);
      } catch (err) {
        expect(err).to.be.instanceOf(PropertiesSyntaxError);
      }
    }), { numRuns: 2000 });
  });

  // One pass: a quadratic reading of these would outlast the spec's timeout many times over.
  it('reads 200,000 lines and a run of 100,000 backslashes within the spec\'s timeout', () => {
    const big = `${'k=v\n'.repeat(200_000)}x=${'\\'.repeat(100_000)}`;
    expect(parsePropertiesText(big)).to.have.length(200_001);
  });
});
