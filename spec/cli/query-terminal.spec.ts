// `vivace query` in a real terminal (tmux): the interactive prompt with an aligned table, a multi-line
// statement, an error with its location, the live progress line of a long query, Ctrl-C cancelling it on
// the server and returning to the prompt, and a second Ctrl-C leaving the CLI.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { startTestServer, request, type TestServer } from '../support/http.js';
import { createTestEngine } from '../support/duckdb.js';
import { validateResponse } from '../support/schema-validator.js';
import { tempDir, type SecureServer, type TempDir } from '../security/auth-fixtures.js';
import { MAIN, startPasswordServer } from './cli-process.js';
import { TmuxTerminal } from './tmux-terminal.js';

const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
})();

/** Long enough to watch (10^10 rows of a cross join; a sequence holds at most 10000), ended by Ctrl-C. */
const LONG_QUERY =
  'SELECT count(*) FROM UNNEST(sequence(1, 10000)) a(x), UNNEST(sequence(1, 10000)) b(y), UNNEST(sequence(1, 100)) c(z) WHERE x + y + z > 0;';

describe('vivace query in a terminal (tmux)', function () {
  this.timeout(120_000);
  let server: TestServer;
  let dir: TempDir;
  let term: TmuxTerminal;

  before(async function () {
    if (!hasTmux) this.skip();
    server = await startTestServer({ engine: await createTestEngine(2), config: { longPollMs: 200 } });
    dir = tempDir();
    term = new TmuxTerminal({ VIVACE_HISTORY_FILE: `${dir.path}/history` });
    term.line(`node --import tsx ${MAIN} query --server ${server.url}; echo "EXIT=$?"`);
    await term.waitFor((s) => s.includes('vivace> '), 'prompt');
  });
  after(async () => {
    term?.close();
    dir?.remove();
    await server?.stop();
  });

  /** The pane's text after the last time it showed `marker`. */
  const since = (screen: string, marker: string) => screen.slice(screen.lastIndexOf(marker));

  it('prints an aligned table and prompts again', async () => {
    term.line("SELECT 1 AS one, 'two' AS two, NULL AS n;");
    const screen = await term.waitFor((s) => /\(1 row\)\n(?:.*\n)*vivace> $/.test(`${since(s, 'vivace> SELECT 1 AS one').trimEnd()} `), 'table');
    const table = since(screen, 'vivace> SELECT 1 AS one');
    expect(table).to.contain([' one | two |  n   ', '-----+-----+------', '   1 | two | NULL ', '(1 row)'].join('\n'));
  });

  it('reads a statement over several lines until its ;', async () => {
    term.line('SELECT');
    await term.waitFor((s) => s.trimEnd().endsWith('->'), 'continuation prompt');
    term.line('  42 AS answer');
    term.line(';');
    const screen = await term.waitFor((s) => since(s, 'vivace> SELECT\n').includes('(1 row)'), 'multi-line result');
    expect(since(screen, 'vivace> SELECT\n')).to.contain(' answer \n--------\n     42 \n(1 row)');
  });

  it('prints the error name, message and a caret under the location', async () => {
    term.line('SELECT nope FROM (VALUES 1) t(x);');
    const screen = await term.waitFor((s) => since(s, 'vivace> SELECT nope').includes('^'), 'error');
    const text = since(screen, 'vivace> SELECT nope');
    expect(text).to.match(/Query \S+ failed \(COLUMN_NOT_FOUND\): line 1:8: Column 'nope' cannot be resolved\nLINE 1: SELECT nope FROM \(VALUES 1\) t\(x\)\n {15}\^/);
  });

  it('shows the progress line while a long query runs; Ctrl-C cancels it on the server and returns to the prompt', async () => {
    term.line(LONG_QUERY);
    const running = await term.waitFor((s) => /Query \d{8}_\d{6}_\d{5}_\w{5}, RUNNING, \d+ nodes?, \d+ splits\n\d+:\d\d \[ *[\d.]+[KMBTQ]? rows, *[\d.]+[KMGTP]?B\] \[ *[\d.]+[KMBTQ]? rows\/s, *[\d.]+[KMGTP]?B\/s\] \[[ =<>]+\]/.test(s), 'progress line');
    const queryId = /Query (\d{8}_\d{6}_\d{5}_\w{5}), RUNNING/.exec(running)![1]!;

    term.send('C-c');
    const screen = await term.waitFor((s) => /Query aborted by user\n(?:.*\n)*vivace> $/.test(`${s.trimEnd()} `), 'cancel and a new prompt');
    // The progress lines were erased: none is left on the screen after the statement.
    expect(since(screen, LONG_QUERY)).not.to.contain(', RUNNING,');

    const info = await request('GET', `${server.url}/v1/query/${queryId}`);
    expect(info.status).to.equal(200);
    validateResponse('query-info', info.body);
    expect(info.body.state).to.equal('FAILED');
    expect(info.body.errorCode.name).to.equal('USER_CANCELED');
  });

  it('USE changes the session: the prompt shows the schema and unqualified names resolve in it', async () => {
    term.line('USE memory.default;');
    await term.waitFor((s) => s.trimEnd().endsWith('vivace:default>'), 'prompt with the schema');
    term.line('CREATE TABLE cli_prompt AS SELECT 5 AS five;');
    await term.waitFor((s) => /CREATE TABLE: 1 row\n(?:.*\n)*vivace:default> $/.test(`${s.trimEnd()} `), 'CREATE TABLE');
    term.line('SELECT five FROM cli_prompt;');
    const screen = await term.waitFor((s) => since(s, 'vivace:default> SELECT five').includes('(1 row)'), 'result');
    expect(since(screen, 'vivace:default> SELECT five')).to.contain(' five \n------\n    5 \n(1 row)');
    term.line('USE tpch.tiny;');
    await term.waitFor((s) => s.trimEnd().endsWith('vivace:tiny>'), 'prompt with the new schema');
  });

  it('--progress shows the progress line in a batch too; Ctrl-C cancels the query and exits with 130', async () => {
    const batch = new TmuxTerminal({ VIVACE_HISTORY_FILE: `${dir.path}/history` });
    try {
      batch.line(`node --import tsx ${MAIN} query --server ${server.url} --progress --execute '${LONG_QUERY}'; echo "EXIT=$?"`);
      const running = await batch.waitFor((s) => /, RUNNING, \d+ nodes?, \d+ splits\n\d+:\d\d \[/.test(s), 'progress line');
      const queryId = /Query (\S+), RUNNING/.exec(running)![1]!;
      batch.send('C-c');
      const screen = await batch.waitFor((s) => /^EXIT=\d+$/m.test(s), 'exit');
      expect(screen).to.match(/Query aborted by user\nEXIT=130/);
      const info = await request('GET', `${server.url}/v1/query/${queryId}`);
      validateResponse('query-info', info.body);
      expect(info.body.state).to.equal('FAILED');
    } finally {
      batch.close();
    }
  });

  it('Ctrl-C at an empty prompt leaves the CLI', async () => {
    term.send('C-c');
    await term.waitFor((s) => /^EXIT=0$/m.test(s), 'exit');
    // The lines typed at the prompt are kept for the next session, oldest first.
    const history = readFileSync(`${dir.path}/history`, 'utf8').split('\n');
    expect(history.indexOf("SELECT 1 AS one, 'two' AS two, NULL AS n;")).to.be.below(history.indexOf('SELECT nope FROM (VALUES 1) t(x);'));
  });
});

describe('vivace query --password in a terminal (tmux)', function () {
  this.timeout(120_000);
  let dir: TempDir;
  let server: SecureServer;
  let term: TmuxTerminal;
  let caFile: string;

  before(async function () {
    if (!hasTmux) this.skip();
    dir = tempDir();
    ({ server, caFile } = await startPasswordServer(dir));
    term = new TmuxTerminal({ VIVACE_HISTORY_FILE: `${dir.path}/history` });
  });
  after(async () => {
    term?.close();
    await server?.stop();
    dir?.remove();
  });

  it('prompts for the password without echoing it, then authenticates', async () => {
    term.line(`node --import tsx ${MAIN} query --server ${server.httpsUrl} --truststore-path ${caFile} --user alice --password --execute 'SELECT current_user'; echo "EXIT=$?"`);
    await term.waitFor((s) => s.trimEnd().endsWith('Password:'), 'password prompt');
    term.line('alice-secret');
    const screen = await term.waitFor((s) => /^EXIT=\d+$/m.test(s), 'exit');
    expect(screen, screen).to.contain('"alice"\nEXIT=0');
    expect(screen).not.to.contain('alice-secret');
  });
});
