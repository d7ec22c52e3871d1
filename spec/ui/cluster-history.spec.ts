// The coordinator's ring of per-second activity behind the overview's chart, on an injected clock:
// events land in their second, empty seconds read zero, old seconds fall out, the size never grows.
import { expect } from 'chai';
import fc from 'fast-check';
import { ClusterHistory } from '../../lib/metrics/cluster-history.js';
import type { QueryView } from '../../lib/actors/query-view.js';

/** The parts of a final view the ring reads. */
function ended(state: 'FINISHED' | 'FAILED', processedRows: number, outputRows: number): QueryView {
  const stage = { processedRows, processedBytes: 0, physicalInputRows: processedRows, physicalInputBytes: 0, totalSplits: 1, queuedSplits: 0, runningSplits: 0, completedSplits: 1, cpuTimeMillis: 0, wallTimeMillis: 0, nodes: 1, subStages: [] };
  return { state, outputRows, rootStage: stage } as unknown as QueryView;
}

describe('cluster history', () => {
  it('counts starts, ends and rows in the second they happen, oldest sample first', () => {
    let now = 1_000_000_500;
    const history = new ClusterHistory(() => now, 10);
    history.started();
    history.started();
    history.ended(ended('FINISHED', 100, 3));
    now += 2000;
    history.ended(ended('FAILED', 7, 0));
    const samples = history.samples();
    expect(samples).to.have.length(10);
    expect(samples[9]).to.deep.equal({ time: 1_000_002_000, started: 0, finished: 0, failed: 1, processedRows: 7, outputRows: 0 });
    expect(samples[8]).to.deep.include({ started: 0, finished: 0 });
    expect(samples[7]).to.deep.equal({ time: 1_000_000_000, started: 2, finished: 1, failed: 0, processedRows: 100, outputRows: 3 });
  });

  it('forgets seconds older than its window, even after a long quiet time', () => {
    let now = 50_000;
    const history = new ClusterHistory(() => now, 5);
    history.started();
    now += 5000;
    expect(history.samples().every((s) => s.started === 0)).to.equal(true);
    now += 3 * 3_600_000;
    history.started();
    expect(history.samples().map((s) => s.started)).to.deep.equal([0, 0, 0, 0, 1]);
  });

  it('matches a plain per-second tally over any sequence of events (fast-check)', () => {
    const step = fc.record({ advance: fc.integer({ min: 0, max: 4000 }), kind: fc.constantFrom('start', 'finish', 'fail'), rows: fc.nat({ max: 1000 }) });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        let now = 7_000_000;
        const history = new ClusterHistory(() => now, 8);
        const tally = new Map<number, { started: number; finished: number; failed: number; rows: number }>();
        for (const { advance, kind, rows } of steps) {
          now += advance;
          const second = Math.floor(now / 1000);
          const t = tally.get(second) ?? { started: 0, finished: 0, failed: 0, rows: 0 };
          tally.set(second, t);
          if (kind === 'start') {
            history.started();
            t.started++;
          } else {
            history.ended(ended(kind === 'finish' ? 'FINISHED' : 'FAILED', rows, 0));
            if (kind === 'finish') t.finished++;
            else t.failed++;
            t.rows += rows;
          }
        }
        const samples = history.samples();
        expect(samples).to.have.length(8);
        for (const s of samples) {
          const t = tally.get(s.time / 1000) ?? { started: 0, finished: 0, failed: 0, rows: 0 };
          expect(s).to.deep.include({ started: t.started, finished: t.finished, failed: t.failed, processedRows: t.rows });
        }
      }),
    );
  });
});
