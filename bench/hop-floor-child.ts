// Figure b's floor: bare Node HTTP with the hops of a SELECT 1 through a worker, nothing else. The front
// process answers the protocol's three exchanges as the bench's client expects them (POST, GET with the
// row, GET without nextUri); each POST first calls one of two backend processes (round robin, keep-alive),
// as the coordinator calls a worker. No Koa, no actors, no DuckDB: what the machine's 2 cores allow for the
// HTTP alone, measured in the same run as the cluster.
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { ChildMessage } from './server-child.js';

/** About the sizes of the cluster's responses to a SELECT 1 (stats and stage tree). */
const PAD = 'x'.repeat(900);
const BACKEND_BODY = JSON.stringify({ columns: [{ name: '_col0', type: 'integer' }], data: [[1]], pad: PAD.slice(0, 300) });

function send(res: ServerResponse, body: string): void {
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function readBody(req: IncomingMessage, done: (body: string) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => done(Buffer.concat(chunks).toString('utf8')));
}

function listen(server: ReturnType<typeof createServer>, ready: (port: number) => void): void {
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => ready((server.address() as AddressInfo).port));
}

function backend(): void {
  const server = createServer((req, res) => readBody(req, () => send(res, BACKEND_BODY)));
  listen(server, (port) => process.send!({ type: 'ready', url: `http://127.0.0.1:${port}`, pid: process.pid } satisfies ChildMessage));
  process.on('disconnect', () => process.exit(0));
}

function startBackend(): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(fileURLToPath(import.meta.url), ['backend'], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`hop floor backend exited early with code ${code}`)));
    child.once('message', (raw: unknown) => resolve({ child, port: Number(new URL((raw as { url: string }).url).port) }));
  });
}

async function front(): Promise<void> {
  const backends = await Promise.all([startBackend(), startBackend()]);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  let next = 0;
  let queries = 0;
  const server = createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.method === 'POST') {
      readBody(req, (sql) => {
        const id = `q${queries++}`;
        const call = request({ host: '127.0.0.1', port: backends[next++ % backends.length]!.port, method: 'POST', path: '/v1/task', agent, headers: { 'Content-Type': 'application/json' } }, (answer) => {
          readBody(answer, (body) => send(res, `{"id":"${id}","nextUri":"${base}/v1/statement/${id}/1","stats":{"state":"RUNNING","pad":"${PAD}"},"task":${body.length}}`));
        });
        call.on('error', () => send(res, '{"error":{"message":"backend unreachable"}}'));
        call.end(JSON.stringify({ sql }));
      });
      return;
    }
    const [, , , id, token] = (req.url ?? '').split('/');
    if (token === '1') send(res, `{"id":"${id}","nextUri":"${base}/v1/statement/${id}/2","columns":[{"name":"_col0","type":"integer"}],"data":[[1]],"stats":{"state":"RUNNING","pad":"${PAD}"}}`);
    else send(res, `{"id":"${id}","columns":[{"name":"_col0","type":"integer"}],"stats":{"state":"FINISHED","pad":"${PAD}"}}`);
  });
  const stop = () => {
    for (const { child } of backends) child.kill();
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  process.on('message', (message: unknown) => {
    if ((message as { type?: string } | null)?.type === 'stop') stop();
  });
  process.on('disconnect', stop);
  listen(server, (port) => process.send!({ type: 'ready', url: `http://127.0.0.1:${port}`, pid: process.pid } satisfies ChildMessage));
}

if (process.argv[2] === 'backend') backend();
else {
  front().catch((err: unknown) => {
    process.send?.({ type: 'error', message: err instanceof Error ? err.message : String(err) } satisfies ChildMessage);
    process.exit(1);
  });
}
