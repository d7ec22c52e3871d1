// CREATE, DROP, ALTER, COMMENT ON and the privilege statements (GRANT, REVOKE, DENY, roles).
import type {
  CatalogStatementParts,
  ColumnDefinition,
  Identifier,
  LikeClause,
  OtherStatement,
  OtherStatementKind,
  PrincipalSpecification,
  Property,
  QualifiedName,
  Statement,
} from './ast.js';
import { RoutineParser } from './parser-routines.js';

export abstract class DdlParser extends RoutineParser {
  /** A statement the project refuses, parsed in full: its kind, main name and source text. */
  protected other(type: OtherStatementKind, start: number, name?: QualifiedName): Statement {
    return { type, name, text: this.text.slice(start, this.lastEnd), location: this.loc(start) };
  }

  /** IF NOT EXISTS (IF is non-reserved: only IF NOT counts) */
  protected ifNotExists(): boolean {
    if (!this.atKw('IF') || !this.isKw('NOT', this.peek())) return false;
    this.skip(2);
    this.expectKw('EXISTS');
    return true;
  }

  protected ifExists(): boolean {
    if (!this.atKw('IF') || !this.isKw('EXISTS', this.peek())) return false;
    this.skip(2);
    return true;
  }

  /** '(' property (',' property)* ')' after WITH */
  protected properties(): Property[] {
    this.expectSym('(');
    const list = this.propertyAssignments();
    this.expectSym(')');
    return list;
  }

  /** identifier '=' (DEFAULT | expression) (',' ...)* */
  protected propertyAssignments(): Property[] {
    const list: Property[] = [];
    do {
      const start = this.tok.start;
      const name = this.identifier();
      this.expectSym('=');
      const next = this.peek();
      const isDefault = this.atKw('DEFAULT') && (this.isSym(',', next) || this.isSym(')', next) || next.kind === 'eof' || this.isSym(';', next));
      const value = isDefault ? (this.advance(), undefined) : this.parseExpression();
      list.push({ type: 'Property', name, value, location: this.loc(start) });
    } while (this.acceptSym(','));
    return list;
  }

  /** [WITH properties], WITH followed by '(' */
  protected withProperties(): Property[] {
    return this.atKw('WITH') && this.isSym('(', this.peek()) ? (this.advance(), this.properties()) : [];
  }

  protected comment(): string | undefined {
    return this.acceptKw('COMMENT') ? this.stringLiteral().value : undefined;
  }

  /** USER identifier | ROLE identifier | identifier */
  protected principal(): PrincipalSpecification {
    const start = this.tok.start;
    let principalType: PrincipalSpecification['principalType'] = 'UNSPECIFIED';
    if ((this.isKw('USER') || this.isKw('ROLE')) && this.isIdentifierToken(this.peek())) {
      principalType = this.advance().keyword as 'USER';
    }
    const name = this.identifier();
    return { type: 'PrincipalSpecification', principalType, name, location: this.loc(start) };
  }

  /** qualifiedName type [NOT NULL] [COMMENT string] [WITH properties] */
  protected columnDefinition(): ColumnDefinition {
    const start = this.tok.start;
    const name = this.qualifiedName();
    const columnType = this.parseType();
    let nullable = true;
    if (this.acceptKw('NOT')) {
      this.expectKw('NULL');
      nullable = false;
    }
    const comment = this.comment();
    const properties = this.withProperties();
    return { type: 'ColumnDefinition', name, columnType, nullable, comment, properties, location: this.loc(start) };
  }

  // ------------------------------------------------------------ CREATE

