// `vivace query` in batch mode (--execute, --file, stdin), run as a child process against a real server
// on DuckDB: each output format's exact text, session state across statements, errors with the caret,
// option errors, and Basic authentication over HTTPS.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/http.js';
import { createTestEngine } from '../support/duckdb.js';
import { tempDir, type SecureServer, type TempDir } from '../security/auth-fixtures.js';
import { runCli, startPasswordServer } from './cli-process.js';

const VALUES =
  "SELECT 1 AS one, 'a\"b,c' AS two, NULL AS n, 1.5e0 AS d, ARRAY[1, 2] AS arr, MAP(ARRAY['k'], ARRAY[1]) AS m, " +
  "CAST(ROW(1, 'x') AS ROW(a integer, b varchar)) AS r, X'0102ff' AS bin, DECIMAL '1.50' AS dec, 'tab\there' AS t";

describe('vivace query (batch)', function () {
  this.timeout(60_000);
  let server: TestServer;

  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(2) });
  });
  after(async () => server.stop());

  const run = (...args: string[]) => runCli(['--server', server.url, ...args]);

  describe('output formats (exact text)', () => {
    it('ALIGNED: a centred header, numbers right-aligned, NULL, arrays, maps, rows, varbinary hex, the row count', async () => {
      const r = await run('--execute', VALUES, '--output-format', 'ALIGNED');
      expect(r.stderr).to.equal('');
      expect(r.code).to.equal(0);
      expect(r.stdout).to.equal(
        [
          // A tab has no width (Trino's wcwidth), so the t column is 7 wide.
          ' one |  two  |  n   |  d  |  arr   |   m   |     r      |   bin    | dec  |    t    ',
          '-----+-------+------+-----+--------+-------+------------+----------+------+---------',
          '   1 | a"b,c | NULL | 1.5 | [1, 2] | {k=1} | {a=1, b=x} | 01 02 ff | 1.50 | tab\there ',
          '(1 row)',
          '',
        ].join('\n'),
      );
    });

    it('CSV is the batch default: every field quoted, no header, NULL empty', async () => {
      const r = await run('--execute', VALUES);
      expect(r.code).to.equal(0);
      expect(r.stdout).to.equal('"1","a""b,c","","1.5","[1, 2]","{k=1}","{a=1, b=x}","01 02 ff","1.50","tab\there"\n');
    });

    it('CSV_HEADER adds the column names', async () => {
      const r = await run('--execute', 'SELECT 1 AS a, 2 AS b UNION ALL SELECT 3, 4 ORDER BY 1', '--output-format', 'CSV_HEADER');
      expect(r.stdout).to.equal('"a","b"\n"1","2"\n"3","4"\n');
    });

    it('TSV escapes tabs, newlines and backslashes; TSV_HEADER adds names', async () => {
      const sql = "SELECT 'x\ty' AS a, 'l1' || chr(10) || 'l2\\' AS b, NULL AS c";
      expect((await run('--execute', sql, '--output-format', 'TSV')).stdout).to.equal('x\\ty\tl1\\nl2\\\\\t\n');
      expect((await run('--execute', sql, '--output-format', 'tsv_header')).stdout).to.equal('a\tb\tc\nx\\ty\tl1\\nl2\\\\\t\n');
    });

    it('JSON: one object per row, numbers as the server wrote them, varbinary as hex', async () => {
      const r = await run('--execute', "SELECT 1 AS one, 1.5e0 AS d, 12345678901234567 AS big, NULL AS n, ARRAY['a'] AS arr, X'ff' AS bin", '--output-format', 'JSON');
      expect(r.stdout).to.equal('{"one":1,"d":1.5,"big":12345678901234567,"n":null,"arr":["a"],"bin":"ff"}\n');
    });

    it("ALIGNED: a value on several lines marks its continuation with '+', wide characters take two columns", async () => {
      const r = await run('--execute', "SELECT s, n FROM (VALUES ('a' || chr(10) || 'bc', 1), ('日本', 2)) t(s, n) ORDER BY n", '--output-format', 'ALIGNED');
      expect(r.stdout).to.equal(['  s   | n ', '------+---', ' a   +| 1 ', ' bc   |   ', ' 日本 | 2 ', '(2 rows)', ''].join('\n'));
    });

    it('an empty result prints only the ALIGNED header and (0 rows)', async () => {
      const r = await run('--execute', 'SELECT 1 AS x WHERE false', '--output-format', 'ALIGNED');
      expect(r.stdout).to.equal(' x \n---\n(0 rows)\n');
    });
  });

  describe('several statements and the session', () => {
    let dir: TempDir;
    before(() => (dir = tempDir()));
    after(() => dir.remove());

    it('--file runs each statement in order; updates report on stderr', async () => {
      const file = dir.file(
        'several.sql',
        [
          '-- a comment; with a semicolon',
          "CREATE TABLE memory.default.cli_t AS SELECT 1 AS id, 'a;b' AS name;",
          '/* block ; comment */ INSERT INTO memory.default.cli_t VALUES (2, \'c\'), (3, \'d\');',
          'SELECT id, name FROM memory.default.cli_t ORDER BY id;',
          'DROP TABLE memory.default.cli_t',
        ].join('\n'),
      );
      const r = await run('--file', file);
      expect(r.code).to.equal(0, r.stderr);
      expect(r.stdout).to.equal('"1","a;b"\n"2","c"\n"3","d"\n');
      expect(r.stderr).to.equal('CREATE TABLE: 1 row\nINSERT: 2 rows\nDROP TABLE\n');
    });

    it('USE then an unqualified name; SET SESSION and PREPARE carry to the next statements', async () => {
      const r = await run(
        '--execute',
        "USE tpch.tiny; SELECT count(*) FROM nation; SET SESSION query_max_run_time = '1h'; " +
          "SHOW SESSION LIKE 'query_max_run_time'; PREPARE q FROM SELECT ? + 1; EXECUTE q USING 41; DEALLOCATE PREPARE q",
        '--output-format',
        'TSV',
      );
      expect(r.code).to.equal(0, r.stderr);
      const lines = r.stdout.split('\n');
      expect(lines[0]).to.equal('25');
      expect(lines[1]!.split('\t').slice(0, 2)).to.deep.equal(['query_max_run_time', '1h']);
      expect(lines[2]).to.equal('42');
      expect(r.stderr).to.equal('USE\nSET SESSION\nPREPARE\nDEALLOCATE\n');
    });

    it('--catalog, --schema and --session set the starting session', async () => {
      const r = await run('--catalog', 'tpch', '--schema', 'tiny', '--session', 'query_max_run_time=2h', '--execute',
        "SELECT count(*) FROM region; SHOW SESSION LIKE 'query_max_run_time'", '--output-format', 'TSV');
      expect(r.code).to.equal(0, r.stderr);
      const [count, session] = r.stdout.split('\n');
      expect(count).to.equal('5');
      expect(session!.split('\t').slice(0, 2)).to.deep.equal(['query_max_run_time', '2h']);
    });

    it('a transaction spans statements (Started- and Clear-Transaction-Id)', async () => {
      const r = await run('--execute',
        'CREATE TABLE memory.default.cli_tx (v integer); INSERT INTO memory.default.cli_tx VALUES 7; START TRANSACTION; SELECT v FROM memory.default.cli_tx; COMMIT; ' +
          'DROP TABLE memory.default.cli_tx');
      expect(r.code).to.equal(0, r.stderr);
      expect(r.stdout).to.equal('"7"\n');
      expect(r.stderr).to.equal('CREATE TABLE\nINSERT: 1 row\nSTART TRANSACTION\nCOMMIT\nDROP TABLE\n');
    });

    it('statements piped on stdin run as a batch', async () => {
      const r = await runCli(['--server', server.url], { input: 'SELECT 1;\nSELECT 2;\n' });
      expect(r.code).to.equal(0, r.stderr);
      expect(r.stdout).to.equal('"1"\n"2"\n');
    });
  });

  describe('errors', () => {
    it('prints the error name, message and a caret under the location, then stops (exit 1)', async () => {
      const r = await run('--execute', 'SELECT 1;\nSELECT\n  nope FROM (VALUES 1) t(x);\nSELECT 3');
      expect(r.code).to.equal(1);
      expect(r.stdout).to.equal('"1"\n');
      const lines = r.stderr.split('\n');
      expect(lines[0]).to.match(/^Query \d{8}_\d{6}_\d{5}_[a-z0-9]{5} failed \(COLUMN_NOT_FOUND\): line 2:3: Column 'nope' cannot be resolved$/);
      expect(lines.slice(1)).to.deep.equal(['LINE 2:   nope FROM (VALUES 1) t(x)', '          ^', '']);
    });

    it('--ignore-errors goes on after a failed statement (exit 1 all the same)', async () => {
      const r = await run('--ignore-errors', '--execute', 'SELECT nope; SELECT 2');
      expect(r.code).to.equal(1);
      expect(r.stdout).to.equal('"2"\n');
      expect(r.stderr).to.contain('failed (COLUMN_NOT_FOUND)');
    });

    it('bad options are a usage error (exit 2) with a clear message', async () => {
      const cases: [string[], RegExp][] = [
        [['--output-format', 'XML', '--execute', 'SELECT 1'], /--output-format must be one of/],
        [['--session', 'no_equals', '--execute', 'SELECT 1'], /Session property must be name=value/],
        [['--session', 'a.b.c=1', '--execute', 'SELECT 1'], /Invalid session property/],
        [['--schema', 'tiny', '--execute', 'SELECT 1'], /--schema needs --catalog/],
        [['--password', '--execute', 'SELECT 1'], /needs an https --server/],
        [['--bogus'], /unknown option/],
      ];
      for (const [args, message] of cases) {
        const r = await run(...args);
        expect(r.code, args.join(' ')).to.equal(2);
        expect(r.stderr).to.match(message);
      }
      const badServer = await runCli(['--server', 'ftp://x', '--execute', 'SELECT 1']);
      expect(badServer.code).to.equal(2);
      expect(badServer.stderr).to.contain('--server must be an http or https URL');
    });

    it('a server that is not there is a clear error (exit 1)', async () => {
      const r = await runCli(['--server', 'http://127.0.0.1:1', '--execute', 'SELECT 1']);
      expect(r.code).to.equal(1);
      expect(r.stderr).to.match(/^Error running command: Error running statement: .*ECONNREFUSED/);
    });
  });
});

