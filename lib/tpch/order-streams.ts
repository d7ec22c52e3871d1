// Streams shared by orders and lineitem: orders derive status and total price
// from the same line draws lineitem makes, so both must build them identically.
import { PART_SCALE_BASE } from './part.generator.js';
import { RandomBoundedInt } from './random-bounded-int.js';
import { RandomBoundedLong } from './random-bounded-long.js';
import { MIN_GENERATE_DATE, TOTAL_DATE_RANGE } from './tpch-dates.js';

export const ORDERS_SCALE_BASE = 1_500_000;
export const LINE_COUNT_MAX = 7;
const SHIP_DATE_MAX = 121;
const RECEIPT_DATE_MAX = 30;
const ITEM_SHIP_DAYS = SHIP_DATE_MAX + RECEIPT_DATE_MAX;
// Orders stop early enough that every line's receipt date stays inside the window.
const ORDER_DATE_MAX = MIN_GENERATE_DATE + (TOTAL_DATE_RANGE - ITEM_SHIP_DAYS - 1);

/** Keys are sparse: of each 32 keys only the first 8 are used. */
export function makeOrderKey(orderIndex: number): number {
  const low = orderIndex % 8;
  return Math.floor(orderIndex / 8) * 32 + low;
}

export const orderDateRandom = (): RandomBoundedInt =>
  new RandomBoundedInt(1066728069, MIN_GENERATE_DATE, ORDER_DATE_MAX);
export const lineCountRandom = (): RandomBoundedInt => new RandomBoundedInt(1434868289, 1, LINE_COUNT_MAX);
export const quantityRandom = (): RandomBoundedInt => new RandomBoundedInt(209208115, 1, 50, LINE_COUNT_MAX);
export const discountRandom = (): RandomBoundedInt => new RandomBoundedInt(554590007, 0, 10, LINE_COUNT_MAX);
export const taxRandom = (): RandomBoundedInt => new RandomBoundedInt(721958466, 0, 8, LINE_COUNT_MAX);
export const shipDateRandom = (): RandomBoundedInt =>
  new RandomBoundedInt(1769349045, 1, SHIP_DATE_MAX, LINE_COUNT_MAX);
export const partKeyRandom = (scaleFactor: number): RandomBoundedLong =>
  new RandomBoundedLong(1808217256, scaleFactor >= 30000, 1, Math.trunc(PART_SCALE_BASE * scaleFactor), LINE_COUNT_MAX);
