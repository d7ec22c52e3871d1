// Recognises the Presto statements DuckDB does not know (SHOW ..., USE, SET SESSION, PREPARE, EXECUTE,
// DESCRIBE INPUT/OUTPUT, EXPLAIN, transactions). Anything else, or a form it does not fully match,
// is `undefined`: DuckDB then parses it and reports its own error.
import { TokenCursor, tokenize, stripTrailingSemicolons, splitTopLevel, type Token } from './sql-tokens.js';

export interface LikeFilter {
  pattern: string;
  escape?: string;
}

export type DialectStatement =
  | { kind: 'showCatalogs'; like?: LikeFilter }
  | { kind: 'showSchemas'; catalog?: string; like?: LikeFilter }
  | { kind: 'showTables'; schema?: string[]; like?: LikeFilter }
  | { kind: 'showColumns'; table: string[]; like?: LikeFilter }
  | { kind: 'showCreateTable'; table: string[] }
  | { kind: 'showFunctions'; like?: LikeFilter }
  | { kind: 'showSession'; like?: LikeFilter }
  | { kind: 'describeInput'; name: string }
  | { kind: 'describeOutput'; name: string }
  | { kind: 'explain'; analyze: boolean; statement: string }
  | { kind: 'use'; catalog?: string; schema: string }
  | { kind: 'setSession'; name: string; value: Token[]; valueText: string }
  | { kind: 'resetSession'; name: string }
  | { kind: 'prepare'; name: string; statement: string }
  | { kind: 'execute'; name: string; parameters: string[] }
  | { kind: 'executeImmediate'; statement: string; parameters: string[] }
  | { kind: 'deallocate'; name: string }
  | { kind: 'startTransaction' }
  | { kind: 'commit' }
  | { kind: 'rollback' };

/** Statements start with one of these, or mention information_schema (see information-schema.ts). */
const LEADING = new Set(['show', 'describe', 'desc', 'use', 'set', 'reset', 'prepare', 'execute', 'deallocate', 'explain', 'start', 'begin', 'commit', 'rollback']);

export function parseDialectStatement(sql: string): DialectStatement | undefined {
  const text = stripTrailingSemicolons(sql);
  const tokens = tokenize(text);
  if (tokens[0]?.kind !== 'word' || !LEADING.has(tokens[0].value.toLowerCase())) return undefined;
  const c = new TokenCursor(tokens, text);
  const statement = recognise(c);
  return statement && c.done ? statement : undefined;
}

function recognise(c: TokenCursor): DialectStatement | undefined {
  if (c.keywords('show')) return show(c);
  if (c.keywords('describe') || c.keywords('desc')) return describe(c);
  if (c.keywords('use')) {
    const name = c.qualifiedName();
    if (!name || name.length > 2) return undefined;
    return name.length === 2 ? { kind: 'use', catalog: name[0], schema: name[1]! } : { kind: 'use', schema: name[0]! };
  }
  if (c.keywords('set', 'session')) {
    const name = c.qualifiedName();
    if (!name || name.length > 2 || !c.punct('=')) return undefined;
    const valueText = c.rest();
    c.skipToEnd();
    return valueText === '' ? undefined : { kind: 'setSession', name: name.join('.'), value: tokenize(valueText), valueText };
  }
  if (c.keywords('reset', 'session')) {
    const name = c.qualifiedName();
    return name && name.length <= 2 ? { kind: 'resetSession', name: name.join('.') } : undefined;
  }
  if (c.keywords('prepare')) {
    const name = c.identifier();
    if (name === undefined || !c.keywords('from')) return undefined;
    const statement = c.rest();
    c.skipToEnd();
    return statement === '' ? undefined : { kind: 'prepare', name, statement };
  }
  if (c.keywords('execute', 'immediate')) {
    const statement = c.string();
    if (statement === undefined) return undefined;
    return { kind: 'executeImmediate', statement, parameters: using(c) ?? [] };
  }
  if (c.keywords('execute')) {
    const name = c.identifier();
    if (name === undefined) return undefined;
    const parameters = using(c);
    // DuckDB's own `EXECUTE name(1, 2)` is not ours.
    if (parameters === undefined && !c.done) return undefined;
    return { kind: 'execute', name, parameters: parameters ?? [] };
  }
  if (c.keywords('deallocate', 'prepare')) {
    const name = c.identifier();
    return name === undefined ? undefined : { kind: 'deallocate', name };
  }
  if (c.keywords('explain')) return explain(c);
  if (c.keywords('start', 'transaction') || c.keywords('begin')) {
    if (!c.keywords('transaction')) c.keywords('work');
    // Isolation level and access mode are accepted and ignored: DuckDB has snapshot isolation only.
    c.skipToEnd();
    return { kind: 'startTransaction' };
  }
  if (c.keywords('commit')) {
    c.keywords('work');
    return { kind: 'commit' };
  }
  if (c.keywords('rollback')) {
    c.keywords('work');
    return { kind: 'rollback' };
  }
  return undefined;
}

