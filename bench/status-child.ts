// Light status endpoints for the failure-detector bench: a few HTTP servers in one child process, each
// answering HEAD /n{i}/v1/status for many simulated nodes (one socket per node would be 1,000 ports).
// A node told to fail resets every connection that asks for it, as a crashed worker's port would; one told
// to hang never answers (a stopped process or a partition), so the coordinator's pings time out.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

/** Parent -> child: start failing (or hanging) these node indexes. */
export interface StatusChildCommand {
  type: 'fail' | 'hang' | 'stop';
  nodes?: number[];
}

/** Child -> parent: the servers' base URLs, ready. */
export interface StatusChildReady {
  type: 'ready';
  bases: string[];
}

const failed = new Set<number>();
const hanging = new Set<number>();

/** Node index of `/n{i}/v1/status`, or -1 (hand-written: the path is whatever a client sends). */
function nodeIndex(url: string | undefined): number {
  if (!url || !url.startsWith('/n') || !url.endsWith('/v1/status')) return -1;
  const digits = url.slice(2, url.length - '/v1/status'.length);
  if (digits.length === 0 || digits.length > 7) return -1;
  for (let i = 0; i < digits.length; i++) {
    const c = digits.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return -1;
  }
  return Number(digits);
}

async function childMain(serverCount: number): Promise<void> {
  const servers: Server[] = [];
  for (let i = 0; i < serverCount; i++) {
    const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
      const node = nodeIndex(req.url);
      if (failed.has(node)) {
        req.socket.destroy();
        return;
      }
      if (hanging.has(node)) return; // the client's timeout closes the connection
      res.writeHead(node >= 0 ? 200 : 404, { 'content-length': '0' }).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
  }
  process.on('message', (raw: unknown) => {
    const command = raw as StatusChildCommand;
    if (command.type === 'fail') for (const n of command.nodes ?? []) failed.add(n);
    if (command.type === 'hang') for (const n of command.nodes ?? []) hanging.add(n);
    if (command.type === 'stop') process.exit(0);
  });
  process.on('disconnect', () => process.exit(0));
  const bases = servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`);
  process.send!({ type: 'ready', bases } satisfies StatusChildReady);
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.send) {
  void childMain(Number(process.argv[2] ?? '4'));
}
