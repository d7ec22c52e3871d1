// What one short query costs the coordinator's actors: the events they take and the transitions they make
// (xstate inspection, through the coordinator's `inspect` option), for a SELECT 1 through the HTTP routes.
// Each event and microstep is a snapshot copy and its listeners: the counts below are the budget, and a
// change that adds one must say why here.
import { expect } from 'chai';
import type { AnyActorRef, InspectionEvent } from 'xstate';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { runStatement, startTestServer, type TestServer } from '../support/http.js';

describe('coordinator: actor work per query', () => {
  let server: TestServer;
  let events: string[] = [];
  let microsteps: string[] = [];
  const inspect = (e: InspectionEvent) => {
    const ref = e.actorRef as AnyActorRef & { logic?: { id?: string } };
    const actor = ref.logic?.id ?? ref.id;
    if (e.type === '@xstate.event') events.push(`${actor} ${e.event.type}`);
    if (e.type === '@xstate.microstep') microsteps.push(`${actor} ${e.event.type}`);
  };

  before(async () => {
    server = await startTestServer({ engine: new FakeEngine({ 'SELECT 1': { columns: [BIGINT_COLUMN('_col0')], rows: [[1]] } }), inspect });
    await runStatement(server.url, 'SELECT 1'); // the first query of a process sets up what later ones reuse
  });
  after(() => server.stop());

  it('a SELECT 1: 10 events, one machine microstep for each the query and its stage take (no state passed through), and no stage end reported to its query', async () => {
    events = [];
    microsteps = [];
    const { responses } = await runStatement(server.url, 'SELECT 1');
    expect(responses.map((r) => r.stats.state)).to.deep.equal(['RUNNING', 'FINISHED', 'FINISHED']);
    // The tracker's query.finished comes once the last response is written (setImmediate).
    await new Promise((resolve) => setImmediate(resolve));
    const taken = [
      'tracker query.register',
      'dispatcher dispatcher.enqueue',
      'query query.admit',
      'query plan.done', // to RUNNING, stages scheduled on the way (no STARTING microstep)
      'stage stage.schedule', // to SCHEDULED (no SCHEDULING microstep)
      'query results.end',
      'stage stage.finish', // FINISHED is no xstate final state: no xstate.done.actor.stage-0 to the query
      'dispatcher dispatcher.release',
      'query results.take',
      'tracker query.finished',
    ];
    const sent = events.filter((e) => !e.endsWith('xstate.init'));
    expect(sent, sent.join('\n')).to.have.members(taken);
    // The query and its stage are state machines (the design card's); the dispatcher's and the tracker's
    // logic is a transition table (dispatcher.machine.ts, tracker.machine.ts), whose events make no
    // microsteps. As machines they made one for each event, about 10 KiB allocated apiece. The stage stops
    // with its query: the one microstep without an event sent to it.
    const machines = taken.filter((e) => e.startsWith('query ') || e.startsWith('stage '));
    expect(microsteps, microsteps.join('\n')).to.have.members([...machines, 'stage xstate.stop']);
  });
});

describe('coordinator: the query machine is flat', () => {
  it('its states are the protocol QueryState names, children of the root with none of their own', async () => {
    const { queryMachine } = await import('../../lib/actors/query.machine.js');
    const states = queryMachine.root.states;
    expect(Object.keys(states)).to.have.members(['QUEUED', 'PLANNING', 'RUNNING', 'FINISHING', 'FINISHED', 'FAILED']);
    // A compound state around the live ones put one more node in every microstep's sets (xstate builds them afresh).
    for (const state of Object.values(states)) expect(Object.keys(state.states), state.key).to.have.length(0);
  });
});
