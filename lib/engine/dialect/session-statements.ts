// USE, SET SESSION, RESET SESSION and SHOW SESSION: nothing changes on the server, the client is told
// (Set-Catalog, Set-Schema, Set-Session, Clear-Session) and sends the session back on later requests.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Session, SessionUpdates } from '../../protocol/types.js';
import { VivaceError } from '../../protocol/vivace-error.js';
import type { LikeFilter } from './dialect-parser.js';
import { likeMatcher } from './like-pattern.js';
import { resolveCatalog, resolveSchema } from './catalog-metadata.js';
import { isSessionProperty, sessionPropertyDefinitions, validateSessionProperty } from '../../protocol/session-properties.js';
import type { Token } from './sql-tokens.js';
import { varcharColumns, type ShowResult } from './show-metadata.js';

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
export function setSessionStatement(name: string, value: Token[]): SessionUpdates {
  if (name.includes('.')) throw new VivaceError('INVALID_SESSION_PROPERTY', `Session property '${name}' does not exist`);
  const text = evaluateSessionValue(value);
  return { setSessionProperties: { [name]: validateSessionProperty(name, text) } };
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
    rows: sessionPropertyDefinitions()
      .filter((d) => match(d.name))
      .map((d) => [d.name, Object.hasOwn(session.properties, d.name) ? session.properties[d.name]! : d.defaultValue, d.defaultValue, d.type, d.description]),
  };
}

/**
 * The value of a SET SESSION expression, computed here from its tokens and never pasted into SQL: a
 * string, number or boolean literal, a signed number, or literals joined by `||`. (Pasting the text into
 * `SELECT CAST((...) AS VARCHAR)` ran whatever statements a crafted value closed and opened.)
 */
export function evaluateSessionValue(value: Token[]): string {
  const parts: string[] = [];
  let i = 0;
  for (;;) {
    const t = value[i];
    if (t === undefined) break;
    if (t.kind === 'string') {
      parts.push(t.value);
      i++;
    } else if (t.kind === 'number') {
      parts.push(t.value);
      i++;
    } else if (t.kind === 'punct' && (t.value === '-' || t.value === '+') && value[i + 1]?.kind === 'number') {
      parts.push(t.value === '-' ? `-${value[i + 1]!.value}` : value[i + 1]!.value);
      i += 2;
    } else if (t.kind === 'word' && ['true', 'false'].includes(t.value.toLowerCase())) {
      parts.push(t.value.toLowerCase());
      i++;
    } else {
      break;
    }
    if (i === value.length) return parts.join('');
    // `||` is two '|' punctuation tokens.
    if (value[i]?.value !== '|' || value[i + 1]?.value !== '|') break;
    i += 2;
  }
  throw new VivaceError('NOT_SUPPORTED', 'SET SESSION value must be a literal, or literals joined by ||');
}
