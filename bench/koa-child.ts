// The baseline for figure b: a bare Koa app answering GET / with a small JSON object, in its own process.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { ChildMessage } from './server-child.js';

const app = new Koa();
app.use((ctx) => {
  ctx.body = { ok: true, server: 'koa-baseline' };
});
const server = createServer(app.callback());
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.send!({ type: 'ready', url: `http://127.0.0.1:${port}`, pid: process.pid } satisfies ChildMessage);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('message', (message: unknown) => {
  if ((message as { type?: string } | null)?.type === 'stop') stop();
});
process.on('disconnect', stop);
