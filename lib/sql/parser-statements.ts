// The `statement` rule: which statement a text is, and the session and metadata statements: EXPLAIN, SHOW,
// DESCRIBE, USE, SET / RESET, transactions, PREPARE / EXECUTE / DEALLOCATE, TRUNCATE, ANALYZE, REFRESH.
import type {
  ExplainOption,
  Expression,
  Identifier,
  Isolation,
  QualifiedName,
  Statement,
  Table,
  TransactionAccessMode,
} from './ast.js';
import { DmlParser } from './parser-dml.js';

/** Keywords that begin a statement other than a query, as Trino lists them when a statement is expected. */
const STATEMENT_KEYWORDS = [
  'ALTER',
  'ANALYZE',
  'CALL',
  'COMMENT',
  'COMMIT',
  'CREATE',
  'DEALLOCATE',
  'DELETE',
  'DENY',
  'DESC',
  'DESCRIBE',
  'DROP',
  'EXECUTE',
  'EXPLAIN',
  'GRANT',
  'INSERT',
  'MERGE',
  'PREPARE',
  'REFRESH',
  'RESET',
  'REVOKE',
  'ROLLBACK',
  'SET',
  'SHOW',
  'START',
  'TRUNCATE',
  'UPDATE',
  'USE',
];
const STATEMENT_KEYWORD_SET = new Set(STATEMENT_KEYWORDS);

type LikeFilter = { likePattern: string | undefined; escape: string | undefined };

export abstract class StatementParser extends DmlParser {
  protected parseStatementRule(): Statement {
    this.enter();
    const start = this.tok.start;
    for (const kw of STATEMENT_KEYWORDS) this.expecting(`'${kw}'`);
    this.expecting('<query>');
    const statement = this.statementByKeyword(start) ?? this.queryStatement();
    this.leave();
    return statement;
  }

  private queryStatement(): Statement {
    if (!this.isQueryStartAt(this.pos) && !this.isSym('(')) this.fail();
    return this.parseQuery();
  }

  /** Does a statement start at token index `i`? */
  private isStatementStartAt(i: number): boolean {
    const t = this.tokens[i];
    return STATEMENT_KEYWORD_SET.has(t.keyword ?? '') || this.isQueryStartAt(i) || this.isSym('(', t);
  }

  private statementByKeyword(start: number): Statement | undefined {
    switch (this.tok.keyword) {
      case 'SELECT':
      case 'VALUES':
      case 'WITH':
      case 'TABLE':
        return undefined;
      case 'CREATE':
        return this.createStatement(start);
      case 'DROP':
        return this.dropStatement(start);
      case 'ALTER':
        return this.alterStatement(start);
      case 'COMMENT':
        return this.commentStatement(start);
      case 'GRANT':
      case 'REVOKE':
      case 'DENY':
        return this.grantStatement(start);
      case 'EXPLAIN':
        return this.explain(start);
      case 'SHOW':
        return this.show(start);
      case 'DESCRIBE':
      case 'DESC':
        return this.describe(start);
      case 'USE': {
        this.advance();
        const first = this.identifier();
        const schema = this.acceptSym('.') ? this.identifier() : undefined;
        return { type: 'Use', catalog: schema ? first : undefined, schema: schema ?? first, location: this.loc(start) };
      }
      case 'SET':
        return this.set(start);
      case 'RESET': {
        this.advance();
        this.expectKw('SESSION');
        if (this.atKw('AUTHORIZATION') && !this.isSym('.', this.peek())) {
          this.advance();
          return this.other('ResetSessionAuthorization', start);
        }
        return { type: 'ResetSession', name: this.qualifiedName(), location: this.loc(start) };
      }
      case 'START':
        return this.startTransaction(start);
      case 'COMMIT':
      case 'ROLLBACK': {
        const type = this.advance().keyword === 'COMMIT' ? 'Commit' : 'Rollback';
        this.acceptKw('WORK');
        return { type, location: this.loc(start) };
      }
      case 'PREPARE': {
        this.advance();
        const name = this.identifier();
        this.expectKw('FROM');
        const statement = this.parseStatementRule();
        return { type: 'Prepare', name, statement, location: this.loc(start) };
      }
      case 'DEALLOCATE':
        this.advance();
        this.expectKw('PREPARE');
        return { type: 'Deallocate', name: this.identifier(), location: this.loc(start) };
      case 'EXECUTE':
        return this.execute(start);
      case 'INSERT':
        return this.insert(start);
      case 'DELETE':
        return this.deleteStatement(start);
      case 'UPDATE':
        return this.update(start);
      case 'MERGE':
        return this.merge(start);
      case 'TRUNCATE':
        this.advance();
        this.expectKw('TABLE');
        return { type: 'TruncateTable', name: this.qualifiedName(), location: this.loc(start) };
      case 'CALL':
        return this.callStatement(start);
      case 'ANALYZE': {
        this.advance();
        const name = this.qualifiedName();
        this.withProperties();
        return this.other('Analyze', start, name);
      }
      case 'REFRESH':
        this.advance();
        this.expectKw('MATERIALIZED');
        this.expectKw('VIEW');
        return this.other('RefreshMaterializedView', start, this.qualifiedName());
      default:
        return undefined;
    }
  }

