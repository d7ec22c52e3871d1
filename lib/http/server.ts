// Starts the HTTP server for a coordinator (and the HTTPS one, with http-server.https.enabled) and stops
// them cleanly (open keep-alive sockets included).
// Requests Node's parser refuses before Koa sees them are answered here, in the same JSON error shape.
import { createServer, STATUS_CODES, type Server } from 'node:http';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { Coordinator } from '../actors/coordinator.js';
import type { ErrorName } from '../protocol/error-codes.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { createApp } from './app.js';
import type { AccessControl } from '../security/access-control.js';
import { errorBody } from './error-middleware.js';
import { startEventLoopMonitor, type EventLoopMonitor, type StatementInFlight } from './event-loop-monitor.js';
import { ServerState } from './info.routes.js';
import { loadTlsMaterial } from './tls-keystore.js';
import { drainQueries } from '../actors/shutdown-drain.js';
import { defaultLogger, type Logger } from '../log/logger.js';
import { startNodeStateLog } from '../log/node-state-log.js';
import { queryLog } from '../log/query-log.js';
import { createCoordinatorMetrics, type CoordinatorMetrics } from '../metrics/coordinator-metrics.js';
import { watchQueryEvents } from '../metrics/query-events.js';

export interface RunningServer {
  readonly url: string;
  /** This coordinator's node id (/v1/info, system.runtime.nodes). */
  readonly nodeId: string;
  readonly port: number;
  readonly server: Server;
  readonly state: ServerState;
  readonly eventLoop: EventLoopMonitor;
  /** What GET /metrics serves. */
  readonly metrics: CoordinatorMetrics;
  /** With http-server.https.enabled: the HTTPS listener, same app, on http-server.https.port. */
  readonly httpsUrl?: string;
  readonly httpsPort?: number;
  readonly httpsServer?: HttpsServer;
  close(): Promise<void>;
}

export interface ServerOptions {
  host?: string;
  port?: number;
  /** overrides http-server.https.port (0: any free port) */
  httpsPort?: number;
  onShutdown?: () => void;
  /** Event-loop stall threshold (default 100 ms). */
  stallThresholdMs?: number;
  /** Who may do what; Trino's default (everything but impersonation) when absent. */
  accessControl?: AccessControl;
  /** Where the server's lines go: queries, node changes, server errors, stalls (default: the process's logger). */
  logger?: Logger;
}

export async function startServer(coordinator: Coordinator, options: ServerOptions = {}): Promise<RunningServer> {
  // Certificate problems stop the start before anything runs.
  const tls = coordinator.config.httpsEnabled ? loadTlsMaterial(coordinator.config) : undefined;
  const httpPort = options.port ?? coordinator.config.port;
  const httpsPort = options.httpsPort ?? coordinator.config.httpsPort;
  if (tls && httpsPort !== 0 && httpsPort === httpPort) {
    throw new VivaceError('CONFIGURATION_INVALID', `http-server.https.port and http-server.http.port are both ${httpsPort}`);
  }
  // Graceful, as in Trino: the running queries finish and are read (shutdown.grace-period) first.
  const state = new ServerState(async () => {
    await drainQueries(coordinator, { gracePeriodMs: coordinator.config.shutdownGracePeriodMs });
    options.onShutdown?.();
  });
  const nodeId = randomUUID();
  const logger = options.logger ?? defaultLogger();
  const eventLoop = startEventLoopMonitor({
    statementsDuring: (windowMs) => statementsDuring(coordinator, windowMs),
    logger,
    ...(options.stallThresholdMs === undefined ? {} : { stallThresholdMs: options.stallThresholdMs }),
  });
  const metrics = createCoordinatorMetrics(coordinator);
  const stopQueryEvents = watchQueryEvents(coordinator, [metrics.queries, queryLog(logger)]);
  const nodeStateLog = startNodeStateLog(coordinator, logger);
  const stopWatching = () => {
    eventLoop.stop();
    stopQueryEvents();
    nodeStateLog.stop();
  };
  const host = options.host ?? coordinator.config.host;
  let server: Server | undefined;
  let httpsServer: HttpsServer | undefined;
  try {
    // A bad password file or JWT key file stops the start here (createApp reads them).
    const app = createApp(coordinator, { nodeId, serverState: state, eventLoop, metrics, logger, ...(options.accessControl ? { accessControl: options.accessControl } : {}) });
    const handler = app.callback();
    server = configure(createServer(handler));
    await listen(server, httpPort, host);
    if (tls) {
      // TLS 1.2 and 1.3 only, as Trino's server.
      httpsServer = configure(createHttpsServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, handler));
      await listen(httpsServer, httpsPort, host);
    }
  } catch (err) {
    stopWatching();
    await Promise.all([server, httpsServer].map((s) => (s?.listening ? closeServer(s) : undefined)));
    throw err;
  }
  const { address, port } = server.address() as AddressInfo;
  const secure = httpsServer;
  const secureAddress = secure?.address() as AddressInfo | undefined;
  return {
    url: `http://${hostPart(address)}:${port}`,
    nodeId,
    port,
    server,
    state,
    eventLoop,
    metrics,
    ...(secure && secureAddress
      ? { httpsUrl: `https://${hostPart(secureAddress.address)}:${secureAddress.port}`, httpsPort: secureAddress.port, httpsServer: secure }
      : {}),
    close: async () => {
      stopWatching();
      await Promise.all([closeServer(server), secure ? closeServer(secure) : undefined]);
    },
  };
}

function hostPart(address: string): string {
  return address.includes(':') ? `[${address}]` : address;
}

function listen(server: Server | HttpsServer, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function closeServer(server: Server | HttpsServer): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** The same answers on both listeners for what Node refuses before Koa sees it. */
function configure<S extends Server | HttpsServer>(server: S): S {
  server.keepAliveTimeout = 65_000;
  server.on('clientError', answerClientError);
  // An Expect other than 100-continue: Node's own 417 has an empty body.
  server.on('checkExpectation', (req, res) => {
    const body = errorBody(417, 'GENERIC_USER_ERROR', `Unsupported expectation: ${req.headers.expect ?? ''}`);
    res.writeHead(417, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Connection: 'close' }).end(body);
  });
  // CONNECT is parsed but no route can take it; without a listener Node would drop the connection.
  server.on('connect', (_req, socket: Duplex) => answerRaw(socket, 501, 'NOT_SUPPORTED', 'Method CONNECT is not implemented by this server'));
  return server;
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
