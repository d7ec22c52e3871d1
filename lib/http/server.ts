// Starts the HTTP server for a coordinator and stops it cleanly (open keep-alive sockets included).
// Requests Node's parser refuses before Koa sees them are answered here, in the same JSON error shape.
import { createServer, STATUS_CODES, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { Coordinator } from '../actors/coordinator.js';
import type { ErrorName } from '../protocol/error-codes.js';
import { createApp } from './app.js';
import type { AccessControl } from '../security/access-control.js';
import { errorBody } from './error-middleware.js';
import { startEventLoopMonitor, type EventLoopMonitor, type StatementInFlight } from './event-loop-monitor.js';
import { ServerState } from './info.routes.js';
import { drainQueries } from '../actors/shutdown-drain.js';

export interface RunningServer {
  readonly url: string;
  /** This coordinator's node id (/v1/info, system.runtime.nodes). */
  readonly nodeId: string;
  readonly port: number;
  readonly server: Server;
  readonly state: ServerState;
  readonly eventLoop: EventLoopMonitor;
  close(): Promise<void>;
}

export interface ServerOptions {
  host?: string;
  port?: number;
  onShutdown?: () => void;
  /** Event-loop stall threshold (default 100 ms). */
  stallThresholdMs?: number;
  /** Who may do what; Trino's default (everything but impersonation) when absent. */
  accessControl?: AccessControl;
}

export async function startServer(coordinator: Coordinator, options: ServerOptions = {}): Promise<RunningServer> {
  // Graceful, as in Trino: the running queries finish and are read (shutdown.grace-period) first.
  const state = new ServerState(async () => {
    await drainQueries(coordinator, { gracePeriodMs: coordinator.config.shutdownGracePeriodMs });
    options.onShutdown?.();
  });
  const nodeId = randomUUID();
  const eventLoop = startEventLoopMonitor({
    statementsDuring: (windowMs) => statementsDuring(coordinator, windowMs),
    ...(options.stallThresholdMs === undefined ? {} : { stallThresholdMs: options.stallThresholdMs }),
  });
  const app = createApp(coordinator, { nodeId, serverState: state, eventLoop, ...(options.accessControl ? { accessControl: options.accessControl } : {}) });
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  // An Expect other than 100-continue: Node's own 417 has an empty body.
  server.on('checkExpectation', (req, res) => {
    const body = errorBody(417, 'GENERIC_USER_ERROR', `Unsupported expectation: ${req.headers.expect ?? ''}`);
    res.writeHead(417, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Connection: 'close' }).end(body);
  });
  // CONNECT is parsed but no route can take it; without a listener Node would drop the connection.
  server.on('connect', (_req, socket: Duplex) => answerRaw(socket, 501, 'NOT_SUPPORTED', 'Method CONNECT is not implemented by this server'));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? coordinator.config.port, options.host ?? coordinator.config.host, () => resolve());
    });
  } catch (err) {
    eventLoop.stop();
    throw err;
  }
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    nodeId,
    port,
    server,
    state,
    eventLoop,
    close: () =>
      new Promise<void>((resolve) => {
        eventLoop.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Queries past their queue that are live now or ended within the last `windowMs`: those that could have held the loop. */
function statementsDuring(coordinator: Coordinator, windowMs: number): StatementInFlight[] {
  const since = coordinator.now() - windowMs;
  const found: StatementInFlight[] = [];
  for (const tracked of coordinator.list()) {
    if (tracked.final && (tracked.final.endTime ?? 0) < since) continue;
    const view = coordinator.view(tracked);
    if (view.state === 'QUEUED') continue;
    found.push({ queryId: view.queryId, state: view.state, user: view.session.user, query: view.sql });
  }
  return found;
}

/** Node's parser refused the request (bad request line, method token, header, size, timeout). */
function answerClientError(err: Error & { code?: string; reason?: string }, socket: Duplex): void {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      answerRaw(socket, 431, 'GENERIC_USER_ERROR', 'Request line or header fields too large');
      return;
    case 'HPE_INVALID_METHOD':
      answerRaw(socket, 501, 'NOT_SUPPORTED', 'Method not implemented by this server');
      return;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      answerRaw(socket, 408, 'GENERIC_USER_ERROR', 'Request timed out');
      return;
    case 'ECONNRESET':
      socket.destroy();
      return;
    default:
      // `reason` is llhttp's fixed description ("Invalid header value char"); the raw bytes are not echoed.
      answerRaw(socket, 400, 'GENERIC_USER_ERROR', `Malformed HTTP request: ${err.reason ?? err.code ?? 'parse error'}`);
  }
}

/** Writes one complete response and closes the connection, unless a response is already under way on it. */
function answerRaw(socket: Duplex, status: number, errorName: ErrorName, message: string): void {
  const inProgress = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (!socket.writable || inProgress?.headersSent) {
    socket.destroy();
    return;
  }
  const body = errorBody(status, errorName, message);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
