// Catalog session properties (`<catalog>.<property>`, Trino's connector session properties): the hive
// connector's that act here, and the checks Trino's SetSessionTask, ResetSessionTask and Session make of
// them. Pure: which catalogs exist and which connector each runs is told by the caller.
import { VivaceError } from './vivace-error.js';

export interface CatalogSessionProperty {
  name: string;
  /** The SQL type SHOW SESSION prints. */
  type: string;
  description: string;
  /** The value as the connector stores it (Set-Session's text); throws with the reason when it is not one. */
  decode(value: string): string;
}

const BEHAVIORS = ['APPEND', 'OVERWRITE', 'ERROR'];

/** HiveSessionProperties' that the hive connector reads here. */
export const HIVE_SESSION_PROPERTIES: readonly CatalogSessionProperty[] = [
  {
    name: 'insert_existing_partitions_behavior',
    type: 'varchar',
    description: "Behavior on insert existing partitions; this session property doesn't control behavior on insert existing unpartitioned table",
    // InsertExistingPartitionsBehavior.valueOf: the name in upper case.
    decode(value) {
      const upper = value.toUpperCase();
      if (!BEHAVIORS.includes(upper)) throw new Error(`No enum constant io.trino.plugin.hive.HiveSessionProperties.InsertExistingPartitionsBehavior.${upper}`);
      return upper;
    },
  },
];

/** `catalog.property` split in two; undefined for a system property's name; more parts are Trino's INVALID_SESSION_PROPERTY. */
export function catalogPropertyName(name: string): { catalog: string; property: string } | undefined {
  const parts = name.split('.');
  if (parts.length === 1) return undefined;
  if (parts.length > 2 || parts.some((p) => p === '')) throw new VivaceError('INVALID_SESSION_PROPERTY', `Invalid session property '${name}'`);
  return { catalog: parts[0]!, property: parts[1]! };
}

/** The connector property a catalog session property's name could be (any connector's), or undefined. */
export function knownCatalogProperty(property: string): CatalogSessionProperty | undefined {
  return HIVE_SESSION_PROPERTIES.find((p) => p.name === property);
}

/** A value checked against its property: the stored text, or INVALID_SESSION_PROPERTY naming it. */
export function decodeCatalogProperty(name: string, definition: CatalogSessionProperty, value: string): string {
  try {
    return definition.decode(value);
  } catch (err) {
    throw new VivaceError('INVALID_SESSION_PROPERTY', `Unable to set session property '${name}' to '${value}': ${(err as Error).message}`, { cause: err });
  }
}

/** A catalog's session property with the catalog's default (its configuration's). */
export interface CatalogSessionEntry {
  property: CatalogSessionProperty;
  defaultValue: string;
}

/** What the engine knows of its catalogs: whether one is served, and its session properties. */
export interface CatalogSessionLookup {
  exists(catalog: string): boolean;
  properties(catalog: string): readonly CatalogSessionEntry[];
}

/**
 * The catalog properties a session carries (the Session header), checked as Trino's Session does when a
 * query begins: the catalog must exist (NOT_FOUND), have the property (INVALID_SESSION_PROPERTY), and the value decode.
 */
export function checkCatalogSessionProperties(properties: Readonly<Record<string, string>>, catalogs: CatalogSessionLookup): void {
  for (const [name, value] of Object.entries(properties)) {
    const parsed = catalogPropertyName(name);
    if (!parsed) continue;
    if (!catalogs.exists(parsed.catalog)) throw new VivaceError('NOT_FOUND', `Session property catalog does not exist: ${parsed.catalog}`);
    const entry = catalogs.properties(parsed.catalog).find((p) => p.property.name === parsed.property);
    if (!entry) throw new VivaceError('INVALID_SESSION_PROPERTY', `Unknown session property ${name}`);
    decodeCatalogProperty(name, entry.property, value);
  }
}
