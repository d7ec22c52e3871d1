// The announcer against a small real Koa server standing in for the coordinator's discovery; its timers are
// a fake clock, so re-announcement and retries are driven without waiting.
import { expect } from 'chai';
import sinon from 'sinon';
import Koa from 'koa';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Announcer } from '../../lib/worker/announcer.js';
import { internalBearer, verifyInternalBearer } from '../../lib/cluster/cluster-auth.js';
import { expectValid } from '../support/schema-validator.js';

interface Seen {
  method: string;
  path: string;
  body: unknown;
  bearer?: string;
}

/** A discovery stand-in: records requests, answers 202 to PUT and 204 to DELETE, or `status` when set. */
async function startDiscovery(): Promise<{ url: string; seen: Seen[]; status?: number; server: Server; stop(): Promise<void> }> {
  const state: { seen: Seen[]; status?: number } = { seen: [] };
  const app = new Koa();
  app.use(async (ctx) => {
    let text = '';
    for await (const chunk of ctx.req) text += String(chunk);
    state.seen.push({ method: ctx.method, path: ctx.path, body: text ? JSON.parse(text) : undefined, ...(ctx.get('x-trino-internal-bearer') ? { bearer: ctx.get('x-trino-internal-bearer') } : {}) });
    ctx.status = state.status ?? (ctx.method === 'PUT' ? 202 : 204);
  });
  const server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    server,
    stop: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  });
}

describe('announcer', () => {
  let clock: sinon.SinonFakeTimers;
  let discovery: Awaited<ReturnType<typeof startDiscovery>>;
  beforeEach(async () => {
    // The announcer's timers are this clock's (injected); only Date is installed globally (an empty
    // toFake would fake everything), so HTTP and setImmediate run for real.
    clock = sinon.useFakeTimers({ now: Date.now(), toFake: ['Date'] });
    discovery = await startDiscovery();
  });
  afterEach(async () => {
    clock.restore();
    await discovery.stop();
  });

  const timers = () => ({ setTimeout: clock.setTimeout.bind(clock), clearTimeout: clock.clearTimeout.bind(clock) });
  /** Lets the announcement in flight reach the server and its answer come back. */
  const until = async (count: number) => {
    while (discovery.seen.length < count) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  };

  it("announces in airlift's form at once and every 8 s, and leaves with a DELETE", async () => {
    const announcer = new Announcer({ coordinatorUrl: `${discovery.url}/`, nodeId: 'w-1', environment: 'test', httpUri: 'http://127.0.0.1:9999', memory: true, timers: timers() });
    announcer.start();
    await until(1);
    const [first] = discovery.seen;
    expect(first).to.deep.include({ method: 'PUT', path: '/v1/announcement/w-1' });
    expectValid('announcement', first!.body);
    expect(first!.body).to.deep.include({ environment: 'test', nodeId: 'w-1', pool: 'general', location: '/w-1' });
    expect((first!.body as any).services[0]).to.deep.include({ type: 'trino' });
    expect((first!.body as any).services[0].properties).to.deep.include({ http: 'http://127.0.0.1:9999', coordinator: 'false', memory: 'true' });
    await clock.tickAsync(7_999);
    expect(discovery.seen).to.have.length(1);
    await clock.tickAsync(1);
    await until(2);
    expect(discovery.seen[1]!.body).to.deep.equal(first!.body);
    await announcer.stop();
    expect(discovery.seen.at(-1)).to.deep.include({ method: 'DELETE', path: '/v1/announcement/w-1' });
    const count = discovery.seen.length;
    await clock.tickAsync(60_000);
    expect(discovery.seen).to.have.length(count);
  });

  it('retries quietly after 1, 2, 4 s while discovery refuses, then goes back to 8 s', async () => {
    const changes: [boolean, string][] = [];
    discovery.status = 503;
    const announcer = new Announcer({ coordinatorUrl: discovery.url, nodeId: 'w-2', environment: 'test', httpUri: 'http://127.0.0.1:9999', memory: false, timers: timers(), onChange: (ok, detail) => changes.push([ok, detail]) });
    announcer.start();
    await until(1);
    for (const [wait, count] of [[1000, 2], [2000, 3], [4000, 4]] as const) {
      await clock.tickAsync(wait - 1);
      expect(discovery.seen).to.have.length(count - 1);
      await clock.tickAsync(1);
      await until(count);
    }
    delete discovery.status;
    await clock.tickAsync(8000);
    await until(5);
    await clock.tickAsync(7999);
    expect(discovery.seen).to.have.length(5);
    expect(changes).to.deep.equal([[false, 'HTTP 503'], [true, 'HTTP 202']]);
    await announcer.stop();
  });

  it('keeps trying while the coordinator is down, and reaches it once it is back', async () => {
    const changes: [boolean, string][] = [];
    const port = Number(new URL(discovery.url).port);
    await discovery.stop();
    const announcer = new Announcer({ coordinatorUrl: discovery.url, nodeId: 'w-3', environment: 'test', httpUri: 'http://127.0.0.1:9999', memory: false, timers: timers(), onChange: (ok, detail) => changes.push([ok, detail]) });
    announcer.start();
    while (changes.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(changes).to.deep.equal([[false, 'ECONNREFUSED']]);
    // The coordinator comes back on the same address.
    await new Promise<void>((resolve) => discovery.server.listen(port, '127.0.0.1', resolve));
    await clock.tickAsync(1000);
    await until(1);
    expect(discovery.seen[0]).to.deep.include({ method: 'PUT', path: '/v1/announcement/w-3' });
    expect(changes).to.deep.equal([[false, 'ECONNREFUSED'], [true, 'HTTP 202']]);
    await announcer.stop();
  });

  it('carries the internal bearer when a shared secret is set', async () => {
    const announcer = new Announcer({ coordinatorUrl: discovery.url, nodeId: 'w-4', environment: 'test', httpUri: 'http://127.0.0.1:9999', memory: false, sharedSecret: 's3cret', timers: timers() });
    expect(await announcer.announce()).to.equal(true);
    const bearer = discovery.seen[0]!.bearer;
    expect(await verifyInternalBearer('s3cret', bearer)).to.deep.equal({ nodeId: 'w-4' });
    expect(bearer).to.equal(await internalBearer('s3cret', 'w-4'));
    await announcer.stop();
    expect(discovery.seen[1]!.bearer).to.equal(bearer);
  });
});