  /** EXPLAIN [(option, ...)] statement | EXPLAIN ANALYZE [VERBOSE] statement */
  private explain(start: number): Statement {
    this.advance();
    const next = this.peek();
    const analyze =
      this.atKw('ANALYZE') &&
      (this.isStatementStartAt(this.pos + 1) || (next.keyword === 'VERBOSE' && this.isStatementStartAt(this.pos + 2)));
    let verbose = false;
    const options: ExplainOption[] = [];
    if (analyze) {
      this.advance();
      verbose = this.acceptKw('VERBOSE');
    } else if (this.atSym('(') && (next.keyword === 'TYPE' || next.keyword === 'FORMAT')) {
      this.advance();
      do {
        const optionStart = this.tok.start;
        const option = this.expectOneOf(['TYPE', 'FORMAT']);
        const values = option === 'TYPE' ? ['LOGICAL', 'DISTRIBUTED', 'VALIDATE', 'IO'] : ['TEXT', 'GRAPHVIZ', 'JSON'];
        const value = this.expectOneOf(values);
        options.push({ type: 'ExplainOption', option, value, location: this.loc(optionStart) });
      } while (this.acceptSym(','));
      this.expectSym(')');
    }
    const statement = this.parseStatementRule();
    return { type: 'Explain', analyze, verbose, options, statement, location: this.loc(start) };
  }

  /** [LIKE string [ESCAPE string]] */
  private likeFilter(): LikeFilter {
    if (!this.acceptKw('LIKE')) return { likePattern: undefined, escape: undefined };
    const likePattern = this.stringLiteral().value;
    const escape = this.acceptKw('ESCAPE') ? this.stringLiteral().value : undefined;
    return { likePattern, escape };
  }

  private fromOrIn(): boolean {
    return this.acceptKw('FROM') || this.acceptKw('IN');
  }

  private show(start: number): Statement {
    this.advance();
    const what = this.expectOneOf(['CATALOGS', 'SCHEMAS', 'TABLES', 'COLUMNS', 'CREATE', 'STATS', 'FUNCTIONS', 'SESSION', 'GRANTS', 'CURRENT', 'ROLES', 'ROLE']);
    switch (what) {
      case 'CATALOGS':
        return { type: 'ShowCatalogs', ...this.likeFilter(), location: this.loc(start) };
      case 'SCHEMAS': {
        const catalog = this.fromOrIn() ? this.identifier() : undefined;
        return { type: 'ShowSchemas', catalog, ...this.likeFilter(), location: this.loc(start) };
      }
      case 'TABLES': {
        const schema = this.fromOrIn() ? this.qualifiedName() : undefined;
        return { type: 'ShowTables', schema, ...this.likeFilter(), location: this.loc(start) };
      }
      case 'COLUMNS': {
        if (!this.fromOrIn()) this.fail();
        const table = this.qualifiedName();
        return { type: 'ShowColumns', table, ...this.likeFilter(), location: this.loc(start) };
      }
      case 'FUNCTIONS': {
        const schema = this.fromOrIn() ? this.qualifiedName() : undefined;
        return { type: 'ShowFunctions', schema, ...this.likeFilter(), location: this.loc(start) };
      }
      case 'SESSION':
        return { type: 'ShowSession', ...this.likeFilter(), location: this.loc(start) };
      case 'CREATE': {
        const kind = this.expectOneOf(['TABLE', 'SCHEMA', 'VIEW', 'MATERIALIZED']);
        if (kind === 'MATERIALIZED') this.expectKw('VIEW');
        const objectType = kind === 'MATERIALIZED' ? 'MATERIALIZED VIEW' : kind;
        return { type: 'ShowCreate', objectType, name: this.qualifiedName(), location: this.loc(start) };
      }
      case 'STATS':
        return this.showStats(start);
      case 'GRANTS': {
        const name = this.acceptKw('ON') ? this.grantObject() : undefined;
        return this.other('ShowGrants', start, name);
      }
      default: {
        // SHOW [CURRENT] ROLES [FROM|IN catalog] | SHOW ROLE GRANTS [FROM|IN catalog]
        if (what === 'CURRENT') this.expectKw('ROLES');
        if (what === 'ROLE') this.expectKw('GRANTS');
        if (this.fromOrIn()) this.identifier();
        return this.other(what === 'ROLE' ? 'ShowRoleGrants' : 'ShowRoles', start);
      }
    }
  }

  /** SHOW STATS FOR name | SHOW STATS FOR (query) */
  private showStats(start: number): Statement {
    this.expectKw('FOR');
    if (this.atSym('(')) {
      const open = this.advance().start;
      const query = this.parseQuery();
      this.expectSym(')');
      return { type: 'ShowStats', relation: { type: 'TableSubquery', query, location: this.loc(open) }, location: this.loc(start) };
    }
    const name = this.qualifiedName();
    const relation: Table = { type: 'Table', name, queryPeriod: undefined, location: name.location };
    return { type: 'ShowStats', relation, location: this.loc(start) };
  }

