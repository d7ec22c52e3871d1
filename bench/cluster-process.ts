// A whole Vivace cluster as real processes, for the benchmarks and the e2e specs (spec/e2e imports this;
// nothing here imports from spec/, which is not part of what the bench needs). `bin/vivace serve --workers N`
// as `make run` starts it: bin/vivace's Node flags and UV_THREADPOOL_SIZE, this build's entry point (dist
// when compiled, the sources through tsx otherwise), on 127.0.0.1 and a port the system picks. Its URL is
// read from the coordinator's listening line, its workers' from the listening lines it forwards for them.
// Stopped with SIGTERM to its pid (the coordinator stops its workers), else SIGKILL.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { listeningUrl } from '../lib/cluster/local-workers.js';
import { serverNodeFlags } from './children.js';
import { loaderArgs, projectRoot } from './sibling-script.js';

export interface RunningCluster {
  readonly url: string;
  readonly pid: number;
  /** SIGTERM, SIGKILL after 15 s; resolves once it exited (at once if it already had). */
  stop(): Promise<void>;
}

export interface ClusterProcess extends RunningCluster {
  readonly process: ChildProcess;
  /** Worker node id -> where it listens now, from the lines the coordinator forwards (with captureOutput). */
  readonly workerUrls: ReadonlyMap<string, string>;
  /** The coordinator's output lines so far: stdout, and stderr with captureOutput. */
  readonly output: readonly string[];
}

export interface ClusterOptions {
  workers: number;
  /** Extra lines of the coordinator's config file (shared with its workers). */
  properties?: Record<string, string>;
  /** The data directory of the coordinator and its workers (data.directory): where they find and cache tpch data. */
  dataDirectory?: string;
  /** Write V8 CPU profiles of the coordinator and its workers (which inherit its flags) into this directory. */
  cpuProfDir?: string;
  /**
   * Read the coordinator's stderr too (its JSON log and the lines it forwards for its workers) into
   * output and workerUrls, instead of passing it through to this process's stderr (the bench's way).
   */
  captureOutput?: boolean;
  /** Files written beside the config file (as Trino's etc/): name -> text, e.g. resource-groups.properties. */
  files?: Record<string, string>;
}

const COORDINATOR_LINE = 'vivace coordinator listening on ';

/** Polls `probe` until it gives something other than undefined or false; fails after `timeoutMs` saying what was awaited. */
export async function until<T>(what: string, timeoutMs: number, probe: () => T | undefined | false | Promise<T | undefined | false>, intervalMs = 100): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() - start > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await delay(intervalMs);
  }
}

/** Fails a wait at once when the coordinator is gone instead of at its deadline. */
function expectRunning(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) throw new Error(`vivace serve exited with ${child.exitCode ?? child.signalCode}`);
}

/** A worker's id and URL in the coordinator's forwarded `[worker-1] vivace worker worker-1 listening on <url>`. */
function forwardedWorker(line: string): { nodeId: string; url: string } | undefined {
  const end = line.indexOf('] ');
  if (!line.startsWith('[') || end < 0) return undefined;
  const nodeId = line.slice(1, end);
  const url = listeningUrl(line.slice(end + 2), nodeId);
  return url === undefined ? undefined : { nodeId, url };
}

/** Starts the cluster; resolves once the coordinator listens (its workers may still be starting). */
export async function startClusterProcess(options: ClusterOptions): Promise<ClusterProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'vivace-cluster-process-'));
  const configFile = join(dir, 'config.properties');
  // tpch data from the caller's directory (the bench streams tpch.sf1.lineitem from the user's cache), so not under `dir`.
  const properties = { ...options.properties, ...(options.dataDirectory === undefined ? {} : { 'data.directory': options.dataDirectory }) };
  writeFileSync(configFile, Object.entries(properties).map(([k, v]) => `${k}=${v}\n`).join(''));
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(dir, name), text);
  const main = loaderArgs.length === 0 ? join(projectRoot, 'dist/lib/cli/main.js') : join(projectRoot, 'lib/cli/main.ts');
  const flags = [...loaderArgs, ...serverNodeFlags(), ...(options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : [])];
  const child = spawn(process.execPath, [...flags, main, 'serve', '--host', '127.0.0.1', '--port', '0', '--workers', String(options.workers), '--config', configFile], {
    cwd: projectRoot,
    stdio: ['ignore', 'pipe', options.captureOutput ? 'pipe' : 'inherit'],
    env: { ...process.env, UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE ?? '16' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const output: string[] = [];
  const workerUrls = new Map<string, string>();
  let url = '';
  const onLine = (line: string) => {
    output.push(line);
    if (line.startsWith(COORDINATOR_LINE)) url = line.slice(COORDINATOR_LINE.length).split(' ')[0]!;
    const worker = forwardedWorker(line);
    if (worker) workerUrls.set(worker.nodeId, worker.url);
  };
  for (const stream of [child.stdout, child.stderr]) if (stream) createInterface({ input: stream, crlfDelay: Infinity }).on('line', onLine);
  const stop = async () => {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until('the coordinator listens', 30_000, () => {
      expectRunning(child);
      return url !== '';
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, pid: child.pid!, process: child, workerUrls, output, stop };
}

/** Workers listed in /v1/node and not in /v1/node/failed (-1 while the coordinator does not answer). */
async function healthyWorkers(url: string): Promise<number> {
  const headers = { 'X-Trino-User': 'bench' };
  return fetch(`${url}/v1/node/failed`, { headers })
    .then(async (failed) => {
      if (!failed.ok) return -1;
      const all = (await (await fetch(`${url}/v1/node`, { headers })).json()) as unknown[];
      return all.length - ((await failed.json()) as unknown[]).length;
    })
    .catch(() => -1);
}

/** The bench's cluster: started, and ready once its N workers pass the failure detector (within 60 s). */
export async function startCluster(options: ClusterOptions): Promise<RunningCluster> {
  const cluster = await startClusterProcess(options);
  try {
    await until(`the cluster's ${options.workers} healthy workers`, 60_000, async () => {
      expectRunning(cluster.process);
      return (await healthyWorkers(cluster.url)) >= options.workers;
    }, 250);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
