// The catalogs a node serves: Trino's catalog directory (`catalog.config-dir`, by default `etc/catalog`
// beside the config file), one `NAME.properties` per catalog, or the built-in set when there is none.
// Any problem stops the start with one message naming the file, the line and the property: nothing
// half-configured is served. `system` is always there (built in, as in Trino).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { VivaceError } from '../protocol/vivace-error.js';
import type { CatalogConfig, HiveCatalogConfig } from './catalog.types.js';
import { CatalogProperties, PropertyProblem } from './catalog-properties.js';
import { parsePropertiesText, PropertiesSyntaxError } from './properties-text.js';
import { hiveCatalogConfig } from './hive/hive-catalog-properties.js';
import { defaultLakeCatalog } from './hive/default-lake.js';

export interface CatalogDirectoryOptions {
  /** `catalog.config-dir` when the config file sets it (then it must exist). */
  configDirectory?: string;
  /** The file given with --config: the default directory is `catalog` beside it (etc/catalog for etc/config.properties), else `etc/catalog` beside it. */
  configFile?: string;
  /** data.directory: tpch's cache and the built-in lake live under it. */
  dataDirectory: string;
  /**
   * catalog.management=dynamic without a catalog directory: the directory of created catalogs' files, read
   * beside the built-in set (with a catalog directory, created catalogs are files of it).
   */
  createdStore?: string;
}

const SYSTEM = 'system';
/** Names DuckDB keeps for itself, and the prefix of the project's own databases. */
const RESERVED = new Set(['temp', 'main', 'information_schema', 'pg_catalog']);
/**
 * Connectors of one catalog per cluster here (one generated data set, one worker's database), served
 * under their file's name: their DuckDB databases keep these names, which no other connector's catalog takes.
 */
const SINGLE_CONNECTORS = ['tpch', 'memory'] as const;
/** Tpch connector properties Trino users set that change nothing about the data (TpchConfig). */
const TPCH_HARMLESS_INTEGERS = ['tpch.splits-per-node', 'tpch.max-rows-per-page'];

/** The catalog directory in use, or undefined for the built-in set. */
export function catalogDirectory(options: CatalogDirectoryOptions): string | undefined {
  if (options.configDirectory !== undefined) {
    const dir = resolve(options.configFile === undefined ? '.' : dirname(options.configFile), options.configDirectory);
    if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new VivaceError('CONFIGURATION_INVALID', `catalog.config-dir: not a directory: ${dir}`);
    return dir;
  }
  if (options.configFile === undefined) return undefined;
  // Trino's layout, etc/config.properties beside etc/catalog/: `catalog` beside the config file; else
  // `etc/catalog` beside it (a config file in the directory holding etc/).
  const beside = dirname(resolve(options.configFile));
  for (const dir of [join(beside, 'catalog'), join(beside, 'etc', 'catalog')]) {
    if (existsSync(dir) && statSync(dir).isDirectory()) return dir;
  }
  return undefined;
}

/** The built-in set: tpch, memory, system, and the `lake` over <data.directory>/lake (created when missing). */
export function builtInCatalogs(dataDirectory: string): CatalogConfig[] {
  return [
    { name: 'tpch', connector: 'tpch', directory: join(dataDirectory, 'tpch') },
    { name: 'memory', connector: 'memory' },
    { name: SYSTEM, connector: 'system' },
    defaultLakeCatalog(dataDirectory),
  ];
}

/** The catalogs of `options` (the directory's files, else the built-in set), sorted by name. */
export function loadCatalogs(options: CatalogDirectoryOptions): CatalogConfig[] {
  const directory = catalogDirectory(options);
  if (directory === undefined) {
    const builtIn = builtInCatalogs(options.dataDirectory);
    const store = options.createdStore;
    if (store === undefined || !existsSync(store)) return builtIn;
    const created = filesOf(store).map((file) => catalogOfFile(file, options.dataDirectory));
    checkCatalogSet([...builtIn.filter((c) => c.connector === 'hive' || c.connector === 'tpch' || c.connector === 'memory').map((c) => ({ ...c, file: c.file ?? '(built in)' })), ...created]);
    for (const c of created) if (builtIn.some((b) => b.name === c.name)) throw new VivaceError('CONFIGURATION_INVALID', `${c.file}: the catalog ${c.name} is built in`);
    return [...builtIn, ...created].sort((a, b) => (a.name < b.name ? -1 : 1));
  }
  const catalogs: CatalogConfig[] = filesOf(directory).map((file) => catalogOfFile(file, options.dataDirectory));
  checkCatalogSet(catalogs);
  catalogs.push({ name: SYSTEM, connector: 'system' });
  return catalogs.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** A directory's catalog files (`*.properties`, dot files left out: a store's temporary files), sorted. */
function filesOf(directory: string): string[] {
  return readdirSync(directory).filter((n) => n.endsWith('.properties') && !n.startsWith('.') && statSync(join(directory, n)).isFile()).sort().map((n) => join(directory, n));
}

