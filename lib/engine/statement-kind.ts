// What a statement produces, in Presto's terms: rows, an update count (DML, CTAS) or nothing (DDL),
// and the updateType a Presto coordinator reports for it.
import { StatementType } from '@duckdb/node-api';
import { tokenize, type Token } from './dialect/sql-tokens.js';

export type StatementKind =
  | { kind: 'rows' }
  | { kind: 'count'; updateType: string }
  | { kind: 'ddl'; updateType: string };

const ROW_PRODUCING = new Set<StatementType>([StatementType.SELECT, StatementType.EXPLAIN, StatementType.PRAGMA, StatementType.CALL, StatementType.RELATION]);

/** Words that qualify a CREATE/DROP/ALTER without naming what it acts on. */
const MODIFIERS = new Set(['OR', 'REPLACE', 'TEMP', 'TEMPORARY', 'IF', 'NOT', 'EXISTS', 'UNIQUE']);

const upperWord = (t: Token | undefined) => (t?.kind === 'word' ? t.value.toUpperCase() : undefined);

export function classifyStatement(type: StatementType, sql: string): StatementKind {
  if (ROW_PRODUCING.has(type)) return { kind: 'rows' };
  switch (type) {
    case StatementType.INSERT:
      return { kind: 'count', updateType: 'INSERT' };
    case StatementType.DELETE:
      return { kind: 'count', updateType: 'DELETE' };
    case StatementType.UPDATE:
      return { kind: 'count', updateType: 'UPDATE' };
    case StatementType.MERGE_INTO:
      return { kind: 'count', updateType: 'MERGE' };
    case StatementType.CREATE:
    case StatementType.DROP:
    case StatementType.ALTER: {
      // Tokens, not patterns: one linear pass however long the names (a backtracking pattern froze the server).
      const tokens = tokenize(sql);
      let i = 0;
      const verb = upperWord(tokens[i++]) ?? 'CREATE';
      while (MODIFIERS.has(upperWord(tokens[i]) ?? '')) i++;
      const object = upperWord(tokens[i]) ?? '';
      const updateType = `${verb} ${object}`.trim();
      // CREATE TABLE ... AS <query> reports its row count like INSERT (Presto's CTAS).
      if (verb === 'CREATE' && object === 'TABLE' && isCreateTableAs(tokens, i + 1)) return { kind: 'count', updateType };
      return { kind: 'ddl', updateType };
    }
    default:
      return { kind: 'ddl', updateType: upperWord(tokenize(sql)[0]) ?? 'UNKNOWN' };
  }
}

/** After `CREATE ... TABLE`: [IF NOT EXISTS] name [(columns)] AS. */
function isCreateTableAs(tokens: Token[], from: number): boolean {
  return upperWord(tokens[afterNameAndColumns(tokens, from)]) === 'AS';
}

/** The index after `[IF NOT EXISTS] name [(columns)]` starting at `from`. */
function afterNameAndColumns(tokens: Token[], from: number): number {
  let i = from;
  while (MODIFIERS.has(upperWord(tokens[i]) ?? '')) i++;
  // The dotted name: identifiers separated by dots.
  while (tokens[i]?.kind === 'word' || tokens[i]?.kind === 'quoted') {
    i++;
    if (tokens[i]?.kind === 'punct' && tokens[i]!.value === '.') i++;
    else break;
  }
  if (tokens[i]?.kind === 'punct' && tokens[i]!.value === '(') {
    // A column list: skip to its closing parenthesis.
    let depth = 0;
    for (; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (t.kind !== 'punct') continue;
      if (t.value === '(') depth++;
      else if (t.value === ')' && --depth === 0) break;
    }
    i++;
  }
  return i;
}

/**
 * Where the query of `INSERT [OR ...] INTO name [(columns)] <query>` or `CREATE [OR REPLACE] [TEMP] TABLE
 * [IF NOT EXISTS] name [(columns)] AS <query>` starts in `sql`, or undefined for other statements.
 */
export function embeddedQueryStart(sql: string): number | undefined {
  const tokens = tokenize(sql);
  let i = 1;
  const verb = upperWord(tokens[0]);
  if (verb === 'INSERT') {
    if (upperWord(tokens[i]) === 'OR') i += 2;
    if (upperWord(tokens[i]) !== 'INTO') return undefined;
    const at = tokens[afterNameAndColumns(tokens, i + 1)];
    return at?.start;
  }
  if (verb !== 'CREATE') return undefined;
  while (MODIFIERS.has(upperWord(tokens[i]) ?? '')) i++;
  if (upperWord(tokens[i]) !== 'TABLE') return undefined;
  const as = afterNameAndColumns(tokens, i + 1);
  return upperWord(tokens[as]) === 'AS' ? tokens[as + 1]?.start : undefined;
}
