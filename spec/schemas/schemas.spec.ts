// Every schema compiles; realistic bodies validate, and bodies breaking the protocol's rules do not.
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { SCHEMAS_DIR, expectValid, isValid, schemaDocuments, schemaIds, validateResponse, validationErrors } from '../support/schema-validator.js';
import { undeclaredRequired } from './schema-tree.js';

const BASE = 'http://127.0.0.1:8080';
const QID = '20240501_120000_00001_abcde';

const bigint = { rawType: 'bigint', arguments: [] };
const varchar25 = { rawType: 'varchar', arguments: [{ kind: 'LONG', value: 25 }] };

function stage(stageId: string, state: string, done: boolean, subStages: unknown[] = []) {
  return {
    stageId, state, done, nodes: 1, totalSplits: 4, queuedSplits: 0, runningSplits: done ? 0 : 4, completedSplits: done ? 4 : 0,
    cpuTimeMillis: 12, wallTimeMillis: 30, processedRows: 25, processedBytes: 1024, subStages,
  };
}

function stats(state: string, scheduled: boolean, rootStage: unknown) {
  return {
    state, queued: state === 'QUEUED', scheduled, nodes: 2, totalSplits: 5, queuedSplits: 0, runningSplits: 0, completedSplits: 5,
    cpuTimeMillis: 12, wallTimeMillis: 30, queuedTimeMillis: 1, elapsedTimeMillis: 40, processedRows: 25, processedBytes: 1024,
    peakMemoryBytes: 0, spilledBytes: 0, ...(rootStage === undefined ? {} : { rootStage }),
  };
}

const columns = [
  { name: 'nationkey', type: 'bigint', typeSignature: bigint },
  { name: 'name', type: 'varchar(25)', typeSignature: varchar25 },
];

/** The seed-shaped POST response: planned, RUNNING, not scheduled, root stage 0 with a leaf sub-stage, no data. */
function initialResponse(): Record<string, any> {
  return {
    id: QID,
    infoUri: `${BASE}/ui/query.html?${QID}`,
    partialCancelUri: `${BASE}/v1/stage/${QID}.1`,
    nextUri: `${BASE}/v1/statement/${QID}/1`,
    columns,
    stats: stats('RUNNING', false, stage('0', 'SCHEDULED', false, [stage('1', 'SCHEDULED', false)])),
    warnings: [],
  };
}

function progressResponse(): Record<string, any> {
  return {
    ...initialResponse(),
    nextUri: `${BASE}/v1/statement/${QID}/2`,
    data: [[0, 'ALGERIA'], [1, 'ARGENTINA']],
    stats: stats('RUNNING', true, stage('0', 'RUNNING', false, [stage('1', 'FINISHED', true)])),
  };
}

function finalResponse(): Record<string, any> {
  return {
    id: QID,
    infoUri: `${BASE}/ui/query.html?${QID}`,
    columns,
    stats: stats('FINISHED', true, stage('0', 'FINISHED', true, [stage('1', 'FINISHED', true)])),
    warnings: [],
  };
}

function failedResponse(): Record<string, any> {
  return {
    id: QID,
    infoUri: `${BASE}/ui/query.html?${QID}`,
    stats: stats('FAILED', false, undefined),
    error: {
      message: "line 1:8: mismatched input 'FRM'. Expecting: <expression>",
      errorCode: 1,
      errorName: 'SYNTAX_ERROR',
      errorType: 'USER_ERROR',
      errorLocation: { lineNumber: 1, columnNumber: 8 },
      failureInfo: {
        type: 'io.trino.sql.parser.ParsingException',
        message: "line 1:8: mismatched input 'FRM'. Expecting: <expression>",
        suppressed: [],
        stack: ['at parse (lib/engine/dialect.ts:10:3)'],
        errorLocation: { lineNumber: 1, columnNumber: 8 },
      },
    },
    warnings: [],
  };
}

const queryStats = {
  createTime: '2024-05-01T12:00:00.000Z',
  executionStartTime: '2024-05-01T12:00:00.010Z',
  lastHeartbeat: '2024-05-01T12:00:00.950+02:00',
  endTime: '2024-05-01T12:00:01.000Z',
  elapsedTime: '1.00s', queuedTime: '512.00us', analysisTime: '3.21ms', totalScheduledTime: '30.00ms', totalCpuTime: '12.00ms', totalBlockedTime: '0.00ns',
  totalTasks: 2, runningTasks: 0, completedTasks: 2,
  totalDrivers: 5, queuedDrivers: 0, runningDrivers: 0, completedDrivers: 5,
  totalMemoryReservation: '0B', rawInputDataSize: '1536B', processedInputDataSize: '1536B', outputDataSize: '612B',
  rawInputPositions: 25, processedInputPositions: 25, outputPositions: 25,
  internalNetworkInputDataSize: '0B', internalNetworkInputPositions: 0,
};

