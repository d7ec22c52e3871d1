// Socket writes per response on a real server (issue 25): each answer of a statement leaves in one write,
// its head and its body together (Koa's res.end(body) with a Content-Length), as the bare-HTTP floor's
// do. strace on the bench's coordinator counted 3 writev per SELECT 1 to its client (and one per worker
// request): a change that writes the head and the body apart, or streams a body in chunks, doubles the
// syscalls and the wake-ups of the client, and fails here.
import { expect } from 'chai';
import type { Socket } from 'node:net';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { runStatement, startTestServer, type TestServer } from '../support/http.js';

describe('HTTP: socket writes per statement response', () => {
  let server: TestServer;
  let writes = 0;

  /** Counts the server side's writes on `socket`: Writable calls _write for one chunk, _writev for several corked. */
  const countWrites = (socket: Socket) => {
    const stream = socket as Socket & { _write: (...args: unknown[]) => void; _writev: (...args: unknown[]) => void };
    const write = stream._write;
    const writev = stream._writev;
    stream._write = function (this: Socket, ...args: unknown[]) {
      writes++;
      return write.apply(this, args);
    };
    stream._writev = function (this: Socket, ...args: unknown[]) {
      writes++;
      return writev.apply(this, args);
    };
  };

  before(async () => {
    const engine = new FakeEngine({
      'SELECT 1': { columns: [BIGINT_COLUMN('_col0')], rows: [[1]] },
      'SELECT x FROM many': { columns: [BIGINT_COLUMN('x')], rows: Array.from({ length: 5000 }, (_, i) => [i]) },
    });
    server = await startTestServer({ engine });
    server.server.server.on('connection', countWrites);
  });
  after(() => server.stop());

  for (const sql of ['SELECT 1', 'SELECT x FROM many']) {
    it(`${sql}: one write per response, head and body together`, async () => {
      writes = 0;
      const { raw } = await runStatement(server.url, sql);
      expect(raw.length).to.be.at.least(3);
      expect(writes).to.equal(raw.length);
    });
  }
});
