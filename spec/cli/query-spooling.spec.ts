// `vivace query` asks for the spooling protocol as Trino's CLI does (json+zstd,json+lz4,json) and prints
// the same rows in every encoding as through the direct protocol (--encoding none).
import { expect } from 'chai';
import { startTestServer, type TestServer } from '../support/http.js';
import { createTestEngine } from '../support/duckdb.js';
import { runCli } from './cli-process.js';

// About 40 kB of JSON: a page past the 8 kB compression threshold.
const SQL = "SELECT x, 'row ' || CAST(x AS varchar) || ' of the spooled segment' AS s, x * 1.5e0 AS d FROM UNNEST(sequence(1, 1000)) AS t(x) ORDER BY x";

describe('vivace query: the spooling protocol', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(2) });
  });
  after(async () => server.stop());

  it('prints the same rows through each encoding as through the direct protocol', async () => {
    const direct = await runCli(['--server', server.url, '--encoding', 'none', '--execute', SQL]);
    expect(direct.code).to.equal(0);
    expect(direct.stdout.split('\n')).to.have.length(1001);
    for (const encoding of ['json+zstd,json+lz4,json', 'json+lz4', 'json']) {
      const spooled = await runCli(['--server', server.url, '--encoding', encoding, '--execute', SQL]);
      expect(spooled.stderr, encoding).to.equal('');
      expect(spooled.stdout, encoding).to.equal(direct.stdout);
    }
    // The default asks for it: the same text too.
    expect((await runCli(['--server', server.url, '--execute', SQL])).stdout).to.equal(direct.stdout);
  });
});