const session = { user: 'alice', source: 'presto-cli', catalog: 'tpch', schema: 'tiny', remoteUserAddress: '127.0.0.1', userAgent: 'presto-cli/0.290', startTime: 1714564800000 };

function queryInfo(): Record<string, any> {
  return {
    queryId: QID,
    session,
    state: 'FINISHED',
    scheduled: true,
    self: `${BASE}/v1/query/${QID}`,
    fieldNames: ['nationkey', 'name'],
    query: 'SELECT nationkey, name FROM nation',
    queryStats,
    outputStage: { stageId: `${QID}.0`, state: 'FINISHED', done: true, self: `${BASE}/v1/stage/${QID}.0`, subStages: [] },
    warnings: [],
  };
}

function node(): Record<string, any> {
  return {
    uri: 'http://10.0.0.2:8081/v1/status',
    recentRequests: 119.93,
    recentFailures: 0,
    recentSuccesses: 119.93,
    recentFailureRatio: 0,
    lastRequestTime: '2024-05-01T12:00:00.647Z',
    lastResponseTime: '2024-05-01T12:00:00.649Z',
    age: '5.31m',
    recentFailuresByType: {},
  };
}

function failedNode(): Record<string, any> {
  return {
    ...node(),
    recentFailures: 12.5, recentSuccesses: 107.4, recentFailureRatio: 0.104,
    recentFailuresByType: { 'java.net.ConnectException': 12.5 },
    lastFailureInfo: { type: 'java.net.ConnectException', message: 'connect ECONNREFUSED 10.0.0.2:8081', suppressed: [], stack: [] },
  };
}

