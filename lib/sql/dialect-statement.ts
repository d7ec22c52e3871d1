// The Presto statements the project answers itself (SHOW ..., DESCRIBE, USE, SET/RESET SESSION, PREPARE,
// EXECUTE, DEALLOCATE, EXPLAIN, transactions), read off the parse tree into the dialect layer's terms.
import type { Expression, Identifier, QualifiedName, Query, Statement } from './ast.js';
import { VivaceError } from '../protocol/vivace-error.js';

export interface LikeFilter {
  pattern: string;
  escape?: string;
}

/** EXPLAIN (TYPE ...): absent means the dialect's default (Trino: DISTRIBUTED, prestodb: LOGICAL). */
export type ExplainType = 'LOGICAL' | 'DISTRIBUTED' | 'VALIDATE' | 'IO';
export type ExplainFormat = 'TEXT' | 'GRAPHVIZ' | 'JSON';

export type DialectStatement =
  | { kind: 'showCatalogs'; like?: LikeFilter }
  | { kind: 'showSchemas'; catalog?: string; like?: LikeFilter }
  | { kind: 'showTables'; schema?: string[]; like?: LikeFilter }
  | { kind: 'showColumns'; table: string[]; like?: LikeFilter }
  | { kind: 'showCreateTable'; table: string[] }
  | { kind: 'showCreateView'; view: string[] }
  /** SHOW STATS FOR table / (query): `query` is the tree of `SELECT * FROM <relation>`, translated by the engine. */
  | { kind: 'showStats'; query: Query }
  | { kind: 'showFunctions'; like?: LikeFilter }
  | { kind: 'showSession'; like?: LikeFilter }
  | { kind: 'describeInput'; name: string }
  | { kind: 'describeOutput'; name: string }
  | { kind: 'explain'; analyze: boolean; statement: string; type?: ExplainType; format?: ExplainFormat }
  | { kind: 'use'; catalog?: string; schema: string }
  | { kind: 'setSession'; name: string; value: Expression }
  | { kind: 'resetSession'; name: string }
  /** A named role in lower case, as Trino's SetRoleTask folds it; a catalog as Presto folds names. */
  | { kind: 'setRole'; role: 'ALL' | 'NONE' | { name: string }; catalog?: string }
  | { kind: 'prepare'; name: string; statement: string }
  | { kind: 'execute'; name: string; parameters: readonly Expression[] }
  | { kind: 'executeImmediate'; statement: string; parameters: readonly Expression[] }
  | { kind: 'deallocate'; name: string }
  | { kind: 'startTransaction' }
  | { kind: 'commit' }
  | { kind: 'rollback' };

/** As Presto folds names: unquoted to lower case, quoted as written. */
const name = (id: Identifier) => (id.quoted ? id.value : id.value.toLowerCase());
const names = (q: QualifiedName) => q.parts.map(name);

function like(node: { likePattern: string | undefined; escape: string | undefined }): LikeFilter | undefined {
  if (node.likePattern === undefined) return undefined;
  return node.escape === undefined ? { pattern: node.likePattern } : { pattern: node.likePattern, escape: node.escape };
}

/**
 * The value of a SET SESSION expression, computed from the tree and never pasted into SQL: a string,
 * number or boolean literal, a signed number, or literals joined by `||`.
 */
export function sessionValue(value: Expression): string {
  switch (value.type) {
    case 'StringLiteral':
    case 'DecimalLiteral':
    case 'DoubleLiteral':
      return value.value;
    case 'LongLiteral':
      return value.text;
    case 'BooleanLiteral':
      return String(value.value);
    case 'ArithmeticUnaryExpression':
      if (value.value.type === 'LongLiteral' || value.value.type === 'DecimalLiteral' || value.value.type === 'DoubleLiteral') {
        const digits = sessionValue(value.value);
        return value.sign === '-' ? `-${digits}` : digits;
      }
      break;
    case 'ConcatExpression':
      return sessionValue(value.left) + sessionValue(value.right);
    default:
      break;
  }
  throw new VivaceError('NOT_SUPPORTED', 'SET SESSION value must be a literal, or literals joined by ||');
}

