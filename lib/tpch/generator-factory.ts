import { CustomerGenerator } from './customer.generator.js';
import { getDistributions } from './distributions.js';
import { LineitemGenerator } from './lineitem.generator.js';
import { NationGenerator } from './nation.generator.js';
import { OrdersGenerator } from './orders.generator.js';
import { PartGenerator } from './part.generator.js';
import { PartSuppGenerator } from './partsupp.generator.js';
import { checkPart } from './partitioning.js';
import { RegionGenerator } from './region.generator.js';
import type { TpchRowGenerator } from './row-generator.js';
import { SupplierGenerator } from './supplier.generator.js';
import { getTextPool } from './text-pool.js';
import { tpchTable } from './tpch-tables.js';

/** The row cursor of part `part` (1-based) of `partCount` of a table. */
export function createGenerator(table: string, scaleFactor: number, part: number, partCount: number): TpchRowGenerator {
  checkPart(scaleFactor, part, partCount);
  const name = tpchTable(table).name;
  const dists = getDistributions();
  const pool = getTextPool();
  switch (name) {
    case 'region': return new RegionGenerator(dists, pool, part);
    case 'nation': return new NationGenerator(dists, pool, part);
    case 'supplier': return new SupplierGenerator(scaleFactor, part, partCount, dists, pool);
    case 'customer': return new CustomerGenerator(scaleFactor, part, partCount, dists, pool);
    case 'part': return new PartGenerator(scaleFactor, part, partCount, dists, pool);
    case 'partsupp': return new PartSuppGenerator(scaleFactor, part, partCount, pool);
    case 'orders': return new OrdersGenerator(scaleFactor, part, partCount, dists, pool);
    case 'lineitem': return new LineitemGenerator(scaleFactor, part, partCount, dists, pool);
  }
}
