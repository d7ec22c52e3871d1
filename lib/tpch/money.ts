/** Cents to the double of the exact decimal (2471035 -> 24710.35): integer / 100 rounds correctly. */
export function centsToDouble(cents: number): number {
  return cents / 100;
}

/** Cents as dbgen prints them: two decimals, e.g. 90100 -> '901.00'. */
export function formatMoney(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100);
  const frac = abs - whole * 100;
  return `${sign}${whole}.${frac < 10 ? '0' : ''}${frac}`;
}