describe('response schemas', () => {
  describe('the schema files', () => {
    it('are all loaded, each with $id equal to its file name', () => {
      const files = readdirSync(SCHEMAS_DIR).filter((f) => f.endsWith('.schema.json')).sort();
      expect(schemaIds).to.deep.equal(files);
      for (const [id, doc] of schemaDocuments) expect(doc.$id).to.equal(id);
    });

    it('include one schema per response body', () => {
      expect(schemaIds).to.include.members([
        'defs.schema.json', 'statement-initial.schema.json', 'statement-progress.schema.json', 'statement-final.schema.json',
        'statement-failed.schema.json', 'statement-response.schema.json', 'query-info.schema.json', 'query-list.schema.json',
        'node.schema.json', 'node-list.schema.json', 'error.schema.json', 'server-info.schema.json', 'status.schema.json',
      ]);
    });

    it('compile in strict mode (the validator module compiled them on import)', () => {
      for (const id of schemaIds) expect(() => validationErrors(id, {})).not.to.throw();
    });

    it('declare every property they require (what strictRequired would check through $ref and if/then)', () => {
      expect(undeclaredRequired()).to.deep.equal([]);
    });

    it('accept ids with or without the .schema.json suffix and reject unknown ids', () => {
      expect(isValid('node', node())).to.equal(true);
      expect(() => isValid('no-such', {})).to.throw(/unknown schema "no-such"/);
    });
  });

  describe('validateResponse / expectValid', () => {
    it('return quietly for a valid body; expectValid returns the body', () => {
      const body = node();
      expect(() => validateResponse('node.schema.json', body)).not.to.throw();
      expect(expectValid('node', body)).to.equal(body);
    });

    it('throw an AssertionError listing every Ajv error with its path', () => {
      const body = { ...node(), lastRequestTime: 1714564800000, age: '5m' };
      expect(() => validateResponse('node', body))
        .to.throw(/does not match node \(2 errors\)/)
        .with.property('message')
        .that.matches(/\/lastRequestTime: must be string/)
        .and.matches(/\/age: must match pattern/);
    });
  });

  describe('statement responses', () => {
    it('accept the seed-shaped POST response as initial and as a statement response', () => {
      expectValid('statement-initial', initialResponse());
      expectValid('statement-response', initialResponse());
    });

    it('accept a QUEUED POST response without columns or partialCancelUri', () => {
      const body = initialResponse();
      delete body.columns;
      delete body.partialCancelUri;
      body.stats = stats('QUEUED', false, stage('0', 'PLANNED', false));
      expectValid('statement-initial', body);
    });

    it('reject a POST response with data, without nextUri, scheduled, or with a root stage other than "0"', () => {
      expect(isValid('statement-initial', { ...initialResponse(), data: [[1, 'x']] })).to.equal(false);
      const noNext = initialResponse();
      delete noNext.nextUri;
      expect(isValid('statement-initial', noNext)).to.equal(false);
      const scheduled = initialResponse();
      scheduled.stats.scheduled = true;
      expect(isValid('statement-initial', scheduled)).to.equal(false);
      const root1 = initialResponse();
      root1.stats.rootStage.stageId = '1';
      expect(isValid('statement-initial', root1)).to.equal(false);
    });

    it('reject a RUNNING POST response without partialCancelUri', () => {
      const body = initialResponse();
      delete body.partialCancelUri;
      expect(validationErrors('statement-initial', body).map((e) => e.params)).to.deep.include({ missingProperty: 'partialCancelUri' });
    });

    it('accept progress responses with and without rows', () => {
      expectValid('statement-progress', progressResponse());
      const noRows = progressResponse();
      delete noRows.data;
      expectValid('statement-progress', noRows);
      expectValid('statement-response', progressResponse());
    });

    it('reject an empty data array, data without columns, and progress without nextUri', () => {
      expect(isValid('statement-progress', { ...progressResponse(), data: [] })).to.equal(false);
      const noColumns = progressResponse();
      delete noColumns.columns;
      expect(isValid('statement-progress', noColumns)).to.equal(false);
      const noNext = progressResponse();
      delete noNext.nextUri;
      expect(isValid('statement-progress', noNext)).to.equal(false);
    });

    it('reject a relative nextUri', () => {
      expect(isValid('statement-progress', { ...progressResponse(), nextUri: `/v1/statement/${QID}/2` })).to.equal(false);
    });

    it('accept the final response, and an update count with its type', () => {
      expectValid('statement-final', finalResponse());
      expectValid('statement-response', finalResponse());
      const insert = { ...finalResponse(), columns: [{ name: 'rows', type: 'bigint', typeSignature: bigint }], updateType: 'INSERT', updateCount: 3 };
      expectValid('statement-final', insert);
      expect(isValid('statement-final', { ...insert, updateType: undefined })).to.equal(false);
      // The count row itself comes on a page with a nextUri, as in Trino.
      expectValid('statement-progress', { ...insert, nextUri: `${BASE}/v1/statement/${QID}/2`, data: [[3]], stats: stats('FINISHED', true, stage('0', 'FINISHED', true)) });
    });

    it('reject rows on any response without nextUri: final (data or empty data) and failed', () => {
      expect(isValid('statement-final', { ...finalResponse(), data: [[24, 'UNITED STATES']] })).to.equal(false);
      expect(isValid('statement-final', { ...finalResponse(), data: [] })).to.equal(false);
      expect(isValid('statement-failed', { ...failedResponse(), columns, data: [[1, 'x']] })).to.equal(false);
      expect(isValid('statement-response', { ...finalResponse(), data: [[24, 'UNITED STATES']] })).to.equal(false);
    });

    it('reject updateType and updateCount on the POST response (Trino answers them on the GETs)', () => {
      expect(isValid('statement-initial', { ...initialResponse(), updateType: 'INSERT' })).to.equal(false);
      expect(isValid('statement-initial', { ...initialResponse(), updateType: 'INSERT', updateCount: 3 })).to.equal(false);
    });

    it('reject a final response with nextUri, without columns, not FINISHED, or with the root stage not done', () => {
      expect(isValid('statement-final', { ...finalResponse(), nextUri: `${BASE}/v1/statement/${QID}/3` })).to.equal(false);
      const noColumns = finalResponse();
      delete noColumns.columns;
      expect(isValid('statement-final', noColumns)).to.equal(false);
      const running = finalResponse();
      running.stats.state = 'RUNNING';
      expect(isValid('statement-final', running)).to.equal(false);
      const notDone = finalResponse();
      notDone.stats.rootStage = stage('0', 'RUNNING', false);
      expect(isValid('statement-final', notDone)).to.equal(false);
    });

    it('reject a stage without done, or with done contradicting its state', () => {
      const missing = finalResponse();
      delete missing.stats.rootStage.subStages[0].done;
      expect(validationErrors('statement-final', missing).map((e) => e.instancePath)).to.include('/stats/rootStage/subStages/0');
      const contradicting = initialResponse();
      contradicting.stats.rootStage.done = true;
      expect(isValid('statement-initial', contradicting)).to.equal(false);
    });

    it('accept a failed SYNTAX_ERROR response', () => {
      expectValid('statement-failed', failedResponse());
      expectValid('statement-response', failedResponse());
    });

    it('reject a failed response without error, with nextUri, with a 0 error position or an unknown errorType', () => {
      const noError = failedResponse();
      delete noError.error;
      expect(isValid('statement-failed', noError)).to.equal(false);
      expect(isValid('statement-failed', { ...failedResponse(), nextUri: `${BASE}/v1/statement/${QID}/1` })).to.equal(false);
      const zero = failedResponse();
      zero.error.errorLocation = { lineNumber: 1, columnNumber: 0 };
      expect(isValid('statement-failed', zero)).to.equal(false);
      const badType = failedResponse();
      badType.error.errorType = 'SYNTAX';
      expect(isValid('statement-failed', badType)).to.equal(false);
    });

    it('reject as a statement response anything that fits none of the four shapes', () => {
      expect(isValid('statement-response', { ...failedResponse(), nextUri: `${BASE}/v1/statement/${QID}/1` })).to.equal(false);
      expect(isValid('statement-response', { id: QID })).to.equal(false);
    });

    it('accept nested type signatures of both dialects', () => {
      const row = {
        rawType: 'row',
        arguments: [
          { kind: 'NAMED_TYPE', value: { fieldName: { name: 'a', delimited: false }, typeSignature: bigint } },
          { kind: 'NAMED_TYPE', value: { fieldName: { name: 'b' }, typeSignature: 'varchar' } },
        ],
      };
      const arr = { rawType: 'array', arguments: [{ kind: 'TYPE', value: row }], typeArguments: [row], literalArguments: [] };
      expectValid('statement-progress', { ...progressResponse(), columns: [{ name: 'x', type: 'array(row(a bigint, b varchar))', typeSignature: arr }], data: [[[[1, 'q']]]] });
      const badLong = { rawType: 'varchar', arguments: [{ kind: 'LONG', value: '25' }] };
      expect(isValid('statement-final', { ...finalResponse(), columns: [{ name: 'x', type: 'varchar(25)', typeSignature: badLong }] })).to.equal(false);
    });
  });

  describe('query resource', () => {
    it('accept a finished query info', () => expectValid('query-info', queryInfo()));

    it('accept a running query info without endTime or outputStage', () => {
      const body = queryInfo();
      body.state = 'RUNNING';
      body.scheduled = false;
      delete body.outputStage;
      body.queryStats = { ...queryStats, endTime: undefined };
      expectValid('query-info', JSON.parse(JSON.stringify(body)));
    });

    it('accept a failed query info carrying its error code', () => {
      const body = queryInfo();
      body.state = 'FAILED';
      delete body.outputStage;
      Object.assign(body, { errorType: 'USER_ERROR', errorCode: { code: 1, name: 'SYNTAX_ERROR', type: 'USER_ERROR' }, failureInfo: failedResponse().error.failureInfo });
      expectValid('query-info', body);
      delete body.errorCode;
      expect(isValid('query-info', body)).to.equal(false);
    });

    it('reject epoch-millis or offset-less query times, bare-number durations and sizes', () => {
      for (const patch of [{ createTime: 1714564800000 }, { createTime: '2024-05-01T12:00:00' }, { elapsedTime: '1s' }, { elapsedTime: 1000 }, { rawInputDataSize: 1536 }, { outputDataSize: '1.5 kB' }]) {
        expect(isValid('query-info', { ...queryInfo(), queryStats: { ...queryStats, ...patch } }), JSON.stringify(patch)).to.equal(false);
      }
    });

    it('reject a finished query without endTime or outputStage, and a session with an ISO startTime', () => {
      const noEnd = queryInfo();
      noEnd.queryStats = { ...queryStats };
      delete noEnd.queryStats.endTime;
      expect(isValid('query-info', noEnd)).to.equal(false);
      const noOutput = queryInfo();
      delete noOutput.outputStage;
      expect(isValid('query-info', noOutput)).to.equal(false);
      expect(isValid('query-info', { ...queryInfo(), session: { ...session, startTime: '2024-05-01T12:00:00Z' } })).to.equal(false);
    });

    it('accept a query list of basic infos, and an empty one', () => {
      const basic = { queryId: QID, session, state: 'RUNNING', scheduled: true, self: `${BASE}/v1/query/${QID}`, query: 'SELECT 1', queryStats: { createTime: queryStats.createTime, elapsedTime: '1.20s', queuedTime: '1.00ms', totalCpuTime: '3.00ms' } };
      expectValid('query-list', [basic]);
      expectValid('query-list', []);
      expect(isValid('query-list', [{ ...basic, queryStats: { createTime: queryStats.createTime } }])).to.equal(false);
      expect(isValid('query-list', basic)).to.equal(false);
    });
  });

  describe('node resource', () => {
    it('accept healthy and failed nodes, and lists of them', () => {
      expectValid('node', node());
      expectValid('node', failedNode());
      expectValid('node-list', [node(), failedNode()]);
      expectValid('node-list', []);
    });

    it('reject a numeric lastRequestTime, prestodb millis fields, a bare-number age and non-numeric failure counts', () => {
      expect(isValid('node', { ...node(), lastRequestTime: 1714564800647 })).to.equal(false);
      expect(isValid('node', { ...node(), lastRequestTimeInMillis: 1714564800647 })).to.equal(false);
      expect(isValid('node', { ...node(), age: 318 })).to.equal(false);
      expect(isValid('node', { ...node(), recentFailuresByType: { 'java.io.IOException': '1' } })).to.equal(false);
      expect(isValid('node-list', [node(), { ...node(), uri: 'worker-1' }])).to.equal(false);
    });
  });

  describe('error and info bodies', () => {
    it('accept the one HTTP error shape, and reject it without status or with a nested error', () => {
      expectValid('error', { errorName: 'NOT_FOUND', errorCode: 5, errorType: 'USER_ERROR', message: 'Query not found', status: 404 });
      expectValid('error', { errorName: 'GONE', message: 'Stale token', status: 410 });
      expect(isValid('error', { errorName: 'NOT_FOUND', message: 'Query not found' })).to.equal(false);
      expect(isValid('error', { error: { errorName: 'NOT_FOUND', message: 'x' }, status: 404 })).to.equal(false);
      expect(isValid('error', { errorName: 'NOT_FOUND', message: 'x', status: 200 })).to.equal(false);
    });

    it('accept server info and reject a numeric uptime', () => {
      const info = { nodeVersion: { version: '0.1.0' }, environment: 'test', coordinator: true, starting: false, uptime: '2.50m', nodeId: 'coordinator', state: 'ACTIVE' };
      expectValid('server-info', info);
      expect(isValid('server-info', { ...info, uptime: 150000 })).to.equal(false);
      expect(isValid('server-info', { ...info, state: 'RUNNING' })).to.equal(false);
    });

    it('accept a node status with its event-loop figures, and reject one without them or with negative delays', () => {
      const figures = { samples: 120, p50Ms: 0.2, p99Ms: 3.5, maxMs: 182.4, meanMs: 1.1 };
      const status = {
        nodeId: 'coordinator', nodeVersion: { version: '0.1.0' }, environment: 'test', coordinator: true, uptime: '2.50m',
        externalAddress: '127.0.0.1', internalAddress: '127.0.0.1', processors: 2, heapUsed: 1 << 24, heapAvailable: 1 << 30, nonHeapUsed: 1 << 26,
        eventLoop: {
          delay: { sinceStart: figures, lastMinute: { ...figures, samples: 0, p50Ms: 0, p99Ms: 0, maxMs: 0, meanMs: 0 } },
          stalls: { thresholdMs: 100, count: 1, last: { at: '2024-05-01T12:00:00.123Z', delayMs: 182.4, queryIds: [QID] } },
        },
      };
      expectValid('status', status);
      expectValid('status', { ...status, eventLoop: { ...status.eventLoop, stalls: { thresholdMs: 100, count: 0 } } });
      const { eventLoop: _eventLoop, ...without } = status;
      expect(isValid('status', without)).to.equal(false);
      expect(isValid('status', { ...status, eventLoop: { ...status.eventLoop, delay: { sinceStart: { ...figures, maxMs: -1 }, lastMinute: figures } } })).to.equal(false);
      expect(isValid('status', { ...status, uptime: 150000 })).to.equal(false);
      expect(isValid('status', { ...status, eventLoop: { ...status.eventLoop, stalls: { ...status.eventLoop.stalls, last: { ...status.eventLoop.stalls.last, at: 1 } } } })).to.equal(false);
    });
  });
});
