import { expect } from 'chai';
import { SegmentHolders } from '../../lib/spooling/segment-holders.js';

describe('SegmentHolders', () => {
  it('tells each query a lost holder held segments of, once, and forgets cancelled queries', () => {
    const holders = new SegmentHolders();
    holders.note('q1', 'w0@a');
    holders.note('q1', 'w0@a');
    holders.note('q1', 'w1@b');
    holders.note('q2', 'w0@a');
    holders.note('q3', 'w0@a');
    holders.forget('q3');
    expect(holders.lose('w0@a')).to.deep.equal(['q1', 'q2']);
    expect(holders.lose('w0@a')).to.deep.equal([]);
    expect(holders.size).to.equal(1);
    expect(holders.lose('w1@b')).to.deep.equal(['q1']);
    expect(holders.size).to.equal(0);
  });

  it('keeps the latest queries only', () => {
    const holders = new SegmentHolders(2);
    for (const q of ['q1', 'q2', 'q3']) holders.note(q, 'w0@a');
    expect(holders.size).to.equal(2);
    expect(holders.lose('w0@a')).to.deep.equal(['q2', 'q3']);
  });
});
