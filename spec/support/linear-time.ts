// Adversarial text for functions that read SQL or header values, and a check that they stay linear:
// the time for twice the input must not grow like a square (bounds are generous: this catches
// exponential or quadratic behaviour, it does not measure speed).
import { expect } from 'chai';
import fc from 'fast-check';

/** Pieces that break naive scanners: quotes, comment openers, parentheses, spaces, dots, long words. */
export const HOSTILE_PIECES = [
  "'", '"', "''", '""', '/*', '*/', '--', '\n', '(', ')', '((', '[', ' ', '\t', ';', '.', '.a', ',', '$', '?', '\\', '`',
  'a', 'select', 'SELECT', 'as', 'create table', 'x"', 'e1', '1e', '0x', '%', '_', '\u0000', '\u00a0', 'é', '😀',
] as const;

/** A string of `size` characters or more made of `pieces` repeated in a pattern fast-check picks. */
export function hostileText(size: number): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...HOSTILE_PIECES), { minLength: 1, maxLength: 12 }).map((pattern) => {
    const unit = pattern.join('');
    return unit.repeat(Math.ceil(size / unit.length));
  });
}

/** Fixed worst cases for backtracking scanners, `size` characters each. */
export function classicAttacks(size: number): string[] {
  const run = (s: string) => s.repeat(Math.ceil(size / s.length));
  return [
    run("'"), run('"'), run('/*'), run('--'), run('('), run(' '), run('a'), run('a.'), run('"a".'), run('%c'),
    `SELECT 1${run(' ')}x`, `SELECT 1${run(' ;')}`, `CREATE TABLE memory.default.${run('a')} (a bigint)`,
    `CREATE TABLE ${run('"a"')}`, `CREATE TABLE ${run('a.')}(`, `${run('((((1')}`,
  ];
}

function millis(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

/** `fn` over each input at `size` and at 4x `size`: 4x the input may cost at most ~16x (plus slack). */
export function expectLinear(name: string, fn: (text: string) => unknown, inputs: (size: number) => string[], size = 25_000): void {
  const call = (text: string) => {
    try {
      fn(text);
    } catch {
      // Refusing the input is fine; only the time counts here.
    }
  };
  const small = inputs(size);
  const large = inputs(size * 4);
  for (let k = 0; k < small.length; k++) {
    let a = millis(() => call(small[k]!));
    let b = millis(() => call(large[k]!));
    // Linear gives ~4x; quadratic ~16x; allow 12x over a floor of 50 ms for noise on a shared machine.
    const bound = () => Math.max(50, a * 12) + 50;
    // A pause (a collection, another process on the 2 cores) inflates one measurement, never the best of
    // three: a quadratic cost stays over the bound in every run, so only a miss is measured again.
    for (let retry = 0; retry < 2 && b >= bound(); retry++) {
      a = Math.min(a, millis(() => call(small[k]!)));
      b = Math.min(b, millis(() => call(large[k]!)));
    }
    expect(b, `${name} on input #${k} (${JSON.stringify(large[k]!.slice(0, 24))}...): ${a.toFixed(1)} ms -> ${b.toFixed(1)} ms`).to.be.below(bound());
    expect(b, `${name} on input #${k}`).to.be.below(2000);
  }
}
