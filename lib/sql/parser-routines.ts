// SQL routines (CREATE FUNCTION, DROP FUNCTION): the whole of Trino's syntax is checked so real routines
// parse and anything else is a SYNTAX_ERROR, but no tree is kept: the project refuses these statements.
import type { QualifiedName } from './ast.js';
import { TableFunctionParser } from './parser-table-functions.js';

export abstract class RoutineParser extends TableFunctionParser {
  /** FUNCTION functionDeclaration RETURNS type routineCharacteristic* controlStatement; returns the name. */
  protected functionSpecification(): QualifiedName {
    this.expectKw('FUNCTION');
    const name = this.functionDeclaration();
    this.expectKw('RETURNS');
    this.parseType();
    while (this.routineCharacteristic()) {
      // LANGUAGE, [NOT] DETERMINISTIC, RETURNS NULL ON NULL INPUT, CALLED ON NULL INPUT, SECURITY, COMMENT
    }
    this.controlStatement();
    return name;
  }

  /** qualifiedName '(' [[identifier] type (',' ...)*] ')' */
  protected functionDeclaration(): QualifiedName {
    const name = this.qualifiedName();
    this.expectSym('(');
    if (!this.atSym(')')) {
      do {
        if (this.isIdentifierToken() && this.isIdentifierToken(this.peek()) && !this.isKw('ARRAY', this.peek())) this.identifier();
        this.parseType();
      } while (this.acceptSym(','));
    }
    this.expectSym(')');
    return name;
  }

  private routineCharacteristic(): boolean {
    if (this.acceptKw('LANGUAGE')) return (this.identifier(), true);
    if (this.atKw('NOT') || this.atKw('DETERMINISTIC')) {
      this.acceptKw('NOT');
      this.expectKw('DETERMINISTIC');
      return true;
    }
    if (this.atKw('RETURNS') || this.atKw('CALLED')) {
      if (this.advance().keyword === 'RETURNS') this.expectKw('NULL');
      this.expectKw('ON');
      this.expectKw('NULL');
      this.expectKw('INPUT');
      return true;
    }
    if (this.acceptKw('SECURITY')) return (this.expectOneOf(['DEFINER', 'INVOKER']), true);
    if (this.acceptKw('COMMENT')) return (this.stringLiteral(), true);
    return false;
  }

  private controlStatement(): void {
    this.enter();
    // (label ':')? LOOP | WHILE | REPEAT
    if (this.isIdentifierToken() && this.isSym(':', this.peek())) {
      this.skip(2);
      this.expecting("'LOOP'");
      this.expecting("'WHILE'");
      this.expecting("'REPEAT'");
      if (!this.isKw('LOOP') && !this.isKw('WHILE') && !this.isKw('REPEAT')) this.fail();
    }
    for (const kw of ['RETURN', 'SET', 'CASE', 'IF', 'ITERATE', 'LEAVE', 'BEGIN', 'LOOP', 'WHILE', 'REPEAT']) this.expecting(`'${kw}'`);
    switch (this.tok.keyword) {
      case 'RETURN':
        this.advance();
        this.valueExpression();
        break;
      case 'SET':
        this.advance();
        this.identifier();
        this.expectSym('=');
        this.parseExpression();
        break;
      case 'CASE':
        this.advance();
        if (!this.atKw('WHEN')) this.parseExpression();
        do this.conditionalList('WHEN');
        while (this.atKw('WHEN'));
        if (this.acceptKw('ELSE')) this.statementList();
        this.expectKw('END');
        this.expectKw('CASE');
        break;
      case 'IF':
        this.conditionalList('IF');
        while (this.atKw('ELSEIF')) this.conditionalList('ELSEIF');
        if (this.acceptKw('ELSE')) this.statementList();
        this.expectKw('END');
        this.expectKw('IF');
        break;
      case 'ITERATE':
      case 'LEAVE':
        this.advance();
        this.identifier();
        break;
      case 'BEGIN':
        this.advance();
        while (this.atKw('DECLARE')) {
          this.variableDeclaration();
          this.expectSym(';');
        }
        if (!this.atKw('END')) this.statementList();
        this.expectKw('END');
        break;
      case 'LOOP':
        this.advance();
        this.statementList();
        this.expectKw('END');
        this.expectKw('LOOP');
        break;
      case 'WHILE':
        this.advance();
        this.parseExpression();
        this.expectKw('DO');
        this.statementList();
        this.expectKw('END');
        this.expectKw('WHILE');
        break;
      case 'REPEAT':
        this.advance();
        this.statementList();
        this.expectKw('UNTIL');
        this.parseExpression();
        this.expectKw('END');
        this.expectKw('REPEAT');
        break;
      default:
        this.fail();
    }
    this.leave();
  }

  /** keyword expression THEN sqlStatementList */
  private conditionalList(keyword: string): void {
    this.expectKw(keyword);
    this.parseExpression();
    this.expectKw('THEN');
    this.statementList();
  }

  /** (controlStatement ';')+ */
  private statementList(): void {
    do {
      this.controlStatement();
      this.expectSym(';');
    } while (!this.isKw('END') && !this.isKw('ELSE') && !this.isKw('ELSEIF') && !this.isKw('WHEN') && !this.isKw('UNTIL'));
  }

  /** DECLARE identifier (',' identifier)* type [DEFAULT valueExpression] */
  private variableDeclaration(): void {
    this.advance();
    this.commaList(() => this.identifier());
    this.parseType();
    if (this.acceptKw('DEFAULT')) this.valueExpression();
  }
}
