// Pages larger than TEXT_PAGE_MAX_BYTES go out as byte pieces in one corked write (lib/http/byte-pieces.ts):
// the same token again gets the same bytes, and a client that leaves in the middle of such a page costs
// nothing: the server stays up and the page is still there for the same token.
import { expect } from 'chai';
import { connect } from 'node:net';
import { TEXT_PAGE_MAX_BYTES } from '../../lib/engine/row-batch.js';
import { createTestEngine } from '../support/duckdb.js';
import { pagesFetchedTwice, request, runStatement, startTestServer, validateStatement, type TestServer } from '../support/http.js';

// 100,000 rows of about 60 bytes, with 2-, 3- and 4-byte characters: six pages of about 1 MB.
const SQL = "SELECT a * 10000 + b AS i, 'é€😀 ' || lpad(CAST(b AS varchar), 40, 'x') AS s FROM UNNEST(sequence(0, 9)) AS x(a) CROSS JOIN UNNEST(sequence(0, 9999)) AS y(b) ORDER BY i";
const USER = { 'X-Trino-User': 'alice' };

/** GETs `uri` on a raw socket, reads the status line and a little of the body, then drops the connection. */
function readSomeAndLeave(uri: string): Promise<string> {
  const { hostname, port, pathname } = new URL(uri);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n\r\n`));
    let seen = '';
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      if (seen.length > 1024) {
        socket.destroy();
        resolve(seen.slice(0, seen.indexOf('\r\n')));
      }
    });
    socket.on('error', reject);
  });
}

describe('statement pages as byte pieces', function () {
  this.timeout(60_000);
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ engine: await createTestEngine() });
  });
  after(() => server.stop());

  it('answers the same token again with the same bytes', async () => {
    const post = await request('POST', `${server.url}/v1/statement`, { body: SQL, headers: USER });
    validateStatement(post.body, true);
    const pages = await pagesFetchedTwice(post.body.nextUri);
    expect(pages.reduce((n, p) => n + (p.body.data?.length ?? 0), 0)).to.equal(100_000);
    expect(pages.filter((p) => Buffer.byteLength(p.text) > TEXT_PAGE_MAX_BYTES).length).to.be.greaterThan(3);
  });

  it('keeps the page and the server when a client leaves in the middle of it', async () => {
    const post = await request('POST', `${server.url}/v1/statement`, { body: SQL, headers: USER });
    const first = post.body.nextUri as string;
    expect(await readSomeAndLeave(first)).to.equal('HTTP/1.1 200 OK');
    // The same token from another connection: the page the first one did not read, whole.
    const again = await request('GET', first);
    expect(again.status).to.equal(200);
    validateStatement(again.body, false);
    expect(Buffer.byteLength(again.text)).to.be.greaterThan(TEXT_PAGE_MAX_BYTES);
    const firstRows = again.body.data as unknown[][];
    expect(firstRows[0]).to.deep.equal([0, `é€😀 ${'0'.padStart(40, 'x')}`]);
    // The rest of the stream follows on, and the server answers everyone else.
    let rows = firstRows.length;
    let uri: string | undefined = again.body.nextUri;
    while (uri) {
      const page = await request('GET', uri);
      rows += page.body.data?.length ?? 0;
      uri = page.body.nextUri;
    }
    expect(rows).to.equal(100_000);
    const { rows: one } = await runStatement(server.url, 'SELECT 1', USER);
    expect(one).to.deep.equal([[1]]);
  });
});
