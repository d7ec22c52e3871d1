// A statement response's stats are written straight as text (statementStatsJson): byte for byte what
// JSON.stringify(statementStats(view)) writes, for every shape a view takes, and renderStatement builds no
// stats object to stringify (the saving: no object tree per response).
import { expect } from 'chai';
import sinon from 'sinon';
import { statementStats, statementStatsJson } from '../../lib/protocol/statement-stats.js';
import { renderStatement } from '../../lib/protocol/statement-response.js';
import type { QueryView, StageView } from '../../lib/protocol/query-view.types.js';
import type { SubStageTask } from '../../lib/engine/engine.types.js';
import { testSession } from '../support/actors.js';

function stage(stageId: string, overrides: Partial<StageView> = {}): StageView {
  return {
    stageId, state: 'RUNNING', done: false, nodes: 1, totalSplits: 4, queuedSplits: 1, runningSplits: 2, completedSplits: 1,
    cpuTimeMillis: 3, wallTimeMillis: 8, processedRows: 20, processedBytes: 130, physicalInputRows: 20, physicalInputBytes: 130, outputRows: 7, subStages: [],
    ...overrides,
  };
}

function task(outputBytes: number): SubStageTask {
  return { taskId: 't', fragmentId: 1, partition: 0, nodeId: 'w1', state: 'FINISHED', splits: 1, outputRows: 3, outputBytes, processedRows: 3, processedBytes: 9 } as SubStageTask;
}

function view(overrides: Partial<QueryView> = {}): QueryView {
  return {
    queryId: '20261122_000000_00000_aaaaa', state: 'RUNNING', done: false, queued: false, scheduled: true, session: testSession(), sql: 'SELECT 1',
    createTime: 1000, lastHeartbeat: 1000, planningStartTime: 1001, executionStartTime: 1002, viewTime: 1010, outputRows: 0, outputBytes: 0,
    rootStage: stage('0'),
    ...overrides,
  };
}

const VIEWS: [string, QueryView][] = [
  ['running, one stage', view()],
  ['queued, nothing scheduled', view({ state: 'QUEUED', queued: true, scheduled: false, planningStartTime: undefined, executionStartTime: undefined, rootStage: stage('0', { state: 'PLANNED', totalSplits: 1, queuedSplits: 1, runningSplits: 0, completedSplits: 0 }) })],
  ['planning', view({ state: 'PLANNING', scheduled: false, executionStartTime: undefined })],
  ['finished, ended', view({ state: 'FINISHED', done: true, endTime: 1009, rootStage: stage('0', { state: 'FINISHED', done: true, queuedSplits: 0, runningSplits: 0, completedSplits: 4 }) })],
  ['failed before planning', view({ state: 'FAILED', done: true, scheduled: false, planningStartTime: undefined, executionStartTime: undefined, endTime: 1003 })],
  ['no splits (no progress percentage)', view({ rootStage: stage('0', { totalSplits: 0, queuedSplits: 0, runningSplits: 0, completedSplits: 0 }) })],
  ['fractional progress and large figures', view({ rootStage: stage('0', { totalSplits: 3, completedSplits: 1, processedBytes: 2 ** 53 - 1, cpuTimeMillis: 1e21 }) })],
  ['sub-stages with tasks, nested', view({
    rootStage: stage('0', {
      nodes: 1,
      subStages: [
        stage('1', { nodes: 2, tasks: [task(100), task(23)], subStages: [stage('3', { nodes: 3, tasks: [task(5)] })] }),
        stage('2', { state: 'FINISHED', done: true, tasks: [] }),
      ],
    }),
  })],
  ['figures that are not finite or missing', view({
    rootStage: stage('0', { cpuTimeMillis: Number.NaN, wallTimeMillis: Number.POSITIVE_INFINITY, processedRows: undefined as unknown as number, subStages: [stage('1', { tasks: [task(Number.NaN)] })] }),
  })],
  ['negative zero and odd stage ids', view({ rootStage: stage('"0\u2028é', { cpuTimeMillis: -0, state: 'RUNNING' }) })],
  ['flags missing', view({ queued: undefined as unknown as boolean, rootStage: stage('0', { done: undefined as unknown as boolean }) })],
];

describe('statementStatsJson', () => {
  for (const [name, v] of VIEWS) {
    it(`writes what JSON.stringify(statementStats(view)) writes: ${name}`, () => {
      expect(statementStatsJson(v)).to.equal(JSON.stringify(statementStats(v)));
    });
  }

  it('renderStatement stringifies no stats object: only strings go through JSON.stringify for a response without an error', () => {
    const stringify = sinon.spy(JSON, 'stringify');
    try {
      renderStatement(VIEWS[7]![1], { infoUri: 'http://h/ui/query.html?q', nextUri: 'http://h/v1/statement/q/2' }, 'trino', { json: '[1]', rows: 1, bytes: 3 });
    } finally {
      stringify.restore();
    }
    const objects = stringify.getCalls().filter((call) => typeof call.args[0] !== 'string');
    expect(objects.map((call) => call.args[0])).to.deep.equal([]);
  });
});
