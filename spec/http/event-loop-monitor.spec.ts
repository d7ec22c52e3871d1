// The monitor's last-minute figures slide by 10-second buckets: driven here by fake timers.
import { expect } from 'chai';
import sinon from 'sinon';
import { startEventLoopMonitor } from '../../lib/http/event-loop-monitor.js';
import { captureLog } from '../support/log-capture.js';

describe('event loop monitor: the last minute', () => {
  afterEach(() => sinon.restore());

  it('covers the last 50 to 60 seconds of checks, whatever the uptime, and stops ticking when stopped', () => {
    const clock = sinon.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'performance'] });
    const log = captureLog('debug');
    const monitor = startEventLoopMonitor({ statementsDuring: () => [], logger: log.logger });
    clock.tick(30_000);
    expect(monitor.status().delay.lastMinute.samples).to.equal(1500); // 30 s of 20 ms checks
    clock.tick(90_000);
    const { lastMinute } = monitor.status().delay;
    expect(lastMinute.samples).to.be.within(2500, 3000);
    expect(lastMinute).to.include({ p50Ms: 0.001, maxMs: 0.001 }); // on time: recorded as 1 µs
    expect(log.lines(), 'no stall').to.deep.equal([]);
    expect(monitor.status().stalls).to.deep.equal({ thresholdMs: 100, count: 0 });
    monitor.stop();
    expect(clock.countTimers()).to.equal(0);
  });
});
