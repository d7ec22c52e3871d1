// USE, SET SESSION, RESET SESSION, SET ROLE and SHOW SESSION: nothing changes on the server, the client is
// told (Set-Catalog, Set-Schema, Set-Session, Clear-Session, Set-Role) and sends the session back on later requests.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Session, SessionUpdates } from '../../protocol/types.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import type { LikeFilter } from '../../sql/dialect-statement.js';
import { likeMatcher } from './like-pattern.js';
import { resolveCatalog, resolveSchema } from './catalog-metadata.js';
import { isSessionProperty, sessionPropertyDefinitions, validateSessionProperty } from '../../protocol/session-properties.js';
import type { Expression } from '../../sql/ast.js';
import { sessionValue } from '../../sql/dialect-statement.js';
import { varcharColumns, type ShowResult } from './show-metadata.js';
import { dialectOf } from '../../protocol/header-prefix.js';

/** USE [catalog.]schema: both must exist. Without a catalog the session's (memory by default) is kept. */
export async function useStatement(connection: DuckDBConnection, session: Session, catalog: string | undefined, schema: string): Promise<SessionUpdates> {
  const target = catalog ?? session.catalog ?? 'memory';
  const database = await resolveCatalog(connection, target);
  // As stored: `USE "S2"` on schema s2 must not leave the client sending a name DuckDB spells otherwise.
  const stored = await resolveSchema(connection, database, target, schema);
  // A schema is only valid with a catalog (the client would send Schema without Catalog otherwise).
  return { setCatalog: target, setSchema: stored };
}

/** SET SESSION name = expression: the value as text (a literal as written, anything else evaluated). */
export function setSessionStatement(name: string, value: Expression): SessionUpdates {
  if (name.includes('.')) throw new VivaceError('INVALID_SESSION_PROPERTY', `Session property '${name}' does not exist`);
  // Computed from the tree, never pasted into SQL (pasting it into SELECT CAST((...) AS VARCHAR) ran smuggled statements).
  const text = sessionValue(value);
  return { setSessionProperties: { [name]: validateSessionProperty(name, text) } };
}

/**
 * SET ROLE, as Trino's SetRoleTask with its default system access control, which has no roles: ALL or NONE
 * of the system role (`system=ALL`, no catalog named), a named role ROLE_NOT_FOUND. None of the catalogs
 * manages roles (Trino's processRoleCommandCatalog: NOT_SUPPORTED, after CATALOG_NOT_FOUND). `at`: the
 * statement's `line L:C: ` for these messages.
 */
export async function setRoleStatement(connection: DuckDBConnection, role: 'ALL' | 'NONE' | { name: string }, catalog: string | undefined, at: string): Promise<SessionUpdates> {
  if (catalog !== undefined) {
    await resolveCatalog(connection, catalog).catch((err: unknown) => {
      throw err instanceof VivaceError && err.errorName === 'CATALOG_NOT_FOUND' ? new VivaceError('CATALOG_NOT_FOUND', `${at}Catalog '${catalog}' not found`) : err;
    });
    throw new VivaceError('NOT_SUPPORTED', `${at}Catalog '${catalog}' does not support role management`);
  }
  if (typeof role !== 'string') throw new VivaceError('ROLE_NOT_FOUND', `${at}Role '${role.name}' does not exist`);
  return { setRoles: { system: role } };
}

export function resetSessionStatement(name: string): SessionUpdates {
  if (name.includes('.')) throw new VivaceError('INVALID_SESSION_PROPERTY', `Session property '${name}' does not exist`);
  if (!isSessionProperty(name)) throw new VivaceError('INVALID_SESSION_PROPERTY', `Session property '${name}' does not exist`);
  return { resetSessionProperties: [name] };
}

export function showSession(session: Session, like?: LikeFilter): ShowResult {
  const match = likeMatcher(like);
  return {
    columns: varcharColumns('Name', 'Value', 'Default', 'Type', 'Description'),
    rows: sessionPropertyDefinitions(dialectOf(session.prefix))
      .filter((d) => match(d.name))
      .map((d) => [d.name, Object.hasOwn(session.properties, d.name) ? session.properties[d.name]! : d.defaultValue, d.defaultValue, d.type, d.description]),
  };
}

