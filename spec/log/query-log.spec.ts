// The log lines of a query's life on a real server over real DuckDB, read through an injected
// destination: one line when it ends with who ran it and how it went; its SQL only at debug; no
// password at any level; fewer lines at a higher level.
import { expect } from 'chai';
import { createCoordinator } from '../../lib/actors/coordinator.js';
import { startServer, type RunningServer } from '../../lib/http/server.js';
import type { LogLevel } from '../../lib/log/log-level.js';
import { queryLog } from '../../lib/log/query-log.js';
import type { QueryView, StageView } from '../../lib/protocol/query-view.types.js';
import { ZERO_COUNTERS } from '../../lib/protocol/states.js';
import { testSession } from '../support/actors.js';
import { createTestEngine } from '../support/duckdb.js';
import { runStatement } from '../support/http.js';
import { captureLog, type CapturedLog, type LogLine } from '../support/log-capture.js';
import { basic, bcryptLine, makeCertificate, send, tempDir, type TempDir } from '../security/auth-fixtures.js';

const SECRET_SQL = "SELECT 'the-text-of-a-private-query' AS s";

describe('log: the lines of a query', function () {
  this.timeout(30_000);

  /** A server over DuckDB logging at `level`; `run` gets its URL. */
  async function withServer(level: LogLevel, run: (url: string, log: CapturedLog) => Promise<void>): Promise<CapturedLog> {
    const log = captureLog(level);
    const coordinator = createCoordinator({ engine: await createTestEngine(2), config: { trackerIntervalMs: 60_000 } });
    const server = await startServer(coordinator, { host: '127.0.0.1', port: 0, logger: log.logger });
    try {
      await run(server.url, log);
    } finally {
      await server.close();
      await coordinator.stop();
    }
    return log;
  }

  const finishedLine = (log: CapturedLog, queryId: string) => log.waitFor((l) => l.event === 'query_finished' && l.queryId === queryId);

  it('at info: one line per ended query with its id, user, source, state, elapsed time, rows, bytes and error; never its SQL', async () => {
    const log = await withServer('info', async (url, captured) => {
      const ok = await runStatement(url, SECRET_SQL, { 'X-Trino-User': 'alice', 'X-Trino-Source': 'the-dashboard' });
      const okLine = await finishedLine(captured, ok.final.id as string);
      expect(Object.keys(okLine).sort()).to.deep.equal(
        ['bytes', 'elapsedMs', 'errorName', 'errorType', 'event', 'exchangedBytes', 'exchangedRows', 'hostname', 'level', 'pid', 'queryId', 'rows', 'source', 'state', 'time', 'user'].sort(),
      );
      // One task: nothing exchanged between stages.
      expect(okLine).to.include({ level: 'info', queryId: ok.final.id, user: 'alice', source: 'the-dashboard', state: 'FINISHED', rows: 1, exchangedRows: 0, exchangedBytes: 0, errorName: null, errorType: null });
      expect(okLine.elapsedMs).to.be.a('number').and.at.least(0).and.below(30_000);
      expect(okLine.bytes).to.be.greaterThan(0);
      expect(Date.parse(okLine.time as string)).to.be.closeTo(Date.now(), 30_000);

      const failed = await runStatement(url, 'SELECT * FROM memory.default.missing', { 'X-Presto-User': 'bob' });
      const failedLine = await finishedLine(captured, failed.final.id as string);
      expect(failedLine).to.include({ level: 'info', user: 'bob', source: null, state: 'FAILED', rows: 0, errorName: 'TABLE_NOT_FOUND', errorType: 'USER_ERROR' });
    });
    expect(log.lines().filter((l) => l.event === 'query_finished')).to.have.lengthOf(2);
    expect(log.chunks().join('')).not.to.include('the-text-of-a-private-query');
    expect(log.lines().some((l) => l.event === 'query_text')).to.equal(false);
  });

  it('a query in stages: exchangedRows and exchangedBytes are what every stage below the root handed on (its rows, its tasks\' files)', () => {
    const log = captureLog('info');
    const stage = (stageId: string, outputRows: number, taskBytes: number[], subStages: StageView[] = []): StageView => ({
      ...ZERO_COUNTERS, stageId, state: 'FINISHED', done: true, outputRows, subStages,
      tasks: taskBytes.map((outputBytes, partition) => ({
        taskId: `q.${stageId}.${partition}.0`, nodeId: 'w', state: 'FINISHED', splits: 1, outputRows: 0, outputBytes,
        processedRows: 0, processedBytes: 0, cpuTimeMillis: 0, wallTimeMillis: 0, peakMemoryBytes: 0, fragmentId: Number(stageId), partition,
      })),
    });
    // A root over a HASH stage (1) over two scans (2, 3): 10 + 40 + 25 rows, 100 + 50 + 400 + 30 + 20 bytes.
    const rootStage: StageView = { ...ZERO_COUNTERS, stageId: '0', state: 'FINISHED', done: true, outputRows: 4, subStages: [stage('1', 10, [100, 50], [stage('2', 40, [400]), stage('3', 25, [30, 20])])] };
    const view = {
      queryId: 'q', state: 'FINISHED', done: true, queued: false, scheduled: true, session: testSession(), sql: 'SELECT 1',
      createTime: 1000, lastHeartbeat: 1000, endTime: 1010, viewTime: 1010, outputRows: 4, outputBytes: 64, rootStage,
    } satisfies QueryView;
    queryLog(log.logger).ended!(view);
    expect(log.lines()[0]).to.include({ event: 'query_finished', rows: 4, bytes: 64, exchangedRows: 75, exchangedBytes: 600 });
  });

  it('at debug: the SQL goes on a line of its own, at debug level', async () => {
    let queryId = '';
    const log = await withServer('debug', async (url, captured) => {
      queryId = (await runStatement(url, SECRET_SQL, { 'X-Trino-User': 'alice' })).final.id as string;
      await finishedLine(captured, queryId);
    });
    const text = log.lines().filter((l) => l.event === 'query_text');
    expect(text).to.have.lengthOf(1);
    expect(text[0]).to.include({ level: 'debug', queryId, user: 'alice', query: SECRET_SQL });
    expect(log.lines().filter((l: LogLine) => JSON.stringify(l).includes('the-text-of-a-private-query')).map((l) => l.event)).to.deep.equal(['query_text']);
  });

  it('at warn: a finished query and a user error write nothing', async () => {
    const log = await withServer('warn', async (url) => {
      await runStatement(url, 'SELECT 1', { 'X-Trino-User': 'alice' });
      await runStatement(url, 'SELECT * FROM memory.default.missing', { 'X-Trino-User': 'alice' });
    });
    expect(log.lines()).to.deep.equal([]);
  });

  it('never writes a password or an Authorization header, even at trace', async () => {
    const log = captureLog('trace');
    const certificate = await makeCertificate();
    const dir: TempDir = tempDir();
    const coordinator = createCoordinator({
      engine: await createTestEngine(2),
      config: {
        trackerIntervalMs: 60_000,
        authenticationTypes: ['PASSWORD'],
        passwordFile: dir.file('password.db', `${bcryptLine('alice', 'alice-secret-pw')}\n`),
        httpsEnabled: true,
        httpsKeystorePath: dir.file('keystore.pem', `${certificate.key}${certificate.cert}`),
      },
    });
    let server: RunningServer | undefined;
    try {
      server = await startServer(coordinator, { host: '127.0.0.1', port: 0, httpsPort: 0, logger: log.logger });
      const authorization = basic('alice', 'alice-secret-pw');
      let body = (await send('POST', `${server.httpsUrl!}/v1/statement`, { ca: certificate.cert, body: 'SELECT 1', headers: { Authorization: authorization } })).body;
      const queryId = body.id as string;
      while (body.nextUri) body = (await send('GET', body.nextUri as string, { ca: certificate.cert, headers: { Authorization: authorization } })).body;
      expect(body.stats.state).to.equal('FINISHED');
      const wrong = await send('GET', `${server.httpsUrl!}/v1/query`, { ca: certificate.cert, headers: { Authorization: basic('alice', 'not-the-pw') } });
      expect(wrong.status).to.equal(401);
      await log.waitFor((l) => l.event === 'query_finished' && l.queryId === queryId);
      const text = log.chunks().join('');
      expect(text).to.include('"user":"alice"');
      for (const secret of ['alice-secret-pw', 'not-the-pw', authorization.slice('Basic '.length)]) expect(text).not.to.include(secret);
    } finally {
      await server?.close();
      await coordinator.stop();
      dir.remove();
    }
  });

  it('censors a credential field passed at the top of a line', () => {
    const log = captureLog('info');
    log.logger.info({ event: 'x', password: 'p1', authorization: 'Basic abc', accessToken: 't', token: 'u', extraCredentials: { k: 'v' }, user: 'alice' });
    expect(log.lines()[0]).to.deep.include({ password: '[redacted]', authorization: '[redacted]', accessToken: '[redacted]', token: '[redacted]', extraCredentials: '[redacted]', user: 'alice' });
  });
});
