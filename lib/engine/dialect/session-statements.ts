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
import { catalogPropertyName, decodeCatalogProperty, type CatalogSessionEntry, type CatalogSessionLookup } from '../../protocol/catalog-session-properties.js';
import { allCatalogSessionProperties } from './catalog-session.js';

/** A catalog property SET / RESET SESSION names, as Trino's tasks find it: the catalog first (CATALOG_NOT_FOUND), then the property. */
function catalogEntry(name: string, catalogs: CatalogSessionLookup | undefined): CatalogSessionEntry | undefined {
  const parsed = catalogPropertyName(name);
  if (!parsed) return undefined;
  if (!catalogs?.exists(parsed.catalog)) throw new VivaceError('CATALOG_NOT_FOUND', `Catalog '${parsed.catalog}' not found`);
  const entry = catalogs.properties(parsed.catalog).find((e) => e.property.name === parsed.property);
  if (!entry) throw new VivaceError('INVALID_SESSION_PROPERTY', `Session property '${name}' does not exist`);
  return entry;
}

/**
 * USE [catalog.]schema: both must exist. Without a catalog the session's is kept, else `defaultCatalog`
 * (the memory catalog); with neither, Trino's UseTask: MISSING_CATALOG_NAME.
 */
export async function useStatement(connection: DuckDBConnection, session: Session, catalog: string | undefined, schema: string, defaultCatalog: string | undefined): Promise<SessionUpdates> {
  const target = catalog ?? session.catalog ?? defaultCatalog;
  if (target === undefined) throw new VivaceError('MISSING_CATALOG_NAME', 'Catalog must be specified when session catalog is not set');
  const database = await resolveCatalog(connection, target);
  // As stored: `USE "S2"` on schema s2 must not leave the client sending a name DuckDB spells otherwise.
  const stored = await resolveSchema(connection, database, target, schema);
  // A schema is only valid with a catalog (the client would send Schema without Catalog otherwise).
  return { setCatalog: target, setSchema: stored };
}

/** SET SESSION name = expression: the value as text (a literal as written, anything else evaluated). */
export function setSessionStatement(name: string, value: Expression, catalogs?: CatalogSessionLookup): SessionUpdates {
  const entry = catalogEntry(name, catalogs);
  // Computed from the tree, never pasted into SQL (pasting it into SELECT CAST((...) AS VARCHAR) ran smuggled statements).
  const text = sessionValue(value);
  if (entry) return { setSessionProperties: { [name]: decodeCatalogProperty(name, entry.property, text) } };
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

export function resetSessionStatement(name: string, catalogs?: CatalogSessionLookup): SessionUpdates {
  if (catalogEntry(name, catalogs)) return { resetSessionProperties: [name] };
  if (!isSessionProperty(name)) throw new VivaceError('INVALID_SESSION_PROPERTY', `Session property '${name}' does not exist`);
  return { resetSessionProperties: [name] };
}

/** SHOW SESSION: the system properties, then those of the catalogs `catalogVisible` lets the user see. */
export function showSession(session: Session, like?: LikeFilter, catalogVisible: (catalog: string) => boolean = () => true): ShowResult {
  const match = likeMatcher(like);
  const value = (name: string, defaultValue: string) => (Object.hasOwn(session.properties, name) ? session.properties[name]! : defaultValue);
  const catalogRows = allCatalogSessionProperties(catalogVisible)
    .map(({ catalog, entry }) => ({ name: `${catalog}.${entry.property.name}`, entry }))
    .filter((r) => match(r.name))
    .map(({ name, entry }) => [name, value(name, entry.defaultValue), entry.defaultValue, entry.property.type, entry.property.description]);
  return {
    columns: varcharColumns('Name', 'Value', 'Default', 'Type', 'Description'),
    rows: [
      ...sessionPropertyDefinitions(dialectOf(session.prefix))
        .filter((d) => match(d.name))
        .map((d) => [d.name, value(d.name, d.defaultValue), d.defaultValue, d.type, d.description]),
      ...catalogRows,
    ],
  };
}

