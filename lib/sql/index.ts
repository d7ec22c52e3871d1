// The SQL front end: Presto/Trino text to one immutable tree, its traversal and its canonical printing.
export * from './ast.js';
export { parseStatement, parseExpression, parseDataType, DEFAULT_MAX_DEPTH, type ParseOptions } from './parser.js';
export { tokenize, isReservedWord, KEYWORDS, RESERVED_KEYWORDS, type Token, type TokenKind } from './lexer.js';
export { forEachChild, childrenOf, walk, findAll, mapTree } from './tree-walk.js';
export { positionAt, syntaxError, type TextPosition } from './syntax-error.js';
export { formatSql, expression as formatExpression, dataType as formatDataType, identifier as formatIdentifier, quoteIdentifier, quoteString } from './sql-formatter.js';
