import { expect } from 'chai';
import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { TalliedHistogram } from '../../lib/metrics/tallied-histogram.js';

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const LABEL_SETS = [
  { route: '/v1/statement', method: 'POST' },
  { route: '/v1/statement/executing/:queryId/:slug/:token', method: 'GET' },
  { route: 'unmatched', method: 'OTHER' },
  { route: 'a "quoted"\\ route\nwith a newline', method: 'GET' },
];

/** The same observations through prom-client's Histogram and through a TalliedHistogram: the two texts. */
async function bothTexts(observations: Array<[number, number]>): Promise<[string, string]> {
  const reference = new Registry();
  const tallied = new Registry();
  const config = { name: 'h_seconds', help: 'help text', labelNames: ['route', 'method'] };
  const histogram = new Histogram({ ...config, buckets: BUCKETS, registers: [reference] });
  const subject = new TalliedHistogram({ ...config, buckets: BUCKETS, registry: tallied });
  const tallies = new Map<number, ReturnType<TalliedHistogram['tally']>>();
  for (const [set, value] of observations) {
    histogram.observe(LABEL_SETS[set]!, value);
    let tally = tallies.get(set);
    if (!tally) tallies.set(set, (tally = subject.tally(LABEL_SETS[set]!)));
    tally.observe(value);
  }
  return [await reference.metrics(), await tallied.metrics()];
}

describe('TalliedHistogram', () => {
  it("writes prom-client's exact text for any observations, bucket bounds included", async () => {
    const value = fc.oneof(fc.constantFrom(...BUCKETS, 0, 30.000001, 1e308), fc.double({ min: 0, max: 100, noNaN: true }), fc.double({ noNaN: true, noDefaultInfinity: true }));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.nat({ max: LABEL_SETS.length - 1 }), value), { maxLength: 200 }), async (observations) => {
        const [expected, actual] = await bothTexts(observations);
        expect(actual).to.equal(expected);
      }),
      { numRuns: 200 },
    );
  });

  it('lists nothing but its help and type before the first observation, as prom-client', async () => {
    const [expected, actual] = await bothTexts([]);
    expect(actual).to.equal(expected);
  });

  it('refuses a value that is not a number, as prom-client does, and counts nothing of it', async () => {
    const registry = new Registry();
    const tally = new TalliedHistogram({ name: 'h', help: 'h', labelNames: ['route'], buckets: [1], registry }).tally({ route: 'r' });
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) expect(() => tally.observe(bad)).to.throw(TypeError);
    expect(tally.count).to.equal(0);
    tally.observe(0.5);
    expect(await registry.metrics()).to.contain('h_bucket{le="1",route="r"} 1');
  });
});
