// Trino's legacy JSON path (JsonPathTokenizer) read into keys, and the JSON pointer DuckDB reads for it.
import { expect } from 'chai';
import fc from 'fast-check';
import { duckdbJsonPath, jsonPathKeys } from '../../lib/sql/json-path.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';

/** A key written as Trino's quoted subscript: `["..."]`, `"` and `\` escaped. */
const quotedSubscript = (key: string) => `["${key.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"]`;

/** The keys of a JSON pointer (RFC 6901). */
const pointerKeys = (pointer: string) => (pointer === '$' ? [] : pointer.slice(1).split('/').map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~')));

describe('Trino JSON paths', () => {
  it('reads the forms Trino reads', () => {
    expect(jsonPathKeys('$')).to.deep.equal([]);
    expect(jsonPathKeys('$.a.b_1:x')).to.deep.equal(['a', 'b_1:x']);
    expect(jsonPathKeys('$["a"]["c"]')).to.deep.equal(['a', 'c']);
    expect(jsonPathKeys('$["foo-bar"][0].z')).to.deep.equal(['foo-bar', '0', 'z']);
    expect(jsonPathKeys('$[100]["z"]')).to.deep.equal(['100', 'z']);
    expect(jsonPathKeys('$["a \\"q\\" \\\\ ]["]')).to.deep.equal(['a "q" \\ ][']);
    expect(jsonPathKeys('$.ключ[é]')).to.deep.equal(['ключ', 'é']);
    expect(jsonPathKeys('$[""]')).to.deep.equal(['']);
  });

  it("refuses what Trino refuses, with Trino's message", () => {
    for (const path of ['', 'a', '$.', '$..a', '$[]', '$[*]', '$.*', '$[0', '$["a"', '$["a\\n"]', '$["a\\', '$.a-b', '$ .a', '$[a b]', "$['a']", '$.a[0]x']) {
      expect(() => jsonPathKeys(path), path).to.throw(VivaceError, `Invalid JSON path: '${path}'`).with.property('errorName', 'INVALID_FUNCTION_ARGUMENT');
    }
  });

  it('writes DuckDB JSON pointers that name the same keys, for any keys', () => {
    expect(duckdbJsonPath('$["a"]["c"]')).to.equal('/a/c');
    expect(duckdbJsonPath('$["x/y"]["~"]')).to.equal('/x~1y/~0');
    expect(duckdbJsonPath('$')).to.equal('$');
    fc.assert(fc.property(fc.array(fc.string({ unit: 'binary' })), (keys) => {
      const path = `$${keys.map(quotedSubscript).join('')}`;
      expect(jsonPathKeys(path)).to.deep.equal(keys);
      expect(pointerKeys(duckdbJsonPath(path))).to.deep.equal(keys);
    }), { numRuns: 2000 });
  });

  it('reads any text to keys or to INVALID_FUNCTION_ARGUMENT, nothing else', () => {
    const pieces = fc.constantFrom('$', '.', '[', ']', '"', '\\', 'a', '0', '_', ':', ' ', '-', '*');
    fc.assert(fc.property(fc.oneof(fc.string(), fc.array(pieces).map((p) => p.join(''))), (text) => {
      try {
        expect(jsonPathKeys(text)).to.be.an('array');
      } catch (err) {
        expect(err).to.be.instanceOf(VivaceError).with.property('errorName', 'INVALID_FUNCTION_ARGUMENT');
      }
    }), { numRuns: 5000 });
  });
});