  protected createStatement(start: number): Statement {
    this.advance();
    if (this.acceptKw('SCHEMA')) {
      const notExists = this.ifNotExists();
      const name = this.qualifiedName();
      const principal = this.acceptKw('AUTHORIZATION') ? this.principal() : undefined;
      const properties = this.withProperties();
      return { type: 'CreateSchema', name, notExists, principal, properties, location: this.loc(start) };
    }
    if (this.acceptKw('CATALOG')) {
      const ifClause = this.ifNotExists();
      const name = this.qualifiedName(this.identifier());
      this.expectKw('USING');
      const connector = this.identifier();
      const comment = this.comment();
      const principal = this.acceptKw('AUTHORIZATION') ? this.principal() : undefined;
      const properties = this.withProperties();
      const catalog: CatalogStatementParts = { ifClause, connector, properties, cascade: false, ...(comment === undefined ? {} : { comment }), ...(principal ? { principal } : {}) };
      return { ...(this.other('CreateCatalog', start, name) as OtherStatement), catalog };
    }
    if (this.acceptKw('ROLE')) {
      const name = this.qualifiedName(this.identifier());
      if (this.atKw('WITH')) {
        this.advance();
        this.expectKw('ADMIN');
        this.grantor();
      }
      if (this.acceptKw('IN')) this.identifier();
      return this.other('CreateRole', start, name);
    }
    let replace = false;
    if (this.acceptKw('OR')) {
      this.expectKw('REPLACE');
      replace = true;
    }
    if (this.atKw('FUNCTION')) return this.other('CreateFunction', start, this.functionSpecification());
    if (this.acceptKw('VIEW')) {
      const name = this.qualifiedName();
      const comment = this.comment();
      const security = this.acceptKw('SECURITY') ? this.expectOneOf(['DEFINER', 'INVOKER']) : undefined;
      this.expectKw('AS');
      const query = this.parseQuery();
      return { type: 'CreateView', name, query, replace, comment, security, location: this.loc(start) };
    }
    if (this.acceptKw('MATERIALIZED')) {
      this.expectKw('VIEW');
      const notExists = this.ifNotExists();
      const name = this.qualifiedName();
      let gracePeriod;
      if (this.acceptKw('GRACE')) {
        this.expectKw('PERIOD');
        this.expecting("'INTERVAL'");
        if (!this.isKw('INTERVAL')) this.fail();
        const interval = this.intervalLiteral();
        if (interval.type !== 'IntervalLiteral') this.errorAt(interval.location.start, 'GRACE PERIOD must be an interval literal with a field');
        gracePeriod = interval;
      }
      const comment = this.comment();
      const properties = this.withProperties();
      this.expectKw('AS');
      const query = this.parseQuery();
      return { type: 'CreateMaterializedView', name, query, replace, notExists, gracePeriod, comment, properties, location: this.loc(start) };
    }
    this.expectKw('TABLE');
    return this.createTable(start, replace);
  }

  private createTable(start: number, replace: boolean): Statement {
    const notExists = this.ifNotExists();
    const name = this.qualifiedName();
    let columnAliases: Identifier[] | undefined;
    if (this.atSym('(')) {
      const next = this.peek(2);
      if (this.isIdentifierToken(this.peek()) && (this.isSym(',', next) || this.isSym(')', next))) {
        columnAliases = this.identifierList();
      } else {
        return this.createTableElements(start, replace, notExists, name);
      }
    }
    const comment = this.comment();
    const properties = this.withProperties();
    this.expectKw('AS');
    let query;
    if (this.isSym('(') && this.isKw('WITH', this.peek())) {
      this.advance();
      query = this.parseQuery();
      this.expectSym(')');
    } else {
      query = this.parseQuery();
    }
    let withData = true;
    if (this.atKw('WITH')) {
      this.advance();
      withData = !this.acceptKw('NO');
      this.expectKw('DATA');
    }
    return { type: 'CreateTableAsSelect', name, columnAliases, query, replace, notExists, comment, properties, withData, location: this.loc(start) };
  }

  private createTableElements(start: number, replace: boolean, notExists: boolean, name: QualifiedName): Statement {
    this.expectSym('(');
    const elements: (ColumnDefinition | LikeClause)[] = [];
    do {
      if (this.atKw('LIKE')) {
        const likeStart = this.advance().start;
        const tableName = this.qualifiedName();
        const option = this.acceptOneOf(['INCLUDING', 'EXCLUDING']) as 'INCLUDING' | 'EXCLUDING' | undefined;
        if (option) this.expectKw('PROPERTIES');
        elements.push({ type: 'LikeClause', tableName, propertiesOption: option, location: this.loc(likeStart) });
      } else {
        elements.push(this.columnDefinition());
      }
    } while (this.acceptSym(','));
    this.expectSym(')');
    const comment = this.comment();
    const properties = this.withProperties();
    return { type: 'CreateTable', name, elements, replace, notExists, comment, properties, location: this.loc(start) };
  }

  // ------------------------------------------------------------ DROP