describe('vivace query with authentication over HTTPS', function () {
  this.timeout(60_000);
  let dir: TempDir;
  let server: SecureServer;
  let caFile: string;
  let token: (user: string) => Promise<string>;

  before(async () => {
    dir = tempDir();
    ({ server, caFile, token } = await startPasswordServer(dir));
  });
  after(async () => {
    await server.stop();
    dir.remove();
  });

  it('--user and --password (from VIVACE_PASSWORD without a terminal) authenticate; current_user is the user', async () => {
    const r = await runCli(['--server', server.httpsUrl, '--truststore-path', caFile, '--user', 'alice', '--password', '--execute', 'SELECT current_user'], {
      env: { VIVACE_PASSWORD: 'alice-secret' },
    });
    expect(r.stderr).to.equal('');
    expect(r.stdout).to.equal('"alice"\n');
    expect(r.code).to.equal(0);
  });

  it('--access-token is sent as a Bearer token (with --user naming the same user, as Trino requires)', async () => {
    const r = await runCli(['--server', server.httpsUrl, '--truststore-path', caFile, '--user', 'carol', '--access-token', await token('carol'), '--execute', 'SELECT current_user']);
    expect(r.stderr).to.equal('');
    expect(r.stdout).to.equal('"carol"\n');
  });

  it('a wrong password is a 401 the CLI reports (exit 1)', async () => {
    const r = await runCli(['--server', server.httpsUrl, '--truststore-path', caFile, '--user', 'alice', '--password', '--execute', 'SELECT 1'], {
      env: { VIVACE_PASSWORD: 'wrong' },
    });
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/^Error running command: Error starting query at https:\/\/127\.0\.0\.1:\d+\/v1\/statement returned HTTP 401/);
  });

  it('without the certificate trusted, the TLS error is reported', async () => {
    const r = await runCli(['--server', server.httpsUrl, '--user', 'alice', '--password', '--execute', 'SELECT 1'], { env: { VIVACE_PASSWORD: 'alice-secret' } });
    expect(r.code).to.equal(1);
    expect(r.stderr).to.match(/^Error running command: Error running statement: .*(self-signed|certificate)/i);
  });
});

