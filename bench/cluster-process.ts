// A whole Vivace cluster for the benchmarks: `bin/vivace serve --workers N` as `make run` starts it
// (the coordinator and N local worker processes, with bin/vivace's Node flags), on a free port. Ready once N workers pass the failure
// detector; stopped with SIGTERM to its pid (the coordinator stops its workers), else SIGKILL.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { serverNodeFlags } from './children.js';
import { loaderArgs, projectRoot } from './sibling-script.js';

export interface RunningCluster {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface ClusterOptions {
  workers: number;
  /** Extra lines of the coordinator's config file (shared with its workers). */
  properties?: Record<string, string>;
  /** The data directory of the coordinator and its workers (data.directory): where they find and cache tpch data. */
  dataDirectory?: string;
  /** Write V8 CPU profiles of the coordinator and its workers (which inherit its flags) into this directory. */
  cpuProfDir?: string;
}

export async function startCluster(options: ClusterOptions): Promise<RunningCluster> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'vivace-bench-cluster-'));
  const configFile = join(dir, 'config.properties');
  // tpch data from the user's cache (the bench streams tpch.sf1.lineitem), so not under `dir`.
  const properties = { ...options.properties, ...(options.dataDirectory === undefined ? {} : { 'data.directory': options.dataDirectory }) };
  writeFileSync(configFile, Object.entries(properties).map(([k, v]) => `${k}=${v}\n`).join(''));
  // bin/vivace's command line, in this build (dist when compiled, the sources through tsx otherwise).
  const main = loaderArgs.length === 0 ? join(projectRoot, 'dist/lib/cli/main.js') : join(projectRoot, 'lib/cli/main.ts');
  const flags = [...loaderArgs, ...serverNodeFlags(), ...(options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : [])];
  const child = spawn(process.execPath, [...flags, main, 'serve', '--host', '127.0.0.1', '--port', String(port), '--workers', String(options.workers), '--config', configFile], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE ?? '16' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`vivace serve exited with ${child.exitCode}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the cluster did not have ${options.workers} healthy workers within 60 s`);
    }
    const alive = await fetch(`${url}/v1/node/failed`, { headers: { 'X-Trino-User': 'bench' } })
      .then(async (failed) => {
        if (!failed.ok) return -1;
        const all = (await (await fetch(`${url}/v1/node`, { headers: { 'X-Trino-User': 'bench' } })).json()) as unknown[];
        return all.length - ((await failed.json()) as unknown[]).length;
      })
      .catch(() => -1);
    if (alive >= options.workers) break;
    await delay(250);
  }
  return { url, pid: child.pid!, stop };
}
