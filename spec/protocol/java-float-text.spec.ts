// Java's Float.toString and Double.toString (JDK 19+): known values, round trips, agreement with V8's shortest
// digits for doubles, the way the renderer builds a real's text, and the completeness of the exceptions it writes by value.
import { expect } from 'chai';
import fc from 'fast-check';
import { closestFirstText, javaDoubleText, javaFloatText, shortestText, textExceptions } from '../../lib/protocol/java-float-text.js';

/** Java's layout of V8's shortest digits of `x` (Number.prototype.toExponential without digits: as many as needed). */
function v8InJavaLayout(x: number): string {
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const [mantissa, exponentText] = Math.abs(x).toExponential().split('e');
  const digits = mantissa!.replace('.', '');
  const exponent = Number(exponentText);
  const sign = x < 0 ? '-' : '';
  if (Math.abs(x) >= 1e-3 && Math.abs(x) < 1e7) {
    if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
    const integral = digits.slice(0, exponent + 1).padEnd(exponent + 1, '0');
    return `${sign}${integral}.${digits.slice(exponent + 1) || '0'}`;
  }
  return `${sign}${digits[0]}.${digits.slice(1) || '0'}E${exponent}`;
}

describe('Java float and double text', () => {
  it('writes what JDK 19+ writes for known values', () => {
    const floats: [number, string][] = [
      [1.4e-45, '1.4E-45'], [2 * 1.4e-45, '2.8E-45'], [3.4028235e38, '3.4028235E38'], [1.17549435e-38, '1.1754944E-38'],
      [1, '1.0'], [0.1, '0.1'], [-1.5, '-1.5'], [1e7, '1.0E7'], [9999999, '9999999.0'], [0.001, '0.001'], [1e-4, '1.0E-4'],
      [100, '100.0'], [1e10, '1.0E10'], [33554432, '3.3554432E7'], [0, '0.0'], [-0, '-0.0'], [NaN, 'NaN'], [Infinity, 'Infinity'], [-Infinity, '-Infinity'],
    ];
    for (const [value, text] of floats) expect(javaFloatText(value), String(value)).to.equal(text);
    const doubles: [number, string][] = [
      [5e-324, '4.9E-324'], [1e-323, '9.9E-324'], [1.7976931348623157e308, '1.7976931348623157E308'], [2e23, '2.0E23'], [1, '1.0'],
      [0.1, '0.1'], [1 / 3, '0.3333333333333333'], [123456789.123, '1.23456789123E8'], [1e-5, '1.0E-5'], [-0.001, '-0.001'], [1e21, '1.0E21'],
    ];
    for (const [value, text] of doubles) expect(javaDoubleText(value), String(value)).to.equal(text);
  });

  it('reads back as the same float, and as the same double', () => {
    fc.assert(fc.property(fc.float({ noNaN: true, noDefaultInfinity: true }), (f) => {
      expect(Math.fround(Number(javaFloatText(f).replace('E', 'e')))).to.equal(f);
    }), { numRuns: 2000 });
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
      expect(Number(javaDoubleText(d).replace('E', 'e'))).to.equal(d);
    }), { numRuns: 2000 });
  });

  it('writes a double as V8 does (the shortest digits, the closest of them) but for the two-digit exceptions', () => {
    const exceptions = new Set(textExceptions(false).flatMap((e) => [e.value, -e.value]));
    fc.assert(fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (d) => {
      if (!exceptions.has(d)) expect(javaDoubleText(d)).to.equal(v8InJavaLayout(d));
    }), { numRuns: 5000 });
    expect(shortestText(5e-324, false)).to.equal(v8InJavaLayout(5e-324));
  });

  it("writes a real as Java does when it takes the fewest correctly rounded digits that read back, but for the exceptions", () => {
    const exceptions = new Set(textExceptions(true).flatMap((e) => [e.value, -e.value]));
    fc.assert(fc.property(fc.float({ noNaN: true, noDefaultInfinity: true }), (f) => {
      if (!exceptions.has(f)) expect(closestFirstText(f)).to.equal(javaFloatText(f));
    }), { numRuns: 5000 });
  });

  it('lists every exception among the subnormals below 4096 units and the powers of two', () => {
    const doubles = new Set(textExceptions(false).map((e) => e.value));
    const reals = new Set(textExceptions(true).map((e) => e.value));
    for (let k = 1; k < 4096; k++) {
      const double = k * 2 ** -1074;
      expect(javaDoubleText(double) !== shortestText(double, false), `double ${k} units`).to.equal(doubles.has(double));
      const real = k * 2 ** -149;
      expect(javaFloatText(real) !== closestFirstText(real), `real ${k} units`).to.equal(reals.has(real));
    }
    for (let e = -149; e <= 127; e++) expect(javaFloatText(2 ** e) !== closestFirstText(2 ** e), `2^${e}`).to.equal(reals.has(2 ** e));
    expect(textExceptions(false)[0]).to.deep.equal({ value: 2 ** -1074, text: '4.9E-324' });
    expect([...reals].map((x) => javaFloatText(x))).to.deep.equal(['1.2621775E-29', '1.5474251E26', '1.2379401E27']);
  });
});