describe('vivace query against a hostile server', function () {
  this.timeout(60_000);
  let server: Server;
  let url: string;
  /** What the next POST answers: status and body. */
  let answer: { status: number; body: string };

  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(answer.body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const cases: [string, { status: number; body: string }, RegExp][] = [
    ['a non-JSON body', { status: 200, body: '<html>' }, /the response is not JSON \(Invalid JSON at offset 0: expected a value\)/],
    ['JSON nested past any type', { status: 200, body: '['.repeat(100_000) }, /nesting too deep/],
    ['JSON without a query id', { status: 200, body: '{"stats":{}}' }, /the response has no query id/],
    ['a 500 with a JSON error', { status: 500, body: '{"errorName":"X","message":"boom"}' }, /returned HTTP 500: X: boom/],
    ['a 404 with a long text body', { status: 404, body: 'n'.repeat(100_000) }, /returned HTTP 404: n{200}$/m],
  ];
  for (const [what, response, message] of cases) {
    it(`${what}: a clear error, exit 1`, async () => {
      answer = response;
      const r = await runCli(['--server', url, '--execute', 'SELECT 1']);
      expect(r.code).to.equal(1);
      expect(r.stdout).to.equal('');
      expect(r.stderr).to.match(/^Error running command: /);
      expect(r.stderr).to.match(message);
    });
  }
});