/** One catalog file checked, or a CONFIGURATION_INVALID error naming the file, line and property. */
export function catalogOfFile(file: string, dataDirectory: string): CatalogConfig {
  const name = file.slice(file.lastIndexOf('/') + 1, -'.properties'.length);
  const at = (line: number | undefined) => (line === undefined ? file : `${file}:${line}`);
  const problem = (line: number | undefined, message: string) => new VivaceError('CONFIGURATION_INVALID', `${at(line)}: ${message}`);
  if (name === SYSTEM) throw problem(undefined, 'Catalog name SYSTEM is reserved for internal usage');
  if (!isCatalogName(name) || RESERVED.has(name) || name.startsWith('vivace_')) {
    throw problem(undefined, `'${name}' cannot name a catalog here: use lower-case letters, digits and _ (SQL folds names to lower case), not a name DuckDB or Vivace keeps`);
  }
  let properties: CatalogProperties;
  try {
    properties = new CatalogProperties(parsePropertiesText(readFileSync(file, 'utf8')), file);
  } catch (err) {
    if (err instanceof PropertiesSyntaxError) throw problem(err.line, err.message);
    throw problem(undefined, `cannot be read: ${(err as Error).message}`);
  }
  try {
    const catalog = connectorCatalog(name, properties, dataDirectory);
    properties.checkAllUsed(catalog.connector);
    return catalog;
  } catch (err) {
    if (err instanceof PropertyProblem) throw problem(err.line, `${err.property}: ${err.message}`);
    if (err instanceof VivaceError) throw problem(undefined, err.message);
    throw err;
  }
}

function connectorCatalog(name: string, p: CatalogProperties, dataDirectory: string): CatalogConfig {
  const connector = p.optional('connector.name');
  if (connector === undefined || connector === '') p.fail('connector.name', `Catalog configuration ${p.file} does not contain 'connector.name'`);
  // Trino takes the old dashed names (hive-hadoop2) with a warning, as underscores.
  const normalized = connector.split('-').join('_').toLowerCase();
  const keeper = SINGLE_CONNECTORS.find((c) => c === name);
  if (keeper !== undefined && normalized !== keeper) p.fail('connector.name', `the catalog ${name} must use the ${keeper} connector here (DuckDB keeps the database ${name} for it)`);
  switch (normalized) {
    case 'tpch': {
      for (const property of TPCH_HARMLESS_INTEGERS) p.integer(property, 1);
      p.boolean('tpch.partitioning-enabled', true);
      if (p.take('tpch.column-naming', 'SIMPLE').toUpperCase() !== 'SIMPLE') p.fail('tpch.column-naming', 'only SIMPLE is supported here');
      return { name, file: p.file!, connector: 'tpch', directory: join(dataDirectory, 'tpch') };
    }
    case 'memory':
      return { name, file: p.file!, connector: 'memory' };
    case 'hive':
      return hiveCatalogConfig(name, p);
    case 'system':
      return p.fail('connector.name', 'the system connector is built in: it serves the catalog system, which no file configures');
    default:
      return p.fail('connector.name', `unknown connector '${connector}' (here: tpch, memory, hive)`);
  }
}

/**
 * What no file alone shows: a second tpch or memory catalog, and two hive catalogs over one tree (identical
 * or nested roots: each would list, write and clean up the other's files as its own).
 */
function checkCatalogSet(catalogs: readonly CatalogConfig[]): void {
  const problem = (catalog: CatalogConfig, property: string, message: string) => {
    const line = propertyLine(catalog.file!, property);
    return new VivaceError('CONFIGURATION_INVALID', `${catalog.file}${line === undefined ? '' : `:${line}`}: ${property}: ${message}`);
  };
  for (const connector of SINGLE_CONNECTORS) {
    const [first, second] = catalogs.filter((c) => c.connector === connector);
    if (second) throw problem(second, 'connector.name', `a second ${connector} catalog (${first!.name} is one): one ${connector} catalog per cluster here`);
  }
  const hive = catalogs.filter((c): c is HiveCatalogConfig => c.connector === 'hive');
  for (const [i, later] of hive.entries()) {
    for (const earlier of hive.slice(0, i)) {
      const relation = later.root === earlier.root ? 'is the root of' : isUnder(later.root, earlier.root) ? 'lies under the root of' : isUnder(earlier.root, later.root) ? 'holds the root of' : undefined;
      if (relation) throw problem(later, 'local.location', `${later.root} ${relation} catalog ${earlier.name} (${earlier.file}): two hive catalogs cannot share a tree`);
    }
  }
}

/** Whether `path` lies strictly under `directory` (both absolute and resolved). */
export function isUnder(path: string, directory: string): boolean {
  const rel = relative(directory, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** The line of `property` in a catalog file that was read once already. */
function propertyLine(file: string, property: string): number | undefined {
  return parsePropertiesText(readFileSync(file, 'utf8')).filter((e) => e.key === property).at(-1)?.line;
}

/** A name a catalog may take here: lower-case letters, digits and _, not system, nor a name DuckDB or Vivace keeps. */
export function isServableCatalogName(name: string): boolean {
  return name !== SYSTEM && isCatalogName(name) && !RESERVED.has(name) && !name.startsWith('vivace_');
}

function isCatalogName(name: string): boolean {
  if (name === '' || name.length > 128 || !(name[0]! >= 'a' && name[0]! <= 'z')) return false;
  for (const c of name) if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c === '_')) return false;
  return true;
}