  protected dropStatement(start: number): Statement {
    this.advance();
    const kind = this.expectOneOf(['TABLE', 'VIEW', 'SCHEMA', 'MATERIALIZED', 'FUNCTION', 'ROLE', 'CATALOG']);
    if (kind === 'MATERIALIZED') this.expectKw('VIEW');
    if (kind === 'ROLE') {
      const name = this.qualifiedName(this.identifier());
      if (this.acceptKw('IN')) this.identifier();
      return this.other('DropRole', start, name);
    }
    const exists = this.ifExists();
    if (kind === 'FUNCTION') return this.other('DropFunction', start, this.functionDeclaration());
    const name = kind === 'CATALOG' ? this.qualifiedName(this.identifier()) : this.qualifiedName();
    const location = () => this.loc(start);
    switch (kind) {
      case 'TABLE':
        return { type: 'DropTable', name, exists, location: location() };
      case 'VIEW':
        return { type: 'DropView', name, exists, location: location() };
      case 'MATERIALIZED':
        return { type: 'DropMaterializedView', name, exists, location: location() };
      default: {
        const cascade = this.acceptOneOf(['CASCADE', 'RESTRICT']) === 'CASCADE';
        if (kind === 'CATALOG') return { ...(this.other('DropCatalog', start, name) as OtherStatement), catalog: { ifClause: exists, properties: [], cascade } };
        return { type: 'DropSchema', name, exists, cascade, location: location() };
      }
    }
  }

  // ------------------------------------------------------------ ALTER

  protected alterStatement(start: number): Statement {
    this.advance();
    const kind = this.expectOneOf(['TABLE', 'SCHEMA', 'VIEW', 'MATERIALIZED']);
    if (kind === 'SCHEMA') {
      const source = this.qualifiedName();
      if (this.acceptKw('SET')) {
        this.expectKw('AUTHORIZATION');
        this.principal();
        return this.other('SetSchemaAuthorization', start, source);
      }
      this.expectKw('RENAME');
      this.expectKw('TO');
      return { type: 'RenameSchema', source, target: this.identifier(), location: this.loc(start) };
    }
    if (kind === 'MATERIALIZED') this.expectKw('VIEW');
    const exists = kind === 'VIEW' ? false : this.ifExists();
    const name = this.qualifiedName();
    if (this.acceptKw('RENAME')) {
      if (kind === 'TABLE' && this.acceptKw('COLUMN')) {
        const columnExists = this.ifExists();
        const source = this.qualifiedName();
        this.expectKw('TO');
        const target = this.identifier();
        return { type: 'RenameColumn', table: name, source, target, tableExists: exists, columnExists, location: this.loc(start) };
      }
      this.expectKw('TO');
      const target = this.qualifiedName();
      if (kind === 'TABLE') return { type: 'RenameTable', source: name, target, exists, location: this.loc(start) };
      return this.other(kind === 'VIEW' ? 'RenameView' : 'RenameMaterializedView', start, name);
    }
    if (this.acceptKw('SET')) {
      if (kind !== 'MATERIALIZED' && this.acceptKw('AUTHORIZATION')) {
        this.principal();
        return this.other(kind === 'TABLE' ? 'SetTableAuthorization' : 'SetViewAuthorization', start, name);
      }
      if (kind === 'VIEW') this.fail();
      this.expectKw('PROPERTIES');
      const properties = this.propertyAssignments();
      const objectType = kind === 'TABLE' ? 'TABLE' : 'MATERIALIZED VIEW';
      return { type: 'SetProperties', objectType, name, properties, location: this.loc(start) };
    }
    if (kind !== 'TABLE') this.fail();
    return this.alterTableColumn(start, name, exists);
  }

  /** ADD COLUMN, DROP COLUMN, ALTER COLUMN ..., EXECUTE procedure */
  private alterTableColumn(start: number, table: QualifiedName, tableExists: boolean): Statement {
    const action = this.expectOneOf(['ADD', 'DROP', 'ALTER', 'EXECUTE']);
    if (action === 'EXECUTE') {
      this.identifier();
      if (this.atSym('(')) this.parenthesizedList(() => this.callArgument(), true);
      if (this.acceptKw('WHERE')) this.parseExpression();
      return this.other('TableExecute', start, table);
    }
    this.expectKw('COLUMN');
    if (action === 'ADD') {
      const columnNotExists = this.ifNotExists();
      const column = this.columnDefinition();
      return { type: 'AddColumn', name: table, column, tableExists, columnNotExists, location: this.loc(start) };
    }
    if (action === 'DROP') {
      const columnExists = this.ifExists();
      const field = this.qualifiedName();
      return { type: 'DropColumn', table, field, tableExists, columnExists, location: this.loc(start) };
    }
    const columnName = this.qualifiedName();
    if (this.acceptKw('DROP')) {
      this.expectKw('NOT');
      this.expectKw('NULL');
      if (columnName.parts.length !== 1) this.errorAt(columnName.location.start, 'Expected a column name, not a qualified name');
      return { type: 'DropNotNullConstraint', table, column: columnName.parts[0], tableExists, location: this.loc(start) };
    }
    this.expectKw('SET');
    this.expectKw('DATA');
    this.expectKw('TYPE');
    const columnType = this.parseType();
    return { type: 'SetColumnType', tableName: table, columnName, columnType, tableExists, location: this.loc(start) };
  }

