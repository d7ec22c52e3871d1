// The progress lines' redraw in place: drawn every 500 ms on a fake clock, the previous lines erased first
// (cursor up, clear line), and erased when the query ends.
import { expect } from 'chai';
import sinon from 'sinon';
import { StatusDisplay } from '../../lib/client/status-display.js';
import type { QueryStatus } from '../../lib/client/statement-client.js';

describe('StatusDisplay', () => {
  let clock: sinon.SinonFakeTimers;
  beforeEach(() => (clock = sinon.useFakeTimers({ now: 1_000_000 })));
  afterEach(() => clock.restore());

  const status: QueryStatus = {
    id: 'q1',
    stats: { state: 'RUNNING', scheduled: false, nodes: 1, totalSplits: 0, queuedSplits: 0, runningSplits: 0, completedSplits: 0, processedRows: 0, processedBytes: 0, elapsedTimeMillis: 0 },
  };

  it('draws twice a second, erasing the previous drawing first, and erases at the end', () => {
    const writes: string[] = [];
    const display = new StatusDisplay({ write: (s: string) => writes.push(s), columns: 80 }, () => status, () => Date.now());
    display.start();
    expect(writes).to.deep.equal([]);
    clock.tick(500);
    expect(writes).to.have.length(1);
    expect(writes[0]).to.equal('Query q1, RUNNING, 1 node, 0 splits\n0:01 [    0 rows,     0B] [    0 rows/s,     0B/s] [ <=>                  ]');
    clock.tick(500);
    expect(writes[1]!.startsWith('\r\x1b[2K\x1b[1A\x1b[2K')).to.equal(true);
    display.stop();
    expect(writes[2]).to.equal('\r\x1b[2K\x1b[1A\x1b[2K');
    clock.tick(5000);
    expect(writes).to.have.length(3);
  });

  it('cuts lines to the terminal width so that none wraps', () => {
    const writes: string[] = [];
    const display = new StatusDisplay({ write: (s: string) => writes.push(s), columns: 30 }, () => status, () => Date.now());
    display.draw();
    for (const line of writes[0]!.split('\n')) expect(line.length).to.be.at.most(29);
    display.stop();
  });
});
