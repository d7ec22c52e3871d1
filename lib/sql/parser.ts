// Entry points of the Presto/Trino parser: one statement (trailing ';' allowed), one expression, one type.
// Every failure is a VivaceError SYNTAX_ERROR with Trino's message and line:column.
import type { DataType, Expression, Statement } from './ast.js';
import { DEFAULT_MAX_DEPTH, type ParseOptions } from './parser-base.js';
import { StatementParser } from './parser-statements.js';
import { tooLargeError } from './syntax-error.js';

export type { ParseOptions };
export { DEFAULT_MAX_DEPTH };

class Parser extends StatementParser {
  singleStatement(): Statement {
    const statement = this.parseStatementRule();
    this.endOfInput(true);
    return statement;
  }

  standaloneExpression(): Expression {
    const expression = this.parseExpression();
    this.endOfInput(false);
    return expression;
  }

  standaloneType(): DataType {
    const type = this.parseType();
    this.endOfInput(false);
    return type;
  }

  /** Only <EOF> may follow; after a statement, semicolons first (clients send `SELECT 1;`). */
  private endOfInput(semicolons: boolean): void {
    this.expecting('<EOF>');
    if (semicolons && this.isSym(';')) {
      while (this.isSym(';')) this.advance();
      this.expecting('<EOF>');
    }
    if (this.tok.kind !== 'eof') this.fail();
  }
}

function run<T>(text: string, what: string, options: ParseOptions | undefined, parse: (p: Parser) => T): T {
  try {
    return parse(new Parser(text, what, options));
  } catch (err) {
    // The depth limit keeps the parser well inside the stack; this covers a caller already deep in it.
    if (err instanceof RangeError) throw tooLargeError(text, 0, what);
    throw err;
  }
}

/** Parses one Presto/Trino statement. */
export function parseStatement(sql: string, options?: ParseOptions): Statement {
  return run(sql, 'statement', options, (p) => p.singleStatement());
}

/** Parses one expression (Trino's standaloneExpression). */
export function parseExpression(text: string, options?: ParseOptions): Expression {
  return run(text, 'expression', options, (p) => p.standaloneExpression());
}

/** Parses one data type (Trino's standaloneType), e.g. `map(varchar, array(bigint))`. */
export function parseDataType(text: string, options?: ParseOptions): DataType {
  return run(text, 'type', options, (p) => p.standaloneType());
}
