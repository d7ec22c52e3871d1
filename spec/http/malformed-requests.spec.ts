// Client mistakes at the HTTP level are 4xx with the JSON error body, never 500, and the server stays up:
// unknown methods (405 with Allow, or 501), malformed request lines and URLs (raw TCP, since clients
// normalize URLs), bodies that are not UTF-8, NUL characters in SQL. Our own bugs are 500 and logged once.
import { expect } from 'chai';
import { connect } from 'node:net';
import sinon from 'sinon';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { request, runStatement, startTestServer, type TestServer } from '../support/http.js';
import { captureLog, type CapturedLog } from '../support/log-capture.js';
import { validateResponse } from '../support/schema-validator.js';

interface RawResponse {
  status: number;
  headers: Map<string, string>;
  body: Record<string, unknown>;
  /** How many responses the connection carried (pipelined requests). */
  count: number;
}

/** Sends `bytes` on a fresh connection (then half-closes it when `end`) and reads until the server closes it (or 3 s pass). */
function raw(port: number, bytes: string | Buffer, end = false): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => (end ? socket.end(bytes) : socket.write(bytes)));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closed: false });
    }, 3000);
    socket.on('data', (d) => chunks.push(d));
    socket.on('end', () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString('latin1'), closed: true });
    });
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** The last response of a raw exchange: status, headers (lower-case names) and the JSON body. */
function parse(text: string): RawResponse {
  const starts = [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)];
  expect(starts.length, text).to.be.greaterThan(0);
  const last = text.slice(starts[starts.length - 1]!.index);
  const split = last.indexOf('\r\n\r\n');
  const headers = new Map<string, string>();
  for (const line of last.slice(0, split).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const bodyText = last.slice(split + 4);
  return { status: Number(starts[starts.length - 1]![1]), headers, body: bodyText ? JSON.parse(bodyText) : undefined, count: starts.length };
}

const line = (requestLine: string, headers = 'Host: localhost\r\nConnection: close\r\n') => `${requestLine}\r\n${headers}\r\n`;

