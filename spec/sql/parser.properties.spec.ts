// Properties of the SQL front end over generated input: (a) formatSql prints every generated query so that
// it parses back to the same tree; (b) hostile text of any size is answered with a tree or a VivaceError,
// in time linear in its length.
import { expect } from 'chai';
import fc from 'fast-check';
import { parseStatement } from '../../lib/sql/parser.js';
import { formatSql } from '../../lib/sql/sql-formatter.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { classicAttacks, expectLinear, hostileText } from '../support/linear-time.js';
import { bare } from './tree-helpers.js';

import { statement } from './sql-generators.js';

// ------------------------------------------------------------------ properties

/** Parses, refusing anything but a VivaceError. */
function parseOrRefuse(text: string): void {
  try {
    parseStatement(text);
  } catch (err) {
    if (!(err instanceof VivaceError)) throw err;
    expect(err.errorName).to.equal('SYNTAX_ERROR');
  }
}

describe('parser properties', () => {
  it('(a) formatSql prints generated statements so that they parse back to the same tree', () => {
    fc.assert(
      fc.property(statement, (sql) => {
        const tree = parseStatement(sql);
        const printed = formatSql(tree);
        expect(bare(parseStatement(printed)), `${sql}\n  printed as\n${printed}`).to.deep.equal(bare(tree));
        // Printing is canonical: the printed text prints as itself.
        expect(formatSql(parseStatement(printed))).to.equal(printed);
      }),
      { numRuns: 400 },
    );
  });

  it('(b) answers hostile text of 100 KB with a tree or a VivaceError, each within half a second', () => {
    const size = 100_000;
    const fixed = [
      ...classicAttacks(size),
      `'${'x'.repeat(200_000)}'`,
      `SELECT '${'x'.repeat(200_000)}'`,
      `SELECT 1${' '.repeat(120_000)}`,
      `SELECT ${'a'.repeat(size)}`,
      `SELECT ${'"a"'.repeat(size / 3)}`,
      `SELECT ${'a, '.repeat(size / 3)}1`,
      `SELECT (${'a, '.repeat(size / 3)}a) -> 1`,
      `SELECT ${'x = y OR '.repeat(size / 8)}1`,
      `SELECT 1 IN (${'1, '.repeat(size / 3)}1)`,
      `SELECT CASE ${'WHEN 1 THEN 2 '.repeat(size / 14)}END`,
      `VALUES ${'(1, 2), '.repeat(size / 8)}(1, 2)`,
      `${'(SELECT '.repeat(size / 8)}1`,
      `${'((((1'.repeat(size / 5)}`,
      `SELECT ${'f('.repeat(size / 2)}`,
      `SELECT ${'- '.repeat(size / 2)}1`,
      `SELECT ${'NOT '.repeat(size / 4)}1`,
      `SELECT a${'.b'.repeat(size / 2)}`,
      `SELECT * FROM ${'a JOIN '.repeat(size / 7)}b`,
      `${'EXPLAIN '.repeat(size / 8)}SELECT 1`,
      "X'".repeat(size / 2),
      "U&'".repeat(size / 3),
      '/* '.repeat(size / 3),
      '\u0000'.repeat(size),
      '😀'.repeat(size / 2),
    ];
    for (const text of fixed) {
      const started = performance.now();
      parseOrRefuse(text);
      expect(performance.now() - started, JSON.stringify(text.slice(0, 30))).to.be.below(500);
    }
  });

  it('(b) answers random mixes of hostile pieces with a tree or a VivaceError, in linear time', () => {
    fc.assert(
      fc.property(hostileText(20_000), (text) => {
        const started = performance.now();
        parseOrRefuse(text);
        parseOrRefuse(`SELECT ${text}`);
        parseOrRefuse(`SELECT * FROM t WHERE a = ${text}`);
        expect(performance.now() - started).to.be.below(500);
      }),
      { numRuns: 60 },
    );
    expectLinear('parseStatement', parseStatement, (size) => [
      ...classicAttacks(size),
      `SELECT ${'a, '.repeat(size / 3)}1`,
      `SELECT ${'x = y OR '.repeat(size / 8)}1`,
      `SELECT (${'a, '.repeat(size / 3)}a`,
      `SELECT 1 IN (${'1, '.repeat(size / 3)}`,
      `${'((((1'.repeat(size / 5)}`,
      `SELECT ${'(SELECT 1) + '.repeat(size / 13)}1`,
    ]);
  });

  it('(b) parses generated statements with junk appended into a VivaceError, never another error', () => {
    fc.assert(
      fc.property(statement, fc.constantFrom(')', '(', ',', "'", '"', ';x', '`', '@', 'FROM', '[', '::'), fc.nat(), (sql, junk, at) => {
        const cut = at % (sql.length + 1);
        parseOrRefuse(sql.slice(0, cut) + junk + sql.slice(cut));
      }),
      { numRuns: 300 },
    );
  });
});
