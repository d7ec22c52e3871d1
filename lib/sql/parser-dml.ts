// Statements that change rows, and CALL: INSERT, DELETE, UPDATE, MERGE; their targets are Table nodes.
import type { CallArgument, Identifier, Statement, Table, UpdateAssignment } from './ast.js';
import { DdlParser } from './parser-ddl.js';

export abstract class DmlParser extends DdlParser {
  /** A DML target: qualifiedName as a Table. */
  protected targetTable(): Table {
    const name = this.qualifiedName();
    return { type: 'Table', name, queryPeriod: undefined, location: name.location };
  }

  /** INSERT INTO name [(columns)] query */
  protected insert(start: number): Statement {
    this.advance();
    this.expectKw('INTO');
    const target = this.targetTable();
    let columns: Identifier[] | undefined;
    if (this.atSym('(') && !this.isQueryStartAt(this.pos + 1) && !this.isSym('(', this.peek())) columns = this.identifierList();
    const query = this.parseQuery();
    return { type: 'Insert', target, columns, query, location: this.loc(start) };
  }

  protected assignments(): UpdateAssignment[] {
    const list: UpdateAssignment[] = [];
    do {
      const assignmentStart = this.tok.start;
      const name = this.identifier();
      this.expectSym('=');
      const value = this.parseExpression();
      list.push({ type: 'UpdateAssignment', name, value, location: this.loc(assignmentStart) });
    } while (this.acceptSym(','));
    return list;
  }

  /** UPDATE name SET a = e, ... [WHERE condition] */
  protected update(start: number): Statement {
    this.advance();
    const table = this.targetTable();
    this.expectKw('SET');
    const assignments = this.assignments();
    const where = this.acceptKw('WHERE') ? this.parseExpression() : undefined;
    return { type: 'Update', table, assignments, where, location: this.loc(start) };
  }

  /** MERGE INTO target [[AS] alias] USING relation ON condition (WHEN ...)+ */
  protected merge(start: number): Statement {
    this.advance();
    this.expectKw('INTO');
    let target: Extract<Statement, { type: 'Merge' }>['target'] = this.targetTable();
    const hasAs = this.acceptKw('AS');
    if (hasAs || (this.isIdentifierToken() && !this.isKw('USING'))) {
      const alias = this.identifier();
      target = { type: 'AliasedRelation', relation: target, alias, columnNames: undefined, location: this.loc(target.location.start) };
    }
    this.expectKw('USING');
    const source = this.relation();
    this.expectKw('ON');
    const predicate = this.parseExpression();
    const cases: Extract<Statement, { type: 'Merge' }>['cases'][number][] = [];
    do {
      const caseStart = this.expectKw('WHEN').start;
      const matched = !this.acceptKw('NOT');
      this.expectKw('MATCHED');
      const condition = this.acceptKw('AND') ? this.parseExpression() : undefined;
      this.expectKw('THEN');
      if (matched && this.acceptKw('DELETE')) {
        cases.push({ type: 'MergeDelete', condition, location: this.loc(caseStart) });
      } else if (matched) {
        this.expectKw('UPDATE');
        this.expectKw('SET');
        cases.push({ type: 'MergeUpdate', condition, assignments: this.assignments(), location: this.loc(caseStart) });
      } else {
        this.expectKw('INSERT');
        const columns = this.atSym('(') ? this.identifierList() : [];
        this.expectKw('VALUES');
        this.expectSym('(');
        const values = this.commaList(() => this.parseExpression());
        this.expectSym(')');
        cases.push({ type: 'MergeInsert', condition, columns, values, location: this.loc(caseStart) });
      }
    } while (this.atKw('WHEN'));
    return { type: 'Merge', target, source, predicate, cases, location: this.loc(start) };
  }

  /** CALL name(arg, name => arg, ...) */
  protected callStatement(start: number): Statement {
    this.advance();
    const name = this.qualifiedName();
    const args = this.parenthesizedList(() => this.callArgument(), true);
    return { type: 'Call', name, arguments: args, location: this.loc(start) };
  }

  /** expression | identifier '=>' expression */
  protected callArgument(): CallArgument {
    const start = this.tok.start;
    let name: Identifier | undefined;
    if (this.isIdentifierToken() && this.isSym('=>', this.peek())) {
      name = this.identifier();
      this.advance();
    }
    return { type: 'CallArgument', name, value: this.parseExpression(), location: this.loc(start) };
  }

  /** DELETE FROM name [WHERE condition] */
  protected deleteStatement(start: number): Statement {
    this.advance();
    this.expectKw('FROM');
    const table = this.targetTable();
    const where = this.acceptKw('WHERE') ? this.parseExpression() : undefined;
    return { type: 'Delete', table, where, location: this.loc(start) };
  }
}