/** The dialect statement `statement` is, or undefined when the engine plans it (queries, DML, DDL). */
export function dialectStatementOf(statement: Statement, sql: string): DialectStatement | undefined {
  const text = (node: { location: { start: number; end: number } }) => sql.slice(node.location.start, node.location.end);
  switch (statement.type) {
    case 'ShowCatalogs':
      return { kind: 'showCatalogs', like: like(statement) };
    case 'ShowSchemas':
      return { kind: 'showSchemas', catalog: statement.catalog ? name(statement.catalog) : undefined, like: like(statement) };
    case 'ShowTables':
      return { kind: 'showTables', schema: statement.schema ? names(statement.schema) : undefined, like: like(statement) };
    case 'ShowColumns':
      return { kind: 'showColumns', table: names(statement.table), like: like(statement) };
    case 'ShowCreate':
      if (statement.objectType === 'VIEW') return { kind: 'showCreateView', view: names(statement.name) };
      if (statement.objectType !== 'TABLE') throw new VivaceError('NOT_SUPPORTED', `SHOW CREATE ${statement.objectType} is not supported`);
      return { kind: 'showCreateTable', table: names(statement.name) };
    case 'ShowStats': {
      const relation = statement.relation;
      const location = relation.location;
      const query: Query = relation.type === 'TableSubquery'
        ? relation.query
        : {
            type: 'Query', with: undefined, orderBy: undefined, offset: undefined, limit: undefined, location,
            body: {
              type: 'QuerySpecification', location, from: relation, where: undefined, groupBy: undefined, having: undefined, windows: [],
              select: { type: 'Select', distinct: false, selectItems: [{ type: 'AllColumns', target: undefined, aliases: [], location }], location },
            },
          };
      return { kind: 'showStats', query };
    }
    case 'ShowFunctions':
      return { kind: 'showFunctions', like: like(statement) };
    case 'ShowSession':
      return { kind: 'showSession', like: like(statement) };
    case 'DescribeInput':
      return { kind: 'describeInput', name: name(statement.name) };
    case 'DescribeOutput':
      return { kind: 'describeOutput', name: name(statement.name) };
    case 'Explain': {
      // As Trino's ExplainRewrite: the first TYPE and the first FORMAT given count.
      const type = statement.options.find((o) => o.option === 'TYPE')?.value as ExplainType | undefined;
      const format = statement.options.find((o) => o.option === 'FORMAT')?.value as ExplainFormat | undefined;
      return {
        kind: 'explain',
        analyze: statement.analyze,
        statement: text(statement.statement),
        ...(type ? { type } : {}),
        ...(format ? { format } : {}),
      };
    }
    case 'Use':
      return statement.catalog ? { kind: 'use', catalog: name(statement.catalog), schema: name(statement.schema) } : { kind: 'use', schema: name(statement.schema) };
    case 'SetSession':
      return { kind: 'setSession', name: names(statement.name).join('.'), value: statement.value };
    case 'ResetSession':
      return { kind: 'resetSession', name: names(statement.name).join('.') };
    case 'SetRole': {
      const role = typeof statement.role === 'string' ? statement.role : { name: statement.role.value.toLowerCase() };
      return statement.catalog ? { kind: 'setRole', role, catalog: name(statement.catalog) } : { kind: 'setRole', role };
    }
    case 'Prepare':
      return { kind: 'prepare', name: name(statement.name), statement: text(statement.statement) };
    case 'Execute':
      return { kind: 'execute', name: name(statement.name), parameters: statement.parameters };
    case 'ExecuteImmediate':
      return { kind: 'executeImmediate', statement: statement.statement.value, parameters: statement.parameters };
    case 'Deallocate':
      return { kind: 'deallocate', name: name(statement.name) };
    case 'StartTransaction':
      return { kind: 'startTransaction' };
    case 'Commit':
      return { kind: 'commit' };
    case 'Rollback':
      return { kind: 'rollback' };
    default:
      return undefined;
  }
}
