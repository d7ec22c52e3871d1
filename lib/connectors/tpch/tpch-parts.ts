// How the tpch generator cuts a table into Parquet parts, and which of them its manifest lists: the one
// place that says it, so a coordinator without a cache names the same splits a worker's generated
// manifest holds (tpch-generation.ts planTasks cuts the parts by the same functions).
import { rowCount } from '../../tpch/index.js';
import { ORDERS_SCALE_BASE } from '../../tpch/order-streams.js';
import { PART_SCALE_BASE } from '../../tpch/part.generator.js';
import { CUSTOMER_SCALE_BASE } from '../../tpch/customer.generator.js';
import { SUPPLIER_SCALE_BASE } from '../../tpch/supplier.generator.js';
import { partRowCount } from '../../tpch/partitioning.js';

/** CSV megabytes per scale-factor unit (measured at sf1), to size parts and weigh progress. */
export const CSV_MB_PER_SF: Readonly<Record<string, number>> = {
  lineitem: 754, orders: 170, partsupp: 118, part: 24, customer: 24, supplier: 1.4, nation: 0.01, region: 0.01,
};
/** Parts of about this size keep one worker's CSV on disk small and the load balanced. */
const PART_MB = 128;

/** The generator's part count of a table at a scale factor: at least 1 (Infinity for an infinite one). */
export function partCountOf(table: string, scaleFactor: number): number {
  return Math.max(1, Math.ceil((CSV_MB_PER_SF[table]! * scaleFactor) / PART_MB));
}

/** A part's file, relative to the schema directory (`lineitem/lineitem-00001.parquet`); parts are 1-based. */
export function partFile(table: string, part: number): string {
  return `${table}/${table}-${String(part).padStart(5, '0')}.parquet`;
}

/**
 * The scaled row count a part's rows derive from: partsupp has 4 rows per part row and lineitem 1 to 7
 * per order, so a part of either has rows exactly when that part of part (or orders) has. region and
 * nation are not scaled (undefined): all their rows are in part 1, the other parts are empty.
 */
const SCALE_BASES: Readonly<Record<string, number | undefined>> = {
  supplier: SUPPLIER_SCALE_BASE, customer: CUSTOMER_SCALE_BASE, part: PART_SCALE_BASE, partsupp: PART_SCALE_BASE,
  orders: ORDERS_SCALE_BASE, lineitem: ORDERS_SCALE_BASE,
};

/** Whether the generator writes rows for part `part` of `partCount` (the manifest lists only those). */
export function partHasRows(table: string, scaleFactor: number, part: number, partCount: number): boolean {
  const base = SCALE_BASES[table];
  return base === undefined ? part === 1 : partRowCount(base, scaleFactor, part, partCount) > 0;
}

export interface PlannedParts {
  readonly partCount: number;
  /** The parts with rows, in part order: the files of the table in the manifest generating it writes. */
  readonly files: string[];
}

/**
 * The parts the generator writes for a table at a scale factor, without generating; undefined when the
 * table would have more than `maxParts` parts (a hostile sf100000 builds no list of 589,063 names) or
 * is no tpch table.
 */
export function plannedParts(table: string, scaleFactor: number, maxParts: number): PlannedParts | undefined {
  if (!Object.hasOwn(CSV_MB_PER_SF, table) || !(scaleFactor > 0)) return undefined;
  const partCount = partCountOf(table, scaleFactor);
  if (!(partCount <= maxParts)) return undefined;
  const files: string[] = [];
  for (let part = 1; part <= partCount; part++) if (partHasRows(table, scaleFactor, part, partCount)) files.push(partFile(table, part));
  return { partCount, files };
}

/**
 * A table's row count for deciding whether it is worth two stages, without generating. Exact for every
 * table but lineitem, whose exact count replays a random stream per order (rowCount: about 10 ms per
 * scale-factor unit); for it, the orders' count times 4, the expected lines per order (uniform 1 to 7):
 * 60,000 at tiny where the table has 60,175.
 */
export function estimatedRowCount(table: string, scaleFactor: number): number {
  return table === 'lineitem' ? rowCount('orders', scaleFactor) * 4 : rowCount(table, scaleFactor);
}
