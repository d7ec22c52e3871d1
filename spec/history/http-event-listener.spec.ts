import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpEventListener, parseEventListenerProperties, type HttpEventListenerSettings } from '../../lib/history/http-event-listener.js';
import { watchQueryEvents } from '../../lib/metrics/query-events.js';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { runStatement, startTestServer, type TestServer } from '../support/http.js';

interface Received {
  headers: IncomingMessage['headers'];
  body: any;
}

/** A receiver on 127.0.0.1 answering each POST with the next of `statuses` (200 once they run out; 0: never). */
async function receiver(statuses: number[]): Promise<{ server: Server; url: string; received: Received[]; next: () => Promise<Received> }> {
  const received: Received[] = [];
  const waiting: ((r: Received) => void)[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
      received.push(entry);
      waiting.shift()?.(entry);
      const status = statuses.shift() ?? 200;
      if (status !== 0) res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let taken = 0;
  const next = () => (taken < received.length ? Promise.resolve(received[taken++]!) : new Promise<Received>((resolve) => waiting.push((r) => (taken++, resolve(r)))));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`, received, next };
}

const SETTINGS = (ingestUri: string, overrides: Partial<HttpEventListenerSettings> = {}): HttpEventListenerSettings => ({
  ingestUri, logCompleted: true, headers: { 'X-Spec': 'yes' }, retryCount: 2, retryDelayMs: 1, backoffBase: 2, maxDelayMs: 5, maxQueued: 10, ...overrides,
});

describe('history: Trino\'s HTTP event listener', () => {
  let server: TestServer;
  let closers: (() => void)[] = [];
  beforeEach(async () => {
    server = await startTestServer({ engine: new FakeEngine({ 'SELECT 1': { columns: [BIGINT_COLUMN('_col0')], rows: [[1]] } }), config: { longPollMs: 50 } });
  });
  afterEach(async () => {
    for (const close of closers) close();
    closers = [];
    await server.stop();
  });
  const listen = async (settings: HttpEventListenerSettings, dropped: string[] = []) => {
    const listener = new HttpEventListener({ settings, server: { environment: 'spec', serverVersion: '1', serverAddress: '127.0.0.1', uri: server.url }, onDropped: (id, reason) => dropped.push(`${id}: ${reason}`) });
    const stop = watchQueryEvents(server.coordinator, [listener]);
    closers.push(() => (stop(), listener.close()));
    return listener;
  };

  it('reads event-listener.properties as Trino documents it', () => {
    const settings = parseEventListenerProperties([
      'event-listener.name=http',
      'http-event-listener.log-completed=true',
      'http-event-listener.connect-ingest-uri=http://127.0.0.1:9/api',
      'http-event-listener.connect-http-headers=Authorization: Trust Me, Cache-Control: no-cache',
      'http-event-listener.connect-retry-count=2',
      'http-event-listener.connect-retry-delay=101s',
      'http-event-listener.connect-backoff-base=1.5',
      'http-event-listener.connect-max-delay=10m',
    ].join('\n'));
    expect(settings).to.deep.equal({
      ingestUri: 'http://127.0.0.1:9/api', logCompleted: true, headers: { Authorization: 'Trust Me', 'Cache-Control': 'no-cache' },
      retryCount: 2, retryDelayMs: 101_000, backoffBase: 1.5, maxDelayMs: 600_000, maxQueued: 1000,
    });
    expect(parseEventListenerProperties('# nothing\n')).to.equal(undefined);
    expect(() => parseEventListenerProperties('event-listener.name=http\n')).to.throw('http-event-listener.connect-ingest-uri is required');
    expect(() => parseEventListenerProperties('event-listener.name=kafka\n')).to.throw('event-listener.name=kafka is not supported');
    expect(() => parseEventListenerProperties('event-listener.name=http\nhttp-event-listener.connect-ingest-uri=file:///etc/passwd\n')).to.throw('must be http or https');
    expect(() => parseEventListenerProperties('event-listener.name=http\nhttp-event-listener.connect-ingest-uri=http://x/\nhttp-event-listener.connect-retry-count=-1\n')).to.throw('at least 0');
  });

  it('POSTs a QueryCompletedEvent for every finished query, retrying a server error with backoff', async () => {
    const ingest = await receiver([500, 503]);
    closers.push(() => ingest.server.close());
    const listener = await listen(SETTINGS(ingest.url));
    const { final } = await runStatement(server.url, 'SELECT 1', { 'X-Trino-User': 'alice', 'X-Trino-Source': 'spec' });
    const attempts = [await ingest.next(), await ingest.next(), await ingest.next()];
    expect(attempts.map((a) => a.body.metadata.queryId)).to.deep.equal([final.id, final.id, final.id]);
    const event = attempts[2]!;
    expect(event.headers).to.include({ 'content-type': 'application/json', 'x-spec': 'yes' });
    expect(event.body.metadata).to.include({ queryId: final.id, query: 'SELECT 1', queryState: 'FINISHED', uri: `${server.url}/v1/query/${final.id}` });
    expect(event.body.context).to.include({ user: 'alice', source: 'spec', environment: 'spec' });
    expect(event.body.context.resourceGroupId).to.deep.equal(['global']);
    expect(event.body.statistics).to.include({ outputRows: 1, complete: true });
    expect(event.body.statistics.cpuTime).to.match(/^PT\d+(\.\d+)?S$/);
    expect(event.body.failureInfo).to.equal(null);
    expect(new Date(event.body.endTime).getTime()).to.be.at.least(new Date(event.body.createTime).getTime());
    while (listener.delivered < 1) await new Promise((resolve) => setImmediate(resolve));
    expect(listener.queued).to.equal(0);
  });

  it('never holds a query back: a receiver that does not answer leaves queries finishing, and the queue bounded', async () => {
    const ingest = await receiver([0]);
    closers.push(() => (ingest.server.closeAllConnections(), ingest.server.close()));
    const dropped: string[] = [];
    const listener = await listen(SETTINGS(ingest.url, { maxQueued: 2, retryCount: 0 }), dropped);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await runStatement(server.url, 'SELECT 1')).final.id);
    for (let i = 0; i < 1000 && listener.queued + dropped.length < 4; i++) await new Promise((resolve) => setImmediate(resolve));
    // The first event is on the wire (held by the receiver); of the four after it, two wait and two were dropped.
    expect((await ingest.next()).body.metadata.queryId).to.equal(ids[0]);
    expect(listener.queued).to.equal(2);
    expect(dropped.map((d) => d.split(':')[0])).to.deep.equal([ids[1], ids[2]]);
    expect(dropped[0]).to.contain('more than 2 events waiting');
  });

  it('sends nothing unless http-event-listener.log-completed=true, and gives up on a 400', async () => {
    const ingest = await receiver([400]);
    closers.push(() => ingest.server.close());
    const off = await listen(SETTINGS(ingest.url, { logCompleted: false }));
    await runStatement(server.url, 'SELECT 1');
    expect(off.queued).to.equal(0);
    const dropped: string[] = [];
    await listen(SETTINGS(ingest.url), dropped);
    await runStatement(server.url, 'SELECT 1');
    await ingest.next();
    for (let i = 0; i < 1000 && dropped.length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(dropped[0]).to.contain('the receiver refused it');
    expect(ingest.received).to.have.length(1);
  });
});
