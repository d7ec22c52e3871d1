// The DuckDB sandbox: what the instance may reach once the project's own setup is done. This is the
// second line of defence; the first is the SQL gate (lib/sql), which lets only Presto's language through.
import { tmpdir } from 'node:os';
import { join, resolve, sep } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';

/** Instance options that hold from the first statement on: no extension is ever installed or loaded. */
export const SANDBOX_INSTANCE_CONFIG: Readonly<Record<string, string>> = {
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  // LOAD of a file path (an extension built by an attacker) is refused even before the lock.
  allow_unsigned_extensions: 'false',
  allow_community_extensions: 'false',
  // INSTALL writes into the extension directory: one outside every allowed directory fails before any
  // download, and a repository that is a missing local path leaves nothing to download from.
  extension_directory: join(tmpdir(), 'vivace-extensions-disabled'),
  custom_extension_repository: join(tmpdir(), 'vivace-extensions-disabled', 'repository'),
  autoinstall_extension_repository: join(tmpdir(), 'vivace-extensions-disabled', 'repository'),
};

const sqlString = (s: string) => `'${s.split("'").join("''")}'`;

/** A directory as DuckDB compares prefixes: absolute, with one trailing separator (so `/a/b` never admits `/a/bc`). */
export function sandboxDirectory(path: string): string {
  const absolute = resolve(path);
  return absolute.endsWith(sep) ? absolute : `${absolute}${sep}`;
}

/**
 * Closes the instance: only `directories` stay reachable (DuckDB's `allowed_directories`, checked after
 * its own path normalisation, so `..` cannot climb out), every other file system access is off, and the
 * configuration is locked, so no later statement on any connection can SET, RESET or PRAGMA a setting
 * back (including these three). Run it once, after every connection the project needs has been set up:
 * a connection opened later cannot run its own SET statements either.
 */
export async function lockDownEngine(connection: DuckDBConnection, directories: readonly string[]): Promise<void> {
  const list = [...new Set(directories.map(sandboxDirectory))].map(sqlString).join(', ');
  await connection.run(`SET allowed_directories = [${list}]`);
  await connection.run('SET enable_external_access = false');
  await connection.run('SET lock_configuration = true');
}
