// Trino's file metastore (hive.metastore=file) on the catalog's directory tree: a schema is
// `<dir>/.<schema>.trinoSchema` beside its directory `<dir>/<schema>/`, a table `<dir>/<schema>/<table>/.trinoSchema`,
// a partition `<dir>/<schema>/<table>/<k=v...>/.trinoSchema` (FileHiveMetastore), JSON as Trino writes it.
// Every file is written whole under a hidden temporary name and renamed into place (or linked, where it must not exist yet).
import { linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { VivaceError } from '../../protocol/vivace-error.js';
import { escapePathName, unescapePathName } from './partition-names.js';

export const SCHEMA_FILE = '.trinoSchema';

export interface HiveColumn {
  name: string;
  /** The Hive type string (`int`, `varchar(10)`, `array<string>`). */
  type: string;
  comment?: string;
  properties?: Record<string, string>;
}

/** DatabaseMetadata's JSON. */
export interface SchemaMetadata {
  writerVersion?: string;
  ownerName: string;
  ownerType: 'USER' | 'ROLE';
  comment?: string;
  parameters: Record<string, string>;
}

/** TableMetadata's JSON (the fields this connector reads and writes). */
export interface TableMetadata {
  writerVersion?: string;
  owner?: string;
  tableType: 'MANAGED_TABLE' | 'EXTERNAL_TABLE' | string;
  dataColumns: HiveColumn[];
  partitionColumns: HiveColumn[];
  parameters: Record<string, string>;
  storageFormat?: string;
  serdeParameters: Record<string, string>;
  externalLocation?: string;
  columnStatistics?: Record<string, unknown>;
}

/** PartitionMetadata's JSON. */
export interface PartitionMetadata {
  writerVersion?: string;
  /**
   * Where the partition's files are (`local:///...`) when not at its name under the table's location: an
   * external table's directory that sync_partition_metadata found under another case (`TAG=x` for tag=x).
   */
  location?: string;
  columns: HiveColumn[];
  parameters: Record<string, string>;
  storageFormat?: string;
  serdeParameters: Record<string, string>;
  columnStatistics?: Record<string, unknown>;
}

/** A schema or table name as a directory name: Hive's escaping; names of dots only (`..`) or hidden (`.x`) are refused. */
export function nameSegment(name: string, kind: 'schema' | 'table'): string {
  if (name === '' || name.startsWith('.')) throw new VivaceError(kind === 'schema' ? 'INVALID_SCHEMA_PROPERTY' : 'INVALID_TABLE_PROPERTY', `Invalid ${kind} name: ${name}`);
  return escapePathName(name);
}

/** Writes `text` to `file` atomically: a hidden temporary file renamed over it (`exclusive`: linked, failing if it exists). */
export function writeFileAtomic(directory: string, file: string, text: string, exclusive = false): void {
  mkdirSync(directory, { recursive: true });
  const temporary = join(directory, `.tmp-${randomUUID()}`);
  writeFileSync(temporary, text);
  try {
    if (exclusive) linkSync(temporary, file);
    else renameSync(temporary, file);
  } finally {
    if (exclusive) rmSync(temporary, { force: true });
  }
}

function readJson<T>(file: string): T | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw new VivaceError('HIVE_METASTORE_ERROR', `Could not read ${file}`, { cause: err });
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new VivaceError('HIVE_METASTORE_ERROR', `Could not read ${file}: not JSON`, { cause: err });
  }
}

const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

export class FileMetastore {
  /** `directory`: hive.metastore.catalog.dir (absolute, under the root); `version`: what writerVersion says. */
  constructor(readonly directory: string, private readonly version: string) {}

  schemaDirectory(schema: string): string {
    return join(this.directory, nameSegment(schema, 'schema'));
  }

  tableDirectory(schema: string, table: string): string {
    return join(this.schemaDirectory(schema), nameSegment(table, 'table'));
  }

  private schemaFile(schema: string): string {
    return join(this.directory, `.${nameSegment(schema, 'schema')}${SCHEMA_FILE}`);
  }

  schemaNames(): string[] {
    let entries: string[];
    try {
      entries = readdirSync(this.directory);
    } catch {
      return [];
    }
    const names: string[] = [];
    for (const entry of entries) {
      if (!entry.startsWith('.') || !entry.endsWith(SCHEMA_FILE) || entry.length <= SCHEMA_FILE.length + 1) continue;
      const segment = entry.slice(1, -SCHEMA_FILE.length);
      if (isDirectory(join(this.directory, segment))) names.push(segment);
    }
    return names.map((s) => unescapePathName(s)).sort();
  }

