// The CLI's text handling: the statement splitter (quotes and comments), the --session parser, the
// number-keeping JSON parser, the error caret and the progress line's number formats.
import { expect } from 'chai';
import fc from 'fast-check';
import { isBlank, splitStatements } from '../../lib/client/statement-splitter.js';
import { parseSessionOption, SessionOptionError } from '../../lib/client/session-option.js';
import { JsonNumber, JsonTextError, parseJsonText, stringifyJsonText, type JsonValue } from '../../lib/client/json-text.js';
import { failureText } from '../../lib/client/failure-text.js';
import { finalLines, formatCount, formatDataSize, formatTime, progressLines } from '../../lib/client/progress-line.js';
import type { QueryStatus } from '../../lib/client/statement-client.js';

/** Pieces of SQL that may hold ';' without ending a statement, and plain words. */
const piece = fc.oneof(
  fc.stringMatching(/^[a-z0-9 ()*,=+]{1,12}$/),
  fc.string({ maxLength: 8 }).map((s) => `'${s.replaceAll("'", "''")}'`),
  fc.string({ maxLength: 8 }).map((s) => `"${s.replaceAll('"', '""')}"`),
  fc.string({ maxLength: 8 }).filter((s) => !s.includes('\n')).map((s) => `-- ${s}\n`),
  fc.string({ maxLength: 8 }).filter((s) => !s.includes('*/')).map((s) => `/* ${s} */`),
);
const statement = fc.array(piece, { minLength: 1, maxLength: 6 }).map((ps) => ps.join(' '));

