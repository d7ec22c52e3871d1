// The planning abort: a flag, a reason and listeners called once.
import { expect } from 'chai';
import { PlanAbortController } from '../../lib/engine/plan-abort.js';

describe('PlanAbortController', () => {
  it('calls each listener once with the reason set, at once when already aborted, never after removal', () => {
    const abort = new PlanAbortController();
    const calls: string[] = [];
    abort.onAbort(() => calls.push(`first:${String(abort.reason)}`));
    const remove = abort.onAbort(() => calls.push('removed'));
    remove();
    expect(abort.aborted).to.equal(false);
    abort.abort('why');
    abort.abort('again');
    expect(calls).to.deep.equal(['first:why']);
    abort.onAbort(() => calls.push('late'));
    expect(calls).to.deep.equal(['first:why', 'late']);
    expect([abort.aborted, abort.reason]).to.deep.equal([true, 'why']);
  });
});
