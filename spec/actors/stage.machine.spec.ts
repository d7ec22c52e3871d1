import { expect } from 'chai';
import { createActor } from 'xstate';
import { stageMachine } from '../../lib/actors/stage.machine.js';
import { isStageDone, isStageScheduled } from '../../lib/protocol/states.js';

describe('stageMachine', () => {
  const start = () => createActor(stageMachine, { input: { stageId: '0', totalSplits: 4 } }).start();

  it('goes PLANNED -> SCHEDULED -> RUNNING -> FINISHED, done only at the end', () => {
    const stage = start();
    expect(stage.getSnapshot().value).to.equal('PLANNED');
    stage.send({ type: 'stage.schedule' });
    expect(stage.getSnapshot().value).to.equal('SCHEDULED');
    expect(isStageDone('SCHEDULED')).to.equal(false);
    expect(isStageScheduled('SCHEDULED')).to.equal(false);
    stage.send({ type: 'stage.start' });
    expect(stage.getSnapshot().value).to.equal('RUNNING');
    expect(stage.getSnapshot().context).to.include({ queuedSplits: 0, runningSplits: 4 });
    stage.send({ type: 'stage.progress', counters: { processedRows: 10, completedSplits: 1 } });
    expect(stage.getSnapshot().context).to.include({ processedRows: 10, completedSplits: 1 });
    stage.send({ type: 'stage.finish' });
    const snap = stage.getSnapshot();
    expect(snap.value).to.equal('FINISHED');
    // No xstate final state (its query would be sent an event it has no use for): it stops with its query.
    expect(snap.status).to.equal('active');
    expect(snap.context).to.include({ runningSplits: 0, completedSplits: 4 });
    expect(isStageDone('FINISHED')).to.equal(true);
  });

  it('ends in CANCELED, ABORTED or FAILED from any state that is not done, and ignores later events', () => {
    for (const [event, state] of [
      ['stage.cancel', 'CANCELED'],
      ['stage.abort', 'ABORTED'],
      ['stage.fail', 'FAILED'],
    ] as const) {
      const planned = start();
      planned.send({ type: event });
      expect(planned.getSnapshot().value).to.equal(state);
      const running = start();
      running.send({ type: 'stage.schedule' });
      running.send({ type: 'stage.start' });
      running.send({ type: event });
      expect(running.getSnapshot().value).to.equal(state);
      running.send({ type: 'stage.finish' });
      running.send({ type: 'stage.progress', counters: { processedRows: 99 } });
      expect(running.getSnapshot().value).to.equal(state);
      expect(running.getSnapshot().context.processedRows).to.equal(0);
      expect(isStageDone(state)).to.equal(true);
    }
  });
});
