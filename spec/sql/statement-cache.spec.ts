// One parse of a statement's text for all of the coordinator's readers (statement-cache.ts): the resource-group
// selection, the catalog statements, the worker route and the spooling choice share it, and the same text
// sent again is not parsed again. Counted with a spy on the cache's parser, through a coordinator over the
// serve command's engines (catalog statements over a RemoteEngine) and a real worker.
import { expect } from 'chai';
import sinon from 'sinon';
import { realpathSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clearParsedStatements, parsedStatement, PARSE_CACHE_ENTRIES, PARSE_CACHE_MAX_TEXT, statementParser } from '../../lib/sql/statement-cache.js';
import { createCoordinator, type Coordinator } from '../../lib/actors/coordinator.js';
import { isPastPlanning } from '../../lib/actors/query-view.js';
import { CatalogStatementsEngine, catalogStatementOf } from '../../lib/cluster/catalog-statements.js';
import { CatalogManager } from '../../lib/connectors/catalog-manager.js';
import { builtInCatalogs } from '../../lib/connectors/catalog-files.js';
import { routeOf } from '../../lib/cluster/statement-route.js';
import { queryDataEncodingOf } from '../../lib/spooling/spooled-statement.js';
import { selectionOf } from '../../lib/resource-groups/selection.js';
import { remoteEngine, session, startTestWorker, WorkerList, type TestWorker } from '../cluster/cluster-harness.js';

describe('statement cache: one parse per text', () => {
  let parses: sinon.SinonSpy<[string], ReturnType<typeof statementParser.parse>>;
  beforeEach(() => {
    clearParsedStatements();
    parses = sinon.spy(statementParser, 'parse');
  });
  afterEach(() => sinon.restore());

  it('gives every reader the same tree from one parse, and parses a text again only once it was forgotten', () => {
    const first = parsedStatement('SELECT 1');
    expect(parsedStatement('SELECT 1')).to.equal(first);
    expect(parses.callCount).to.equal(1);
    for (let i = 0; i < PARSE_CACHE_ENTRIES; i++) parsedStatement(`SELECT ${i} AS n`);
    parsedStatement('SELECT 1');
    expect(parses.callCount).to.equal(2 + PARSE_CACHE_ENTRIES);
  });

  it("is where each of the coordinator's readers of a text gets its tree: whichever reads first parses, the others not", () => {
    const readers: [string, (sql: string) => unknown][] = [
      ['resource-group selection', (sql) => selectionOf(session(), sql)],
      ['catalog statements', (sql) => catalogStatementOf(sql, session())],
      ['worker route', (sql) => routeOf(sql, session(), new Set(['tpch']))],
      ['spooling choice', (sql) => queryDataEncodingOf(sql, 'json', ['json'])],
    ];
    for (const [name, first] of readers) {
      const sql = `SELECT name FROM tpch.tiny.nation WHERE name <> '${name}'`;
      const before = parses.callCount;
      first(sql);
      expect(parses.callCount - before, `${name} parses through the cache`).to.equal(1);
      for (const [, other] of readers) other(sql);
      expect(parses.callCount - before, `the others after ${name}`).to.equal(1);
    }
  });

  it('keeps a text that does not parse as not parsing (no parse again), and no text past the length bound', () => {
    expect(parsedStatement('SELEC 1')).to.equal(undefined);
    expect(parsedStatement('SELEC 1')).to.equal(undefined);
    expect(parses.callCount).to.equal(1);
    const long = `SELECT ${'1 + '.repeat(PARSE_CACHE_MAX_TEXT / 4)}1`;
    parsedStatement(long);
    parsedStatement(long);
    expect(parses.callCount).to.equal(3);
  });

  describe('through a coordinator over the cluster engines', function () {
    this.timeout(60_000);
    let worker: TestWorker;
    let dir: string;
    let coordinator: Coordinator;

    before(async () => {
      dir = realpathSync(mkdtempSync(join(tmpdir(), 'vivace-statement-cache-')));
      worker = await startTestWorker('w0', { memory: true });
      const manager = new CatalogManager(builtInCatalogs(join(dir, 'data')), { management: 'static' });
      coordinator = createCoordinator({ engine: new CatalogStatementsEngine(remoteEngine(new WorkerList([worker])), manager) });
    });
    after(async () => {
      await coordinator.stop();
      await worker.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    async function planned(sql: string): Promise<void> {
      const { tracked } = coordinator.start(sql, session());
      const view = await coordinator.waitFor(tracked, isPastPlanning, 30_000);
      expect(view.state, view.error?.message).to.be.oneOf(['RUNNING', 'FINISHING', 'FINISHED']);
      tracked.ref?.send({ type: 'query.cancel' });
    }

    it('parses a query once on the coordinator (selection, catalog statements, route), and the same text again not at all', async () => {
      await planned('SELECT 42 AS parsed_once');
      expect(parses.callCount, 'first query').to.equal(1);
      await planned('SELECT 42 AS parsed_once');
      expect(parses.callCount, 'the same text again').to.equal(1);
      expect(worker.planned).to.deep.equal(['SELECT 42 AS parsed_once', 'SELECT 42 AS parsed_once']);
    });
  });
});
