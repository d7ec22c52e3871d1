// Atomic writes into a table: data lands in a hidden staging directory inside the table's location, then a
// commit marker listing every rename (and, for OVERWRITE, every file replaced) is written whole; applying it
// renames the files into their partitions, registers new partitions (and a CTAS's table, last) and removes
// the marker. Applying is idempotent, so whoever finds a marker (the next reader, writer or start) rolls it
// forward: a crash leaves either nothing visible or, once rolled forward, everything. Staging without a
// marker whose process is gone is removed.
import { hostname } from 'node:os';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { isProcessAlive } from '../process-alive.js';
import { writeFileAtomic, type FileMetastore, type PartitionMetadata, type TableMetadata } from './hive-metastore.js';

export const STAGING_PREFIX = '.vivace-staging-';
export const MARKER_PREFIX = '.vivace-commit-';

/** Host names may hold '-': the staging name keeps the pid as its own field. */
const safeHost = () => hostname().replace(/[^a-z0-9]/gi, '_');

/** A fresh staging directory name for `queryId`, naming this host and process (so a leftover can be told dead). */
export function stagingName(queryId: string): string {
  return `${STAGING_PREFIX}${safeHost()}.${process.pid}.${queryId.replace(/\W/g, '_')}.${randomUUID()}`;
}

export interface CommitMarker {
  version: 1;
  /** Paths relative to the table's location. */
  staging: string;
  renames: [string, string][];
  deletes: string[];
  /** Partitions to register (names), with their metadata. */
  partitions: string[];
  partitionMetadata?: Omit<PartitionMetadata, 'writerVersion'>;
  /** Registered partitions whose files are elsewhere than at their name (`local:///...`), by name. */
  partitionLocations?: Record<string, string>;
  /** A CTAS's table, registered last. */
  table?: { schema: string; name: string; metadata: Omit<TableMetadata, 'writerVersion'> };
  /** Partitions a DELETE drops: their metadata first, then (`data`: a managed table) their directories. */
  dropPartitions?: { names: string[]; data: boolean };
  /** The table's schema and name for registering partitions. */
  schema: string;
  tableName: string;
}

/** Writes the marker (whole, atomically) and applies it. */
export function commit(location: string, marker: CommitMarker, metastore: FileMetastore): void {
  const file = join(location, `${MARKER_PREFIX}${randomUUID()}.json`);
  writeFileAtomic(location, file, JSON.stringify(marker));
  apply(location, file, marker, metastore);
}

const ignoreMissing = (work: () => void) => {
  try {
    work();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'EEXIST') throw err;
  }
};

/** Applies a marker; every step tolerates having been done already (by a crashed writer or a concurrent reader). */
function apply(location: string, file: string, marker: CommitMarker, metastore: FileMetastore): void {
  for (const name of marker.dropPartitions?.names ?? []) {
    metastore.dropPartition(marker.schema, marker.tableName, name);
    if (marker.dropPartitions!.data) removePartitionDirectory(location, name);
  }
  for (const path of marker.deletes) rmSync(join(location, path), { force: true });
  for (const [from, to] of marker.renames) {
    const target = join(location, to);
    mkdirSync(dirname(target), { recursive: true });
    ignoreMissing(() => renameSync(join(location, from), target));
  }
  if (marker.partitionMetadata) {
    const registered = new Set(metastore.partitionNames(marker.schema, marker.tableName, marker.partitions[0]?.split('/').length ?? 0));
    for (const name of marker.partitions) {
      if (registered.has(name)) continue;
      const location = marker.partitionLocations && Object.hasOwn(marker.partitionLocations, name) ? marker.partitionLocations[name] : undefined;
      metastore.writePartition(marker.schema, marker.tableName, name, typeof location === 'string' ? { ...marker.partitionMetadata, location } : marker.partitionMetadata);
    }
  }
  if (marker.table) {
    const { schema, name, metadata } = marker.table;
    ignoreMissing(() => metastore.writeTable(schema, name, metadata, false));
  }
  rmSync(join(location, marker.staging), { recursive: true, force: true });
  rmSync(file, { force: true });
}

/**
 * Rolls forward every marker in `location` and removes staging directories of this host whose process is
 * gone (another host's are left: its process cannot be seen from here). Returns whether anything changed.
 */
export function recover(location: string, metastore: FileMetastore): boolean {
  let entries: string[];
  try {
    entries = readdirSync(location);
  } catch {
    return false;
  }
  let changed = false;
  for (const entry of entries) {
    if (!entry.startsWith(MARKER_PREFIX) || !entry.endsWith('.json')) continue;
    const file = join(location, entry);
    let marker: CommitMarker;
    try {
      marker = JSON.parse(readFileSync(file, 'utf8')) as CommitMarker;
    } catch {
      continue; // being removed by whoever applied it
    }
    if (marker.version !== 1 || !safeRelative(marker)) continue;
    apply(location, file, marker, metastore);
    changed = true;
  }
  const host = safeHost();
  for (const entry of entries) {
    if (!entry.startsWith(STAGING_PREFIX)) continue;
    const [entryHost, pid] = entry.slice(STAGING_PREFIX.length).split('.');
    if (entryHost !== host || pid === undefined || isProcessAlive(Number(pid))) continue;
    if (entries.some((e) => e.startsWith(MARKER_PREFIX))) continue; // a marker may still name it
    rmSync(join(location, entry), { recursive: true, force: true });
  }
  return changed;
}

/** A dropped partition's directory, and its parents up to the table's while they are left empty. */
function removePartitionDirectory(location: string, name: string): void {
  rmSync(join(location, name), { recursive: true, force: true });
  const segments = name.split('/');
  for (let depth = segments.length - 1; depth > 0; depth--) {
    const parent = join(location, ...segments.slice(0, depth));
    try {
      if (readdirSync(parent).length > 0) return;
      rmSync(parent, { recursive: true, force: true });
    } catch {
      return;
    }
  }
}

/** A marker names paths inside its table only (it is read back from disk, which others may write). */
function safeRelative(marker: CommitMarker): boolean {
  const ok = (p: string) => typeof p === 'string' && p !== '' && !p.startsWith('/') && !p.split('/').includes('..') && !p.split('/').includes('.') && !p.includes('\u0000');
  const drops = marker.dropPartitions === undefined || (Array.isArray(marker.dropPartitions.names) && marker.dropPartitions.names.every(ok));
  return ok(marker.staging) && marker.staging.startsWith(STAGING_PREFIX) && marker.renames.every(([a, b]) => ok(a) && ok(b)) && marker.deletes.every(ok) && marker.partitions.every(ok) && drops;
}

/** Whether `location` holds a marker (a commit not yet applied). */
export function hasMarker(location: string): boolean {
  try {
    return readdirSync(location).some((e) => e.startsWith(MARKER_PREFIX));
  } catch {
    return false;
  }
}

/** Every file below `directory`, as paths relative to it. */
export function filesBelow(directory: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const relative = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) walk(join(dir, entry.name), relative);
      else if (entry.isFile()) out.push(relative);
    }
  };
  try {
    if (statSync(directory).isDirectory()) walk(directory, '');
  } catch {
    // nothing written
  }
  return out.sort();
}
