// The pure parts of the local worker supervisor: reading a worker's "listening on" line, and the restart
// backoff (1 s doubling to 30 s). The processes themselves are driven in spec/e2e/cluster.spec.ts.
import { expect } from 'chai';
import fc from 'fast-check';
import { listeningUrl, restartDelayMs } from '../../lib/cluster/local-workers.js';

describe('local workers', () => {
  it('read the URL from the worker\'s own line only', () => {
    expect(listeningUrl('vivace worker worker-1 listening on http://127.0.0.1:40123', 'worker-1')).to.equal('http://127.0.0.1:40123');
    expect(listeningUrl('vivace worker worker-1 listening on http://127.0.0.1:40123\r', 'worker-1')).to.equal('http://127.0.0.1:40123');
    expect(listeningUrl('vivace worker worker-10 listening on http://127.0.0.1:1', 'worker-1')).to.equal(undefined);
    expect(listeningUrl('[x] vivace worker worker-1 listening on http://127.0.0.1:1', 'worker-1')).to.equal(undefined);
    expect(listeningUrl('vivace worker worker-1 listening on ftp://127.0.0.1:1', 'worker-1')).to.equal(undefined);
    expect(listeningUrl('tpch: generating tpch.tiny', 'worker-1')).to.equal(undefined);
  });

  it('never take another line for the listening line (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (line) => {
        const url = listeningUrl(line, 'worker-0');
        if (url !== undefined) {
          expect(line.startsWith('vivace worker worker-0 listening on http')).to.equal(true);
          expect(line).to.contain(url);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('back off 1 s doubling to 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50, 10_000].map((n) => restartDelayMs(n))).to.deep.equal([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000, 30000]);
    expect(restartDelayMs(2, 10, 35)).to.equal(35);
  });
});
