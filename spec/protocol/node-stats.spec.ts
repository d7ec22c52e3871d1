import { expect } from 'chai';
import { DateTime } from 'luxon';
import { renderNodeStats, type NodeStatsView } from '../../lib/protocol/node-stats.js';
import { validateResponse } from '../support/schema-validator.js';

const START = Date.UTC(2024, 4, 1, 12, 0, 0);

const view = (over: Partial<NodeStatsView> = {}): NodeStatsView => ({
  uri: 'http://10.0.0.7:8081/v1/status',
  recentRequests: 120.5,
  recentFailures: 0,
  recentSuccesses: 120.5,
  recentFailuresByType: {},
  startTime: START,
  lastRequestTime: START + 318_000,
  lastResponseTime: START + 318_002,
  ageMs: 318_600,
  ...over,
});

describe('renderNodeStats', () => {
  it('renders exactly the seed node object for a healthy node', () => {
    const body = renderNodeStats(view());
    validateResponse('node', body);
    expect(body).to.deep.equal({
      uri: 'http://10.0.0.7:8081/v1/status',
      recentRequests: 120.5,
      recentFailures: 0,
      recentSuccesses: 120.5,
      recentFailureRatio: 0,
      lastRequestTime: DateTime.fromMillis(START + 318_000).toISO(),
      lastResponseTime: DateTime.fromMillis(START + 318_002).toISO(),
      age: '5.31m',
      recentFailuresByType: {},
    });
    expect(Date.parse(body.lastRequestTime as string)).to.equal(START + 318_000);
  });

  it('adds lastFailureInfo and failures by type after a failure', () => {
    const body = renderNodeStats(
      view({
        recentFailures: 12,
        recentSuccesses: 108.5,
        recentFailuresByType: { ECONNREFUSED: 10, TimeoutError: 2 },
        lastFailure: { type: 'ECONNREFUSED', message: 'connect ECONNREFUSED 10.0.0.7:8081', stack: ['TCPConnectWrap.afterConnect (node:net:1611:16)'] },
      }),
    );
    validateResponse('node', body);
    expect(body.recentFailureRatio).to.equal(12 / 120.5);
    expect(body.recentFailuresByType).to.deep.equal({ ECONNREFUSED: 10, TimeoutError: 2 });
    expect(body.lastFailureInfo).to.deep.equal({
      message: 'connect ECONNREFUSED 10.0.0.7:8081',
      stack: ['TCPConnectWrap.afterConnect (node:net:1611:16)'],
      suppressed: [],
      type: 'ECONNREFUSED',
    });
  });

  it('before the first ping: ratio 0, both times at the start of monitoring, age in ms', () => {
    const body = renderNodeStats(
      view({ recentRequests: 0, recentSuccesses: 0, lastRequestTime: undefined, lastResponseTime: undefined, ageMs: 845.123 }),
    );
    validateResponse('node', body);
    expect(body).to.include({ recentFailureRatio: 0, age: '845.12ms', lastRequestTime: DateTime.fromMillis(START).toISO() });
    expect(body.lastResponseTime).to.equal(body.lastRequestTime);
  });

  it('caps the ratio at 1 when a failure lands a second after its request', () => {
    const body = renderNodeStats(view({ recentRequests: 1 * Math.exp(-1 / 60), recentFailures: 1, recentSuccesses: 0 }));
    validateResponse('node', body);
    expect(body.recentFailureRatio).to.equal(1);
  });
});