function show(c: TokenCursor): DialectStatement | undefined {
  if (c.keywords('catalogs')) return withLike(c, (l) => ({ kind: 'showCatalogs', like: l }));
  if (c.keywords('schemas')) {
    let catalog: string | undefined;
    if (c.keywords('from') || c.keywords('in')) {
      catalog = c.identifier();
      if (catalog === undefined) return undefined;
    }
    return withLike(c, (l) => ({ kind: 'showSchemas', catalog, like: l }));
  }
  if (c.keywords('tables')) {
    let schema: string[] | undefined;
    if (c.keywords('from') || c.keywords('in')) {
      schema = c.qualifiedName();
      if (!schema || schema.length > 2) return undefined;
    }
    return withLike(c, (l) => ({ kind: 'showTables', schema, like: l }));
  }
  if (c.keywords('columns')) {
    if (!(c.keywords('from') || c.keywords('in'))) return undefined;
    const table = c.qualifiedName();
    return table ? withLike(c, (l) => ({ kind: 'showColumns', table, like: l })) : undefined;
  }
  if (c.keywords('create', 'table')) {
    const table = c.qualifiedName();
    return table ? { kind: 'showCreateTable', table } : undefined;
  }
  if (c.keywords('functions')) return withLike(c, (l) => ({ kind: 'showFunctions', like: l }));
  if (c.keywords('session')) return withLike(c, (l) => ({ kind: 'showSession', like: l }));
  return undefined;
}

function describe(c: TokenCursor): DialectStatement | undefined {
  // `DESCRIBE input` alone is a table named input; `DESCRIBE INPUT name` is the prepared-statement form.
  const second = c.peek(1);
  if (second && second.kind !== 'punct' && c.keywords('input')) {
    const name = c.identifier();
    return name === undefined ? undefined : { kind: 'describeInput', name };
  }
  if (second && second.kind !== 'punct' && c.keywords('output')) {
    const name = c.identifier();
    return name === undefined ? undefined : { kind: 'describeOutput', name };
  }
  const table = c.qualifiedName();
  return table ? { kind: 'showColumns', table } : undefined;
}

function explain(c: TokenCursor): DialectStatement | undefined {
  const analyze = c.keywords('analyze');
  if (analyze) c.keywords('verbose');
  // (FORMAT TEXT, TYPE DISTRIBUTED): accepted and ignored; DuckDB has one plan form.
  if (c.peek()?.value === '(' && c.peek(1)?.kind === 'word' && ['format', 'type'].includes(c.peek(1)!.value.toLowerCase())) {
    c.punct('(');
    while (!c.done && !c.punct(')')) {
      if (c.identifier() === undefined && !c.punct(',')) return undefined;
    }
  }
  const statement = c.rest();
  c.skipToEnd();
  return statement === '' ? undefined : { kind: 'explain', analyze, statement };
}

/**
 * Builds the statement with its optional `LIKE 'pattern' [ESCAPE 'c']`; a pattern that is not a
 * string literal leaves the statement unrecognised.
 */
function withLike(c: TokenCursor, make: (like: LikeFilter | undefined) => DialectStatement): DialectStatement | undefined {
  if (!c.keywords('like')) return make(undefined);
  const pattern = c.string();
  if (pattern === undefined) return undefined;
  if (!c.keywords('escape')) return make({ pattern });
  const escape = c.string();
  return escape === undefined ? undefined : make({ pattern, escape });
}

/** `USING expr, ...` after EXECUTE, as expression texts; undefined when there is no USING. */
function using(c: TokenCursor): string[] | undefined {
  if (!c.keywords('using')) return undefined;
  const rest = c.rest();
  c.skipToEnd();
  return splitTopLevel(rest);
}
