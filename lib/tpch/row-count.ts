import { CUSTOMER_SCALE_BASE } from './customer.generator.js';
import { ORDERS_SCALE_BASE, lineCountRandom } from './order-streams.js';
import { PART_SCALE_BASE } from './part.generator.js';
import { SUPPLIERS_PER_PART } from './partsupp.generator.js';
import { checkPart, partRowCount, partStartIndex } from './partitioning.js';
import { SUPPLIER_SCALE_BASE } from './supplier.generator.js';
import { tpchTable } from './tpch-tables.js';

const lineitemCounts = new Map<string, number>();

/**
 * Rows of a table (or of part `part` of `partCount`) at a scale factor.
 * lineitem has no closed form: its count is the sum of the orders' line counts,
 * computed by replaying only the line-count stream (one draw per order, about
 * 10 ms per scale-factor unit) and memoised.
 */
export function rowCount(table: string, scaleFactor: number, part = 1, partCount = 1): number {
  checkPart(scaleFactor, part, partCount);
  const name = tpchTable(table).name;
  const rows = (base: number): number => partRowCount(base, scaleFactor, part, partCount);
  switch (name) {
    case 'region': return part === 1 ? 5 : 0;
    case 'nation': return part === 1 ? 25 : 0;
    case 'supplier': return rows(SUPPLIER_SCALE_BASE);
    case 'customer': return rows(CUSTOMER_SCALE_BASE);
    case 'part': return rows(PART_SCALE_BASE);
    case 'partsupp': return rows(PART_SCALE_BASE) * SUPPLIERS_PER_PART;
    case 'orders': return rows(ORDERS_SCALE_BASE);
    case 'lineitem': return lineitemRowCount(scaleFactor, part, partCount);
  }
}

function lineitemRowCount(scaleFactor: number, part: number, partCount: number): number {
  const key = `${scaleFactor}/${part}/${partCount}`;
  let count = lineitemCounts.get(key);
  if (count === undefined) {
    const random = lineCountRandom();
    random.advanceRows(partStartIndex(ORDERS_SCALE_BASE, scaleFactor, part, partCount));
    const orders = partRowCount(ORDERS_SCALE_BASE, scaleFactor, part, partCount);
    count = 0;
    for (let i = 0; i < orders; i++) {
      count += random.nextValue();
      random.rowFinished();
    }
    lineitemCounts.set(key, count);
  }
  return count;
}
