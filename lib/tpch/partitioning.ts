// How dbgen splits a table of `scaleBase * scaleFactor` rows into parts:
// equal parts, the last one taking the remainder. Parts are 1-based.

export function totalRowCount(scaleBase: number, scaleFactor: number): number {
  return Math.trunc(scaleBase * scaleFactor);
}

export function partRowCount(scaleBase: number, scaleFactor: number, part: number, partCount: number): number {
  const total = totalRowCount(scaleBase, scaleFactor);
  const rows = Math.floor(total / partCount);
  return part === partCount ? rows + (total % partCount) : rows;
}

export function partStartIndex(scaleBase: number, scaleFactor: number, part: number, partCount: number): number {
  return Math.floor(totalRowCount(scaleBase, scaleFactor) / partCount) * (part - 1);
}

export function checkPart(scaleFactor: number, part: number, partCount: number): void {
  if (!(scaleFactor > 0)) throw new RangeError('scaleFactor must be greater than 0');
  if (!Number.isInteger(part) || !Number.isInteger(partCount) || part < 1 || part > partCount) {
    throw new RangeError(`part must be an integer in 1..partCount, got ${part} of ${partCount}`);
  }
}