describe('CLI text handling', () => {
  describe('splitStatements', () => {
    it('splits on ; outside strings, quoted identifiers and comments', () => {
      fc.assert(
        fc.property(fc.array(statement, { maxLength: 6 }), statement, (stmts, tail) => {
          const text = stmts.map((s) => `${s};`).join('\n') + tail;
          const { statements, rest } = splitStatements(text);
          expect(statements).to.deep.equal(stmts.map((s) => s.trim()).filter((s) => !isBlank(s)));
          expect(rest).to.equal(tail);
        }),
      );
    });

    it('examples: quotes, doubled quotes, comments, empty statements, an unclosed string', () => {
      expect(splitStatements("SELECT 'a;b''c;'; SELECT \"x;\"\n;;  -- c;\n/* ; */").statements).to.deep.equal(["SELECT 'a;b''c;'", 'SELECT "x;"']);
      expect(splitStatements("SELECT 'open; still").rest).to.equal("SELECT 'open; still");
      expect(splitStatements('SELECT 1; SELECT').rest).to.equal(' SELECT');
      expect(isBlank(' -- x\n /* y */ ')).to.equal(true);
      expect(isBlank('/* unclosed')).to.equal(false);
    });

    it('takes any text without throwing, in linear time', () => {
      fc.assert(fc.property(fc.string({ maxLength: 200 }), (s) => void splitStatements(s)));
      const start = performance.now();
      splitStatements("'".repeat(200_000) + '-- '.repeat(100_000) + '/*'.repeat(100_000));
      expect(performance.now() - start).to.be.below(2000);
    });
  });

  describe('parseSessionOption', () => {
    it('splits at the first =, the value is anything', () => {
      fc.assert(
        fc.property(fc.stringMatching(/^[a-z_][a-z0-9_]{0,10}(\.[a-z_][a-z0-9_]{0,10})?$/), fc.string(), (name, value) => {
          expect(parseSessionOption(`${name}=${value}`)).to.deep.equal([name, value]);
        }),
      );
    });

    it('any other text is a SessionOptionError, never another error', () => {
      fc.assert(
        fc.property(fc.string(), (s) => {
          try {
            parseSessionOption(s);
          } catch (err) {
            expect(err).to.be.instanceOf(SessionOptionError);
          }
        }),
      );
      for (const bad of ['', 'x', '=1', 'a.b.c=1', '.a=1', 'a b=1', 'a\u00e9=1']) expect(() => parseSessionOption(bad), bad).to.throw(SessionOptionError);
    });
  });

  describe('parseJsonText', () => {
    const toPlain = (v: JsonValue): unknown =>
      v instanceof JsonNumber ? Number(v.text) : Array.isArray(v) ? v.map(toPlain) : v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toPlain(x)])) : v;

    it('reads what JSON.parse reads, numbers kept as their text', () => {
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          const text = JSON.stringify(value);
          const parsed = parseJsonText(text);
          expect(toPlain(parsed)).to.deep.equal(JSON.parse(text));
          expect(stringifyJsonText(parsed)).to.equal(text);
        }),
      );
      expect(stringifyJsonText(parseJsonText('[1.0, 1.0E10, 12345678901234567890, -0]'))).to.equal('[1.0,1.0E10,12345678901234567890,-0]');
    });

    it('refuses what JSON.parse refuses, with a JsonTextError', () => {
      fc.assert(
        fc.property(fc.string({ maxLength: 30 }), (text) => {
          let expected = true;
          try {
            JSON.parse(text);
          } catch {
            expected = false;
          }
          let actual = true;
          try {
            parseJsonText(text);
          } catch (err) {
            expect(err).to.be.instanceOf(JsonTextError);
            actual = false;
          }
          expect(actual, JSON.stringify(text)).to.equal(expected);
        }),
      );
      expect(() => parseJsonText('['.repeat(100_000))).to.throw(JsonTextError, /nesting too deep/);
      expect(parseJsonText('{"__proto__": 1}')).to.have.own.property('__proto__');
    });
  });

  it('failureText marks the error column under the statement line', () => {
    const error = { errorName: 'SYNTAX_ERROR', message: "line 2:5: mismatched input 'FORM'", errorLocation: { lineNumber: 2, columnNumber: 5 } };
    expect(failureText('q1', error, 'SELECT 1\nxxx FORM t')).to.equal(
      "Query q1 failed (SYNTAX_ERROR): line 2:5: mismatched input 'FORM'\nLINE 2: xxx FORM t\n            ^\n",
    );
    expect(failureText('q1', { ...error, errorLocation: { lineNumber: 9, columnNumber: 1 } }, 'SELECT')).to.equal(
      "Query q1 failed (SYNTAX_ERROR): line 2:5: mismatched input 'FORM'\n",
    );
  });

  describe('progress line', () => {
    it("formats counts, sizes and times as Trino's CLI", () => {
      expect([0, 999, 1000, 1001, 1234, 12_345, 123_456, 1_234_567, 25_000_000_000].map(formatCount)).to.deep.equal(['0', '999', '1000', '1K', '1.23K', '12.3K', '123K', '1.23M', '25B']);
      expect([0, 999, 1000, 24_500_000, 1_500_000_000].map((b) => formatDataSize(b, true))).to.deep.equal(['0B', '999B', '1KB', '24.5MB', '1.5GB']);
      expect([0, 499, 500, 65_000, 3_600_000].map(formatTime)).to.deep.equal(['0:00', '0:00', '0:01', '1:05', '60:00']);
    });

    const status = (stats: Partial<QueryStatus['stats']>): QueryStatus => ({
      id: 'q1',
      stats: { state: 'RUNNING', scheduled: true, nodes: 1, totalSplits: 10, queuedSplits: 4, runningSplits: 2, completedSplits: 4, processedRows: 1_200_000, processedBytes: 24_500_000, elapsedTimeMillis: 3000, ...stats },
    });

    it('shows id, state, nodes, splits, rows, bytes, rates, elapsed and a bar', () => {
      expect(progressLines(status({}), 3000, 80)).to.deep.equal([
        'Query q1, RUNNING, 1 node, 10 splits',
        '0:03 [ 1.2M rows, 24.5MB] [ 400K rows/s, 8.17MB/s] [=========>>>>>        ] 40%',
      ]);
      expect(progressLines(status({ scheduled: false, totalSplits: 0 }), 1000, 80)[1]).to.equal('0:01 [ 1.2M rows, 24.5MB] [ 1.2M rows/s, 24.5MB/s] [ <=>                  ]');
      expect(finalLines(status({ state: 'FINISHED', completedSplits: 10, runningSplits: 0 }))).to.deep.equal([
        '', 'Query q1, FINISHED, 1 node', 'Splits: 10 total, 10 done (100.00%)', '3.00 [1.2M rows, 24.5MB] [400K rows/s, 8.17MB/s]', '',
      ]);
    });
  });
});