  schema(name: string): SchemaMetadata | undefined {
    return readJson<SchemaMetadata>(this.schemaFile(name));
  }

  createSchema(name: string, metadata: Omit<SchemaMetadata, 'writerVersion'>): void {
    try {
      writeFileAtomic(this.directory, this.schemaFile(name), JSON.stringify({ writerVersion: this.version, ...metadata }), true);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EEXIST') throw new VivaceError('SCHEMA_ALREADY_EXISTS', `Schema '${name}' already exists`);
      throw err;
    }
    mkdirSync(this.schemaDirectory(name), { recursive: true });
  }

  /** Drops the schema's metadata; its directory goes too when empty of everything but hidden leftovers. */
  dropSchema(name: string): void {
    rmSync(this.schemaFile(name), { force: true });
    const directory = this.schemaDirectory(name);
    try {
      if (readdirSync(directory).every((e) => e.startsWith('.') || e.startsWith('_'))) rmSync(directory, { recursive: true, force: true });
    } catch {
      // gone already
    }
  }

  tableNames(schema: string): string[] {
    const directory = this.schemaDirectory(schema);
    let entries: string[];
    try {
      entries = readdirSync(directory);
    } catch {
      return [];
    }
    return entries.filter((e) => !e.startsWith('.') && readJsonExists(join(directory, e, SCHEMA_FILE))).map(unescapePathName).sort();
  }

  table(schema: string, table: string): TableMetadata | undefined {
    return readJson<TableMetadata>(join(this.tableDirectory(schema, table), SCHEMA_FILE));
  }

  /** The table's metadata file's modification time (ms), or undefined when there is none. */
  tableStamp(schema: string, table: string): number | undefined {
    try {
      return statSync(join(this.tableDirectory(schema, table), SCHEMA_FILE)).mtimeMs;
    } catch {
      return undefined;
    }
  }

  /** `exclusive`: the table must not exist yet (TABLE_ALREADY_EXISTS, `message`). */
  writeTable(schema: string, table: string, metadata: Omit<TableMetadata, 'writerVersion'>, exclusive: string | false): void {
    const directory = this.tableDirectory(schema, table);
    try {
      writeFileAtomic(directory, join(directory, SCHEMA_FILE), JSON.stringify({ writerVersion: this.version, ...metadata }), exclusive !== false);
    } catch (err) {
      if (exclusive !== false && (err as NodeJS.ErrnoException).code === 'EEXIST') throw new VivaceError('TABLE_ALREADY_EXISTS', exclusive);
      throw err;
    }
  }

  /** Removes the table's metadata file (the table is gone from that moment), then its partitions' files. */
  dropTableMetadata(schema: string, table: string, partitionNames: readonly string[]): void {
    const directory = this.tableDirectory(schema, table);
    unlinkSync(join(directory, SCHEMA_FILE));
    for (const name of partitionNames) rmSync(join(directory, name, SCHEMA_FILE), { force: true });
  }

  /** Registered partitions' names (`k=v/k2=v2`), walking one level per partition key. */
  partitionNames(schema: string, table: string, depth: number): string[] {
    const found: string[] = [];
    const walk = (directory: string, prefix: string, level: number) => {
      let entries: string[];
      try {
        entries = readdirSync(directory);
      } catch {
        return;
      }
      for (const entry of entries) {
        if (entry.startsWith('.') || entry.startsWith('_') || !entry.includes('=')) continue;
        const name = prefix === '' ? entry : `${prefix}/${entry}`;
        const path = join(directory, entry);
        if (level + 1 === depth) {
          if (readJsonExists(join(path, SCHEMA_FILE))) found.push(name);
        } else walk(path, name, level + 1);
      }
    };
    if (depth > 0) walk(this.tableDirectory(schema, table), '', 0);
    return found.sort();
  }

  writePartition(schema: string, table: string, name: string, metadata: Omit<PartitionMetadata, 'writerVersion'>): void {
    const directory = join(this.tableDirectory(schema, table), name);
    writeFileAtomic(directory, join(directory, SCHEMA_FILE), JSON.stringify({ writerVersion: this.version, ...metadata }));
  }

  partition(schema: string, table: string, name: string): PartitionMetadata | undefined {
    return readJson<PartitionMetadata>(join(this.tableDirectory(schema, table), name, SCHEMA_FILE));
  }

  dropPartition(schema: string, table: string, name: string): void {
    rmSync(join(this.tableDirectory(schema, table), name, SCHEMA_FILE), { force: true });
  }
}

function readJsonExists(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}
