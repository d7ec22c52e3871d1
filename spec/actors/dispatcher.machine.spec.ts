import { expect } from 'chai';
import { createActor, createMachine, type AnyActorRef } from 'xstate';
import { dispatcherMachine } from '../../lib/actors/dispatcher.machine.js';

/** A stand-in query that records what the dispatcher tells it. */
function recorder(received: string[], name: string): AnyActorRef {
  return createActor(
    createMachine({
      on: { '*': { actions: ({ event }) => received.push(`${name}:${event.type}${event.error ? `:${event.error.errorName}` : ''}`) } },
    }),
  ).start();
}

describe('dispatcherMachine', () => {
  it('admits up to maxRunning, queues the rest in order, and admits the next on release', () => {
    const received: string[] = [];
    const dispatcher = createActor(dispatcherMachine, { input: { maxRunning: 2, maxQueued: 10 } }).start();
    for (const id of ['a', 'b', 'c', 'd']) dispatcher.send({ type: 'dispatcher.enqueue', queryId: id, query: recorder(received, id) });
    expect(received).to.deep.equal(['a:query.admit', 'b:query.admit']);
    expect(dispatcher.getSnapshot().context.groups.queuedQueryIds()).to.deep.equal(['c', 'd']);
    dispatcher.send({ type: 'dispatcher.release', queryId: 'b' });
    expect(received).to.deep.equal(['a:query.admit', 'b:query.admit', 'c:query.admit']);
    // releasing twice, or releasing a query that never ran, admits nobody extra
    dispatcher.send({ type: 'dispatcher.release', queryId: 'b' });
    expect(received).to.have.length(3);
  });

  it('drops a queued query that gives up before admission', () => {
    const received: string[] = [];
    const dispatcher = createActor(dispatcherMachine, { input: { maxRunning: 1, maxQueued: 10 } }).start();
    for (const id of ['a', 'b', 'c']) dispatcher.send({ type: 'dispatcher.enqueue', queryId: id, query: recorder(received, id) });
    dispatcher.send({ type: 'dispatcher.release', queryId: 'b' });
    dispatcher.send({ type: 'dispatcher.release', queryId: 'a' });
    expect(received).to.deep.equal(['a:query.admit', 'c:query.admit']);
  });

  it('fails a query with QUERY_QUEUE_FULL past the queue limit', () => {
    const received: string[] = [];
    const dispatcher = createActor(dispatcherMachine, { input: { maxRunning: 1, maxQueued: 1 } }).start();
    for (const id of ['a', 'b', 'c']) dispatcher.send({ type: 'dispatcher.enqueue', queryId: id, query: recorder(received, id) });
    expect(received).to.deep.equal(['a:query.admit', 'c:query.fail:QUERY_QUEUE_FULL']);
  });
});
