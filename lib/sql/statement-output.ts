// What a statement produces, read off its tree: rows, an update count (DML and CREATE TABLE ... AS) or
// nothing (DDL), with the updateType Trino reports for it.
import type { Statement } from './ast.js';

export type StatementOutput =
  | { kind: 'rows' }
  | { kind: 'count'; updateType: string }
  | { kind: 'ddl'; updateType: string };

/** Trino's updateType for statements that are not queries (QueryStateMachine.setUpdateType callers). */
const UPDATE_TYPES: Partial<Record<Statement['type'], string>> = {
  CreateTable: 'CREATE TABLE',
  DropTable: 'DROP TABLE',
  TruncateTable: 'TRUNCATE TABLE',
  RenameTable: 'RENAME TABLE',
  AddColumn: 'ADD COLUMN',
  DropColumn: 'DROP COLUMN',
  RenameColumn: 'RENAME COLUMN',
  SetColumnType: 'SET COLUMN TYPE',
  DropNotNullConstraint: 'DROP NOT NULL CONSTRAINT',
  SetProperties: 'SET PROPERTIES',
  Comment: 'COMMENT',
  CreateSchema: 'CREATE SCHEMA',
  DropSchema: 'DROP SCHEMA',
  RenameSchema: 'RENAME SCHEMA',
  CreateView: 'CREATE VIEW',
  DropView: 'DROP VIEW',
  Call: 'CALL',
};

const COUNTS: Partial<Record<Statement['type'], string>> = {
  Insert: 'INSERT',
  Delete: 'DELETE',
  Update: 'UPDATE',
  Merge: 'MERGE',
  CreateTableAsSelect: 'CREATE TABLE',
};

/** The output of a statement the engine runs itself (the Presto-only ones are the dialect layer's). */
export function statementOutput(statement: Statement): StatementOutput {
  const counted = COUNTS[statement.type];
  if (counted !== undefined) return { kind: 'count', updateType: counted };
  const ddl = UPDATE_TYPES[statement.type];
  if (ddl !== undefined) return { kind: 'ddl', updateType: ddl };
  return { kind: 'rows' };
}