  /** COMMENT ON TABLE|VIEW|COLUMN name IS string|NULL */
  protected commentStatement(start: number): Statement {
    this.advance();
    this.expectKw('ON');
    const objectType = this.expectOneOf(['TABLE', 'VIEW', 'COLUMN']);
    const name = this.qualifiedName();
    this.expectKw('IS');
    const comment = this.acceptKw('NULL') ? undefined : this.stringLiteral().value;
    return { type: 'Comment', objectType, name, comment, location: this.loc(start) };
  }

  // ------------------------------------------------------------ privileges

  /** GRANT privileges ON object TO principal [WITH GRANT OPTION] | GRANT roles TO principals [...] */
  protected grantStatement(start: number): Statement {
    const verb = this.advance().keyword as 'GRANT' | 'REVOKE' | 'DENY';
    let optionFor = false;
    if (verb === 'REVOKE' && (this.isKw('ADMIN') || this.isKw('GRANT')) && this.isKw('OPTION', this.peek())) {
      optionFor = this.advance().keyword === 'ADMIN';
      this.advance();
      this.expectKw('FOR');
    }
    let allPrivileges = false;
    if (this.atKw('ALL') && this.isKw('PRIVILEGES', this.peek())) {
      this.skip(2);
      allPrivileges = true;
    } else {
      this.commaList(() => this.privilegeOrRole());
    }
    const toOrFrom = verb === 'REVOKE' ? 'FROM' : 'TO';
    if (allPrivileges || verb === 'DENY' || this.atKw('ON')) {
      this.expectKw('ON');
      const name = this.grantObject();
      this.expectKw(toOrFrom);
      this.principal();
      if (verb === 'GRANT' && this.atKw('WITH')) {
        this.advance();
        this.expectKw('GRANT');
        this.expectKw('OPTION');
      }
      return this.other(verb === 'GRANT' ? 'Grant' : verb === 'REVOKE' ? 'Revoke' : 'Deny', start, name);
    }
    if (optionFor && verb !== 'REVOKE') this.fail();
    this.expectKw(toOrFrom);
    this.commaList(() => this.principal());
    if (verb === 'GRANT' && this.atKw('WITH')) {
      this.advance();
      this.expectKw('ADMIN');
      this.expectKw('OPTION');
    }
    if (this.acceptKw('GRANTED')) {
      this.expectKw('BY');
      this.grantor();
    }
    if (this.acceptKw('IN')) this.identifier();
    return this.other(verb === 'GRANT' ? 'GrantRoles' : 'RevokeRoles', start);
  }

  /** CREATE | SELECT | DELETE | INSERT | UPDATE | identifier */
  private privilegeOrRole(): void {
    for (const kw of ['CREATE', 'SELECT', 'DELETE', 'INSERT', 'UPDATE']) if (this.acceptKw(kw)) return;
    this.identifier();
  }

  /** [TABLE | SCHEMA | identifier] qualifiedName */
  protected grantObject(): QualifiedName {
    // entityKind: TABLE, or a word before the name (SCHEMA s); TO / FROM after a name end it instead.
    const next = this.peek();
    if (!this.acceptKw('TABLE') && this.isIdentifierToken() && this.isIdentifierToken(next) && next.keyword !== 'TO' && next.keyword !== 'FROM') {
      this.advance();
    }
    return this.qualifiedName();
  }

  /** principal | CURRENT_USER | CURRENT_ROLE */
  protected grantor(): void {
    if (this.acceptKw('CURRENT_USER') || this.acceptKw('CURRENT_ROLE')) return;
    this.principal();
  }

  protected abstract callArgument(): unknown;
}
