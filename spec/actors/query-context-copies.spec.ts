// Every assign action copies the query's context and snapshot (xstate's resolveAssign: Object.assign of
// the whole context, then a snapshot clone). The transitions each result event takes make one copy: the
// sub-stages an event reports are spawned in the same assign as its figures are recorded.
import { expect } from 'chai';
import { queryMachine } from '../../lib/actors/query.machine.js';

interface TransitionShape {
  actions: readonly unknown[];
  target?: readonly { key: string; entry: readonly unknown[] }[];
}

type StateNodeShape = { on: Record<string, TransitionShape[]>; states: Record<string, StateNodeShape> };

const implementations = queryMachine.implementations.actions as Record<string, { type?: string }>;

/** The assign actions a transition runs: its own and the entry actions of the state it enters. */
function assignsOf(transition: TransitionShape): string[] {
  const names: string[] = [];
  const entered = (transition.target ?? []).flatMap((t) => t.entry);
  for (const action of [...transition.actions, ...entered]) {
    const type = typeof action === 'string' ? implementations[action]?.type : (action as { type?: string }).type;
    if (type === 'xstate.assign') names.push(typeof action === 'string' ? action : 'inline assign');
  }
  return names;
}

describe('query machine: context copies per result event', () => {
  const root = queryMachine.root as unknown as StateNodeShape;

  for (const [state, event] of [['RUNNING', 'results.batch'], ['RUNNING', 'results.end'], ['RUNNING', 'results.progress'], ['RUNNING', 'results.take'], ['FINISHING', 'results.take']] as const) {
    it(`${state} on ${event}: at most one assign on each of its transitions but a failure's`, () => {
      // A failure (past the memory limit) records its error and its end: rare, and two copies.
      const transitions = root.states[state]!.on[event]!.filter((t) => !t.target?.some((s) => s.key === 'FAILED'));
      expect(transitions.length).to.be.greaterThan(0);
      for (const transition of transitions) expect(assignsOf(transition), event).to.have.length.at.most(1);
    });
  }
});