  /** DESCRIBE INPUT name | DESCRIBE OUTPUT name | DESCRIBE table | DESC table */
  private describe(start: number): Statement {
    const keyword = this.advance().keyword;
    const kind = this.tok.keyword;
    if (keyword === 'DESCRIBE' && (kind === 'INPUT' || kind === 'OUTPUT') && this.isIdentifierToken(this.peek())) {
      this.advance();
      return { type: kind === 'INPUT' ? 'DescribeInput' : 'DescribeOutput', name: this.identifier(), location: this.loc(start) };
    }
    this.expecting("'INPUT'");
    this.expecting("'OUTPUT'");
    const table = this.qualifiedName();
    return { type: 'ShowColumns', table, likePattern: undefined, escape: undefined, location: this.loc(start) };
  }

  /** SET SESSION name = value | SET SESSION AUTHORIZATION user | SET TIME ZONE ... | SET PATH ... | SET ROLE ... */
  private set(start: number): Statement {
    this.advance();
    const what = this.expectOneOf(['SESSION', 'TIME', 'PATH', 'ROLE']);
    if (what === 'SESSION') {
      if (this.atKw('AUTHORIZATION') && !this.isSym('=', this.peek()) && !this.isSym('.', this.peek())) {
        this.advance();
        this.expecting('<string>');
        if (this.isStringToken()) this.stringLiteral();
        else this.identifier();
        return this.other('SetSessionAuthorization', start);
      }
      const name = this.qualifiedName();
      this.expectSym('=');
      const value = this.parseExpression();
      return { type: 'SetSession', name, value, location: this.loc(start) };
    }
    if (what === 'TIME') {
      this.expectKw('ZONE');
      const next = this.peek();
      const local = this.atKw('LOCAL') && (next.kind === 'eof' || this.isSym(';', next));
      const timeZone = local ? (this.advance(), undefined) : this.parseExpression();
      return { type: 'SetTimeZone', timeZone, location: this.loc(start) };
    }
    if (what === 'PATH') {
      const path: QualifiedName[] = [];
      do {
        const first = this.identifier();
        const parts: Identifier[] = this.acceptSym('.') ? [first, this.identifier()] : [first];
        path.push({ type: 'QualifiedName', parts, location: this.loc(first.location.start) });
      } while (this.acceptSym(','));
      return { type: 'SetPath', path, location: this.loc(start) };
    }
    const role = this.acceptKw('ALL') ? 'ALL' : this.acceptKw('NONE') ? 'NONE' : this.identifier();
    const catalog = this.acceptKw('IN') ? this.identifier() : undefined;
    return { type: 'SetRole', role, catalog, location: this.loc(start) };
  }

  /** START TRANSACTION [mode (',' mode)*] */
  private startTransaction(start: number): Statement {
    this.advance();
    this.expectKw('TRANSACTION');
    const transactionModes: (Isolation | TransactionAccessMode)[] = [];
    if (this.atKw('ISOLATION') || this.atKw('READ')) {
      do {
        const modeStart = this.tok.start;
        if (this.acceptKw('ISOLATION')) {
          this.expectKw('LEVEL');
          let level: Isolation['level'];
          if (this.acceptKw('SERIALIZABLE')) level = 'SERIALIZABLE';
          else if (this.acceptKw('REPEATABLE')) level = (this.expectKw('READ'), 'REPEATABLE READ');
          else level = (this.expectKw('READ'), this.expectOneOf(['UNCOMMITTED', 'COMMITTED']) === 'COMMITTED' ? 'READ COMMITTED' : 'READ UNCOMMITTED');
          transactionModes.push({ type: 'Isolation', level, location: this.loc(modeStart) });
        } else {
          this.expectKw('READ');
          const readOnly = this.expectOneOf(['ONLY', 'WRITE']) === 'ONLY';
          transactionModes.push({ type: 'TransactionAccessMode', readOnly, location: this.loc(modeStart) });
        }
      } while (this.acceptSym(','));
    }
    return { type: 'StartTransaction', transactionModes, location: this.loc(start) };
  }

  /** EXECUTE name [USING e, ...] | EXECUTE IMMEDIATE 'sql' [USING e, ...] */
  private execute(start: number): Statement {
    this.advance();
    if (this.atKw('IMMEDIATE') && this.isStringToken(this.peek())) {
      this.advance();
      const statement = this.stringLiteral();
      return { type: 'ExecuteImmediate', statement, parameters: this.using(), location: this.loc(start) };
    }
    const name = this.identifier();
    return { type: 'Execute', name, parameters: this.using(), location: this.loc(start) };
  }

  private using(): Expression[] {
    return this.acceptKw('USING') ? this.commaList(() => this.parseExpression()) : [];
  }
}
