// Starts the HTTP server for a coordinator and stops it cleanly (open keep-alive sockets included).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import type { Coordinator } from '../actors/coordinator.js';
import { createApp } from './app.js';
import { ServerState } from './info.routes.js';

export interface RunningServer {
  readonly url: string;
  /** This coordinator's node id (/v1/info, system.runtime.nodes). */
  readonly nodeId: string;
  readonly port: number;
  readonly server: Server;
  readonly state: ServerState;
  close(): Promise<void>;
}

export async function startServer(
  coordinator: Coordinator,
  options: { host?: string; port?: number; onShutdown?: () => void } = {},
): Promise<RunningServer> {
  const state = new ServerState(options.onShutdown);
  const nodeId = randomUUID();
  const app = createApp(coordinator, { nodeId, serverState: state });
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? coordinator.config.port, options.host ?? coordinator.config.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    nodeId,
    port,
    server,
    state,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
