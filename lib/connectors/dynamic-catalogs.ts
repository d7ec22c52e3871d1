// Trino's dynamic catalog management (catalog.management=dynamic): CREATE CATALOG checks a catalog's
// properties as a catalog file's are checked, stores it as `<name>.properties` in the catalog store (Trino's
// catalog.store=file: the catalog directory), and DROP CATALOG removes the file. A created catalog's root is
// user text: it must lie under one of catalog.dynamic-roots, fixed at start, and never reach another
// catalog's tree. Only hive catalogs can be created (one tpch and one memory catalog per cluster here).
import { existsSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { VivaceError } from '../protocol/vivace-error.js';
import type { CatalogConfig, HiveCatalogConfig } from './catalog.types.js';
import { CatalogProperties, PropertyProblem } from './catalog-properties.js';
import { formatPropertiesText, parsePropertiesText } from './properties-text.js';
import { hiveCatalogConfig } from './hive/hive-catalog-properties.js';
import { isUnder } from './catalog-files.js';

/** The store's directory when no catalog directory is in use (the built-in set stays, created catalogs join it). */
export const BUILT_IN_STORE = 'catalog-store';
/** The default dynamic root, under data.directory. */
export const DEFAULT_DYNAMIC_ROOT = 'catalogs';

/** A catalog as the coordinator ships it to workers: its name and its properties as stored. */
export interface ShippedCatalog {
  name: string;
  properties: Record<string, string>;
}

/**
 * The hive catalogs of a dynamic cluster, sent with every task: a worker opens those it lacks, drops the
 * file or created ones no longer listed, and opens again one whose properties changed. A worker that starts
 * later learns them with its first task, whatever its catalog directory held.
 */
export interface CatalogSync {
  catalogs: ShippedCatalog[];
}

/** The store directory: the catalog directory, else `<data.directory>/catalog-store`. */
export function catalogStoreDirectory(catalogDirectory: string | undefined, dataDirectory: string): string {
  return catalogDirectory ?? join(dataDirectory, BUILT_IN_STORE);
}

/**
 * catalog.dynamic-roots as real paths, each created: absolute directories that are not `/`, and that neither
 * hold nor lie in a directory the node keeps for itself (`kept`: tpch's data, the spill directory, the
 * workers' data, the file catalogs' roots) nor hold the data directory.
 */
export function dynamicRootsOf(configured: readonly string[] | undefined, dataDirectory: string, kept: readonly string[]): string[] {
  const roots = configured ?? [join(dataDirectory, DEFAULT_DYNAMIC_ROOT)];
  const data = realOrResolved(dataDirectory);
  const keptReal = kept.map(realOrResolved);
  return roots.map((root) => {
    mkdirSync(root, { recursive: true });
    const real = realpathSync(resolve(root));
    const refuse = (why: string) => new VivaceError('CONFIGURATION_INVALID', `catalog.dynamic-roots: ${root} ${why}`);
    if (real === '/') throw refuse('is the file system root');
    if (real === data || isUnder(data, real)) throw refuse(`holds the data directory ${dataDirectory}`);
    for (const k of keptReal) if (k === real || isUnder(k, real) || isUnder(real, k)) throw refuse(`overlaps ${k}, which this node keeps for itself`);
    return real;
  });
}

const realOrResolved = (path: string) => (existsSync(path) ? realpathSync(path) : resolve(path));

/** The real path `path` will have, symlinks of its existing ancestors resolved (it may not exist yet). */
function futureRealPath(path: string): string {
  const rest: string[] = [];
  let existing = resolve(path);
  while (!existsSync(existing)) {
    const parent = dirname(existing);
    if (parent === existing) break;
    rest.unshift(existing.slice(parent.length + (parent.endsWith('/') ? 0 : 1)));
    existing = parent;
  }
  return join(realpathSync(existing), ...rest);
}

/** Whether the created catalog's root may be `path`: the refusal's message, or undefined. */
export function rootRefusal(path: string, roots: readonly string[], otherRoots: readonly { name: string; root: string }[]): string | undefined {
  // Text is never decoded: a `%` could only be meant as an escape, so it is refused rather than guessed at.
  if (path.includes('%')) return `must not contain '%' (locations are not URI-decoded here): ${path}`;
  if (path.includes('\u0000')) return 'must not contain a NUL character';
  if (path.split('/').some((part) => part === '..' || part === '.')) return `must not contain '.' or '..' segments: ${path}`;
  const real = futureRealPath(path);
  if (!roots.some((root) => real === root || isUnder(real, root))) {
    return `${path} is not under catalog.dynamic-roots (${roots.join(', ')}), symlinks resolved`;
  }
  for (const other of otherRoots) {
    const relation = real === other.root ? 'is the root of' : isUnder(real, other.root) ? 'lies under the root of' : isUnder(other.root, real) ? 'holds the root of' : undefined;
    if (relation) return `${path} ${relation} catalog ${other.name}: two hive catalogs cannot share a tree`;
  }
  return undefined;
}

/**
 * A created hive catalog checked (every property, then its root against `roots` and the other catalogs'),
 * its root directory created only once all passed. Problems are user errors naming the property.
 */
export function createdHiveCatalog(name: string, properties: Record<string, string>, roots: readonly string[], others: readonly CatalogConfig[]): HiveCatalogConfig {
  const p = new CatalogProperties(Object.entries(properties).map(([key, value], i) => ({ key, value, line: i + 1 })));
  const otherRoots = others.filter((c): c is HiveCatalogConfig => c.connector === 'hive' && c.name !== name).map((c) => ({ name: c.name, root: c.root }));
  try {
    if (p.optional('connector.name') !== undefined) p.fail('connector.name', 'is set by USING, not as a property');
    return hiveCatalogConfig(name, p, {
      checkRoot: (path) => {
        const refusal = rootRefusal(path, roots, otherRoots);
        if (refusal !== undefined) throw new Error(refusal);
        mkdirSync(path, { recursive: true });
        // Created: its real path once more (a symlink swapped in meanwhile is refused, never followed).
        const again = rootRefusal(path, roots, otherRoots);
        if (again !== undefined) throw new Error(again);
      },
    });
  } catch (err) {
    // Trino's error for a catalog's properties (CreateCatalogTask: INVALID_CATALOG_PROPERTY).
    if (err instanceof PropertyProblem) throw new VivaceError('INVALID_CATALOG_PROPERTY', `Invalid catalog property '${err.property}': ${err.message}`);
    throw err;
  }
}

/** The properties of a catalog file, as stored (a key twice: the last wins), connector.name left out. */
export function storedProperties(file: string): Record<string, string> {
  const properties: Record<string, string> = {};
  for (const entry of parsePropertiesText(readFileSync(file, 'utf8'))) {
    if (entry.key !== 'connector.name') properties[entry.key] = entry.value;
  }
  return properties;
}

/**
 * The first line of a file CREATE CATALOG stored: in a catalog directory beside an administrator's files,
 * it tells which catalogs' roots came from a user and are held to catalog.dynamic-roots at every start.
 */
export const CREATED_CATALOG_MARK = '# Created by CREATE CATALOG: its root is checked against catalog.dynamic-roots at every start.';

/** `<name>.properties` in `directory`, written whole or not at all (a temporary file renamed over it). */
export function storeCatalogFile(directory: string, name: string, connector: string, properties: Record<string, string>): string {
  mkdirSync(directory, { recursive: true });
  const file = join(directory, `${name}.properties`);
  const temporary = join(directory, `.${name}.properties.${randomBytes(6).toString('hex')}.tmp`);
  const text = `${CREATED_CATALOG_MARK}\n` + formatPropertiesText([{ key: 'connector.name', value: connector }, ...Object.entries(properties).map(([key, value]) => ({ key, value }))]);
  try {
    writeFileSync(temporary, text, { flag: 'wx', mode: 0o600 });
    renameSync(temporary, file);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
  return file;
}

/** Removes a stored catalog's file (gone already: nothing to do). */
export function removeCatalogFile(file: string): void {
  try {
    unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** The order-independent identity of a shipped catalog: equal ones need no reopening. */
export function catalogFingerprint(catalog: ShippedCatalog): string {
  return JSON.stringify([catalog.name, Object.entries(catalog.properties).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))]);
}

/** What a node (coordinator or worker) needs of catalog.management=dynamic: the store and the roots. */
export interface DynamicCatalogSettings {
  store: string;
  roots: string[];
}

/**
 * The dynamic settings of a node's configuration, undefined for static; the roots created and checked
 * against what the node keeps for itself (tpch's data, spill and workers' directories, built-in catalogs' roots).
 */
export function dynamicCatalogSettings(
  config: { catalogManagement?: 'static' | 'dynamic'; catalogDynamicRoots?: string[]; dataDirectory: string; tempDirectory: string },
  catalogDirectory: string | undefined,
  catalogs: readonly CatalogConfig[],
): DynamicCatalogSettings | undefined {
  if (config.catalogManagement !== 'dynamic') return undefined;
  const kept = [
    config.tempDirectory, join(config.dataDirectory, 'workers'),
    ...catalogs.flatMap((c) => (c.connector === 'tpch' ? [c.directory] : c.connector === 'hive' && c.file === undefined ? [c.root] : [])),
  ];
  const settings = { store: catalogStoreDirectory(catalogDirectory, config.dataDirectory), roots: dynamicRootsOf(config.catalogDynamicRoots, config.dataDirectory, kept) };
  checkStoredCatalogs(catalogs, settings, catalogDirectory === undefined);
  return settings;
}

/** Whether a catalog file was stored by CREATE CATALOG: every file of a store of its own, the marked ones of a catalog directory. */
function isCreated(file: string, store: string, ownStore: boolean): boolean {
  if (ownStore) return dirname(file) === store;
  try {
    return readFileSync(file, 'utf8').startsWith(`${CREATED_CATALOG_MARK}\n`);
  } catch {
    return false;
  }
}

/**
 * The catalogs CREATE CATALOG stored, held again at start to what CREATE CATALOG checked: catalog.dynamic-roots
 * may have changed since, or a root been swapped for a symlink out. Such a catalog stops the start with a
 * message naming its file (nothing half-configured is served), as a bad catalog file does.
 */
export function checkStoredCatalogs(catalogs: readonly CatalogConfig[], settings: DynamicCatalogSettings, ownStore: boolean): void {
  const hive = catalogs.filter((c): c is HiveCatalogConfig => c.connector === 'hive');
  for (const catalog of hive) {
    if (catalog.file === undefined || !isCreated(catalog.file, settings.store, ownStore)) continue;
    const others = hive.filter((c) => c.name !== catalog.name).map((c) => ({ name: c.name, root: c.root }));
    const refusal = rootRefusal(catalog.root, settings.roots, others);
    if (refusal !== undefined) throw new VivaceError('CONFIGURATION_INVALID', `${catalog.file}: catalog ${catalog.name} was created by CREATE CATALOG and is not served: its root ${refusal}`);
  }
}