describe('malformed requests', function () {
  let server: TestServer;
  let port: number;
  let fake: FakeEngine;
  let log: CapturedLog;
  /** The server's internal_error lines written since `from` lines. */
  const internalErrors = (from: number) => log.lines().slice(from).filter((l) => l.event === 'internal_error');

  before(async () => {
    log = captureLog();
    fake = new FakeEngine({
      'SELECT 1': { columns: [BIGINT_COLUMN('_col0')], rows: [[1]] },
      // USE memory."a<LF>b" after CREATE SCHEMA: names Node cannot put in a header as they are.
      'USE odd': { columns: [], rows: [], updateType: 'USE', sessionUpdates: { setCatalog: '日本', setSchema: 'a\nb' } },
    });
    const plan = fake.plan.bind(fake);
    fake.plan = async (sql, session) => {
      if (sql === 'SELECT bug') throw new TypeError("Cannot read properties of undefined (reading 'columns')");
      return plan(sql, session);
    };
    server = await startTestServer({ engine: fake, config: { longPollMs: 200 }, logger: log.logger });
    port = server.server.port;
  });
  afterEach(() => sinon.restore());
  after(() => server.stop());

  /** Sends one raw request; expects `status` and a valid JSON error body; returns the parsed response. */
  async function answers(bytes: string | Buffer, status: number, errorName?: string): Promise<RawResponse> {
    const { text, closed } = await raw(port, bytes);
    const res = parse(text);
    expect(res.status, `${JSON.stringify(String(bytes).slice(0, 80))} -> ${text.slice(0, 300)}`).to.equal(status);
    expect(closed, 'the server closes the connection it answered').to.equal(true);
    validateResponse('error', res.body);
    expect(res.body.status).to.equal(status);
    expect(res.headers.get('content-type')).to.equal('application/json');
    if (errorName) expect(res.body.errorName).to.equal(errorName);
    return res;
  }

  async function stillServes(): Promise<void> {
    const info = await request('GET', `${server.url}/v1/info`);
    expect(info.status).to.equal(200);
    validateResponse('server-info', info.body);
  }

  describe('methods', () => {
    it('a method a known path does not take is 405 with Allow', async () => {
      const cases: [string, string][] = [
        ['TRACE /v1/info', 'HEAD, GET'],
        ['PROPFIND /v1/statement', 'POST'],
        ['PATCH /v1/query/20240101_000000_00000_aaaaa', 'HEAD, GET, DELETE'],
        ['MKCOL /v1/node', 'HEAD, GET'],
        ['POST /v1/info', 'HEAD, GET'],
        ['DELETE /v1/status', 'HEAD, GET'],
        ['SEARCH /v1/statement/20240101_000000_00000_aaaaa/1', 'HEAD, GET, DELETE'],
      ];
      for (const [requestLine, allow] of cases) {
        const res = await answers(line(`${requestLine} HTTP/1.1`), 405, 'NOT_SUPPORTED');
        expect(res.headers.get('allow'), requestLine).to.equal(allow);
      }
      await stillServes();
    });

    it('a method no route implements is 501 on an unknown path, whether Node parses it or not', async () => {
      await answers(line('MKCOL /nope HTTP/1.1'), 501, 'NOT_SUPPORTED');
      await answers(line('TRACE /nope HTTP/1.1'), 501, 'NOT_SUPPORTED');
      // Tokens Node's parser does not know never reach Koa: the clientError path answers them.
      await answers(line('FOO /v1/info HTTP/1.1'), 501, 'NOT_SUPPORTED');
      await answers(line('BREW /v1/info HTTP/1.1'), 501, 'NOT_SUPPORTED');
      await answers(line('CONNECT localhost:443 HTTP/1.1'), 501, 'NOT_SUPPORTED');
      await stillServes();
    });

    it('a known method on an unknown path is 404; OPTIONS lists what a path takes', async () => {
      await answers(line('GET /v1/nope HTTP/1.1'), 404, 'NOT_FOUND');
      await answers(line('GET //evil.example/v1/info HTTP/1.1'), 404, 'NOT_FOUND');
      const options = await raw(port, line('OPTIONS /v1/statement HTTP/1.1'));
      expect(options.text).to.match(/^HTTP\/1\.1 200 /);
      expect(parse(options.text).headers.get('allow')).to.equal('POST');
      const star = await raw(port, line('OPTIONS * HTTP/1.1'));
      expect(star.text).to.match(/^HTTP\/1\.1 200 /);
      expect(parse(star.text).headers.get('allow')).to.equal('POST, HEAD, GET, DELETE, PUT, OPTIONS');
    });
  });

  describe('request lines and URLs', () => {
    it('an absolute-form URL that does not parse is 400; one that does is routed by its path', async () => {
      await answers(line('GET http://[::1/v1/info HTTP/1.1'), 400, 'GENERIC_USER_ERROR');
      await answers(line('GET http://localhost:99999/v1/info HTTP/1.1'), 400, 'GENERIC_USER_ERROR');
      await answers(line('GET http://a b/v1/info HTTP/1.1'), 400, 'GENERIC_USER_ERROR');
      await answers(line('GET ftp://localhost/v1/info HTTP/1.1'), 400, 'GENERIC_USER_ERROR');
      const ok = await raw(port, line(`GET HTTP://127.0.0.1:${port}/v1/info HTTP/1.1`));
      expect(ok.text).to.match(/^HTTP\/1\.1 200 /);
      validateResponse('server-info', parse(ok.text).body);
    });

    it('percent escapes that do not decode, control characters and dot segments are 400', async () => {
      for (const target of [
        '/v1/query/%E0%A4%A',
        '/v1/statement/%E0%A4%A/1',
        '/v1/statement/q/%FF',
        '/v1/query/%',
        '/v1/info%00',
        '/v1/query/%0A',
        '/v1/../v1/info',
        '/v1/%2e%2e/v1/info',
        '/v1/query/./x',
        '/v1/query?state=%E0%A4%A',
      ]) {
        await answers(line(`GET ${target} HTTP/1.1`), 400, 'GENERIC_USER_ERROR');
      }
      await answers(line('DELETE /v1/stage/%ZZ HTTP/1.1'), 400, 'GENERIC_USER_ERROR');
      await stillServes();
    });

    it('what Node refuses before Koa (NUL, no path, garbage, overlong line, bad header) gets the JSON body too', async () => {
      await answers(line('GET /v1/info\0 HTTP/1.1'), 400, 'GENERIC_USER_ERROR');
      await answers(line('GET v1/info HTTP/1.1'), 400, 'GENERIC_USER_ERROR');
      await answers(line('GET * HTTP/1.1'), 400, 'GENERIC_USER_ERROR');
      await answers('GET /v1/info HTTP/9.9\r\n\r\n', 400, 'GENERIC_USER_ERROR');
      await answers(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03, 0x0d, 0x0a, 0x0d, 0x0a]), 501, 'NOT_SUPPORTED');
      await answers(line(`GET /${'a'.repeat(100_000)} HTTP/1.1`), 431, 'GENERIC_USER_ERROR');
      await answers(line('GET /v1/info HTTP/1.1', 'Host: localhost\r\nX-Bad\x01Name: 1\r\n'), 400, 'GENERIC_USER_ERROR');
      await answers(line('GET /v1/info HTTP/1.1', 'Host: localhost\r\nContent-Length: 1\r\nContent-Length: 2\r\n'), 400, 'GENERIC_USER_ERROR');
      await answers(line('POST /v1/statement HTTP/1.1', 'Host: localhost\r\nExpect: 200-ok\r\nContent-Length: 8\r\n'), 417, 'GENERIC_USER_ERROR');
      await stillServes();
    });

    it('a bad request pipelined after a good one: the good one is answered, then the 400', async () => {
      const { text } = await raw(port, `GET /v1/info HTTP/1.1\r\nHost: localhost\r\n\r\nGET http://[::1/v1/info HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
      expect(text).to.match(/^HTTP\/1\.1 200 /);
      const last = parse(text);
      expect(last.count).to.equal(2);
      expect(last.status).to.equal(400);
      validateResponse('error', last.body);
    });
  });

  describe('statement bodies', () => {
    it('a body that is not UTF-8 is 400, not a query over replacement characters', async () => {
      const body = Buffer.concat([Buffer.from("SELECT '"), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from("'")]);
      const res = await fetch(`${server.url}/v1/statement`, { method: 'POST', body, headers: { 'X-Presto-User': 'u' } });
      expect(res.status).to.equal(400);
      const error = await res.json();
      validateResponse('error', error);
      expect(error).to.include({ errorName: 'GENERIC_USER_ERROR', message: 'Request body is not valid UTF-8' });
      expect(fake.planned).not.to.include("SELECT '\ufffd\ufffd\ufffd'");
    });

    it('a NUL character is a 400 SYNTAX_ERROR at its line and column, before the engine sees the text', async () => {
      const planned = fake.planned.length;
      for (const [sql, where] of [['SELECT 1\0', '1:9'], ["SELECT 'a\0b'", '1:10'], ['SELECT 1,\n  \0 2', '2:3'], ['\0SELECT 1', '1:1']]) {
        const res = await request('POST', `${server.url}/v1/statement`, { body: sql, headers: { 'X-Presto-User': 'u' } });
        expect(res.status, JSON.stringify(sql)).to.equal(400);
        validateResponse('error', res.body);
        expect(res.body).to.include({ errorName: 'SYNTAX_ERROR', errorType: 'USER_ERROR' });
        expect(res.body.message).to.equal(`line ${where}: NUL character (U+0000) is not allowed in a statement`);
      }
      const header = await request('POST', `${server.url}/v1/statement`, {
        body: 'EXECUTE p',
        headers: { 'X-Presto-User': 'u', 'X-Presto-Prepared-Statement': 'p=SELECT+1%00%3B+DROP+TABLE+t' },
      });
      expect(header.status).to.equal(400);
      validateResponse('error', header.body);
      expect(header.body).to.include({ errorName: 'SYNTAX_ERROR', message: "Prepared statement 'p' contains a NUL character (U+0000)" });
      expect(fake.planned.length, 'nothing reached the engine').to.equal(planned);
    });

    it('a body cut short by the client is no internal error, and the server stays up', async () => {
      const from = log.lines().length;
      const { text } = await raw(port, 'POST /v1/statement HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\nSELECT', true);
      // The client half-closed: nothing, or a 400, may come back; never a 500.
      expect(text).not.to.match(/^HTTP\/1\.1 5/);
      await stillServes();
      expect(internalErrors(from), 'nothing logged as an internal error').to.deep.equal([]);
    });
  });

  describe('response headers', () => {
    it('a session change Node cannot send as it is (line break, beyond Latin-1) is sent percent-encoded, not a 500 that loses the page', async () => {
      const { raw: responses, final } = await runStatement(server.url, 'USE odd', { 'X-Presto-User': 'u' });
      expect(final.stats.state).to.equal('FINISHED');
      const last = responses[responses.length - 1]!;
      expect(last.headers.get('x-presto-set-schema')).to.equal('a%0Ab');
      expect(last.headers.get('x-presto-set-catalog')).to.equal('%E6%97%A5%E6%9C%AC');
      // The same token again replays the same headers.
      const again = await request('GET', final.nextUri ?? responses[responses.length - 2]!.body.nextUri);
      expect(again.status).to.equal(200);
      expect(again.headers.get('x-presto-set-schema')).to.equal('a%0Ab');
    });
  });

  describe('our own bugs', () => {
    it('a route that throws answers 500 GENERIC_INTERNAL_ERROR and logs one JSON line with the query id', async () => {
      const from = log.lines().length;
      sinon.stub(server.coordinator, 'lookup').throws(new TypeError('tracker is gone'));
      const res = await request('GET', `${server.url}/v1/query/20240101_000000_00007_bbbbb`);
      sinon.restore();
      expect(res.status).to.equal(500);
      validateResponse('error', res.body);
      expect(res.body).to.include({ errorName: 'GENERIC_INTERNAL_ERROR', errorType: 'INTERNAL_ERROR', message: 'tracker is gone' });
      expect(internalErrors(from)).to.have.lengthOf(1);
      const logged = internalErrors(from)[0]!;
      expect(logged).to.include({ level: 'error', event: 'internal_error', queryId: '20240101_000000_00007_bbbbb', message: 'tracker is gone', request: 'GET /v1/query/20240101_000000_00007_bbbbb' });
      expect(logged.stack).to.be.an('array').with.lengthOf.at.least(1);
    });

    it('a query failing with an internal error is logged once with its id; user errors are not logged', async () => {
      const from = log.lines().length;
      const post = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT bug', headers: { 'X-Presto-User': 'u' } });
      let body = post.body;
      while (body.nextUri) body = (await request('GET', body.nextUri)).body;
      validateResponse('statement-failed', body);
      expect(body.error).to.include({ errorName: 'GENERIC_INTERNAL_ERROR', errorType: 'INTERNAL_ERROR' });
      await request('GET', `${server.url}/v1/query/${body.id}`); // reading it again logs nothing more
      const user = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT nope', headers: { 'X-Presto-User': 'u' } });
      let userBody = user.body;
      while (userBody.nextUri) userBody = (await request('GET', userBody.nextUri)).body;
      expect(userBody.error.errorType).to.equal('USER_ERROR');
      expect(internalErrors(from)).to.have.lengthOf(1);
      expect(internalErrors(from)[0]).to.include({ level: 'error', event: 'internal_error', queryId: body.id });
    });
  });
});
