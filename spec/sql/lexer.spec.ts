// Trino's lexer rules: token kinds, longest match with ties to the earlier rule, offsets, and what
// becomes an UNRECOGNIZED token (unclosed quotes and comments, characters no rule knows).
import { expect } from 'chai';
import { isReservedWord, tokenize, type TokenKind } from '../../lib/sql/lexer.js';
import { classicAttacks, expectLinear } from '../support/linear-time.js';

/** [kind, text] of each token but the end. */
const lex = (text: string): [TokenKind, string][] =>
  tokenize(text)
    .slice(0, -1)
    .map((t) => [t.kind, t.text]);

describe('tokenize', () => {
  it('reads keywords case-insensitively and keeps identifiers as written', () => {
    const tokens = tokenize('select Foo_1 FROM "My ""T"""');
    expect(tokens.map((t) => t.keyword)).to.deep.equal(['SELECT', undefined, 'FROM', undefined, undefined]);
    expect(lex('select Foo_1 FROM "My ""T"""')).to.deep.equal([
      ['word', 'select'],
      ['word', 'Foo_1'],
      ['word', 'FROM'],
      ['quoted', '"My ""T"""'],
    ]);
    expect(tokens.at(-1)).to.include({ kind: 'eof', text: '<EOF>', start: 28, end: 28 });
  });

  it('gives every token its UTF-16 offsets', () => {
    const tokens = tokenize("SELECT 'é😀', x\n  FROM t");
    expect(tokens.map((t) => [t.start, t.end])).to.deep.equal([
      [0, 6],
      [7, 12],
      [12, 13],
      [14, 15],
      [18, 22],
      [23, 24],
      [24, 24],
    ]);
  });

  it('reads strings with doubled quotes, U& strings, binary literals and parameters', () => {
    expect(lex("'it''s' U&'\\0041' X'DE AD' x'' ?")).to.deep.equal([
      ['string', "'it''s'"],
      ['unicodeString', "U&'\\0041'"],
      ['binary', "X'DE AD'"],
      ['binary', "x''"],
      ['symbol', '?'],
    ]);
    expect(lex("xy'a'")).to.deep.equal([
      ['word', 'xy'],
      ['string', "'a'"],
    ]);
  });

  it('reads numbers as Trino does, the longest rule winning and ties going to the earlier one', () => {
    expect(lex('1 1_000 0x1F 0X_ff 0o17 0b1_01 1.5 .5 1. 1e10 1.5E-3 .5e1')).to.deep.equal([
      ['integer', '1'],
      ['integer', '1_000'],
      ['integer', '0x1F'],
      ['integer', '0X_ff'],
      ['integer', '0o17'],
      ['integer', '0b1_01'],
      ['decimal', '1.5'],
      ['decimal', '.5'],
      ['decimal', '1.'],
      ['double', '1e10'],
      ['double', '1.5E-3'],
      ['double', '.5e1'],
    ]);
    // DIGIT_IDENTIFIER when longer: the parser refuses it once it is used as an identifier.
    expect(lex('1a 1__0 0b102 1e5x 1e')).to.deep.equal([
      ['digitIdentifier', '1a'],
      ['digitIdentifier', '1__0'],
      ['digitIdentifier', '0b102'],
      ['digitIdentifier', '1e5x'],
      ['digitIdentifier', '1e'],
    ]);
    expect(lex('1.5e a.1')).to.deep.equal([
      ['decimal', '1.5'],
      ['word', 'e'],
      ['word', 'a'],
      ['decimal', '.1'],
    ]);
  });

  it('reads every operator and punctuation mark of the grammar', () => {
    const text = '= <> != < <= > >= + - * / % || -> => . , ( ) [ ] : ; ? | ^ $ { } {- -}';
    expect(lex(text).map(([kind, t]) => `${kind}:${t}`)).to.deep.equal(text.split(' ').map((s) => `symbol:${s}`));
  });

  it('drops whitespace and comments, -- to the end of the line and /* */ unnested', () => {
    expect(lex('a -- b\r\nc /* d /* e */ f */\tg')).to.deep.equal([
      ['word', 'a'],
      ['word', 'c'],
      ['word', 'f'],
      ['symbol', '*'],
      ['symbol', '/'],
      ['word', 'g'],
    ]);
    expect(lex('1--1')).to.deep.equal([['integer', '1']]);
  });

  it('makes an UNRECOGNIZED token of what no rule matches, as Trino does', () => {
    expect(lex("'abc")).to.deep.equal([
      ['unrecognized', "'"],
      ['word', 'abc'],
    ]);
    expect(lex('"a')).to.deep.equal([
      ['unrecognized', '"'],
      ['word', 'a'],
    ]);
    expect(lex('/* never closed')).to.deep.equal([
      ['symbol', '/'],
      ['symbol', '*'],
      ['word', 'never'],
      ['word', 'closed'],
    ]);
    expect(lex('@ # ! & ~ \\ \u0000 \u00a0 é 😀 `').map(([kind]) => kind)).to.deep.equal(Array(11).fill('unrecognized'));
    expect(lex('😀')[0][1]).to.equal('😀');
  });

  it('falls back to the longest prefix that closes, as ANTLR does', () => {
    // 'a''b then the end: the string 'a' closes before the doubled quote.
    expect(lex("'a''b")).to.deep.equal([
      ['string', "'a'"],
      ['unrecognized', "'"],
      ['word', 'b'],
    ]);
    expect(lex("X'ab")).to.deep.equal([
      ['word', 'X'],
      ['unrecognized', "'"],
      ['word', 'ab'],
    ]);
    expect(lex('`a`')).to.deep.equal([['backquoted', '`a`']]);
  });

  it('knows which words Trino reserves', () => {
    for (const word of ['select', 'FROM', 'Table', 'cube', 'json_table', 'localtime', 'uescape']) expect(isReservedWord(word), word).to.equal(true);
    for (const word of ['date', 'limit', 'all', 'if', 'row', 'array', 'at', 'tablesample', 'foo']) expect(isReservedWord(word), word).to.equal(false);
  });

  it('stays linear on hostile text', () => {
    expectLinear('tokenize', tokenize, (size) => [
      ...classicAttacks(size),
      "'a''".repeat(size / 4),
      '/* '.repeat(size / 3),
      "X'".repeat(size / 2),
      "U&'".repeat(size / 3),
      '1_'.repeat(size / 2),
      '0x'.repeat(size / 2),
    ]);
  });
});
