// `vivace serve --workers N`: the coordinator's own worker processes. Each is `vivace worker` as a child,
// announced to this coordinator like any remote worker; one that dies is started again with exponential
// backoff (1 s doubling to 30 s, back to 1 s after a minute of health). Their JSON log lines are forwarded
// as they are, other output with the worker's id as a prefix. They stop with the coordinator, and an
// orphan guard on their stdin stops them if it dies.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { defaultLogger } from '../log/logger.js';
import { ORPHAN_GUARD_ENV } from './orphan-guard.js';

export interface LocalWorkersOptions {
  count: number;
  /** The coordinator's URL, where the workers announce themselves. */
  coordinatorUrl: string;
  /** Each worker's data directory is `{dataDirectory}/worker-{i}` (its node id, memory catalog file). */
  dataDirectory: string;
  /** A config file for the workers (environment, shared secret: never on the command line, which `ps` shows). */
  configFile?: string;
  /** Where forwarded lines go (default stderr). */
  log?: (line: string) => void;
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Healthy this long: the next restart waits initialBackoffMs again. */
  resetBackoffAfterMs?: number;
  /** SIGTERM, then SIGKILL after this long. */
  stopGraceMs?: number;
  /** Extra environment for the workers. */
  env?: NodeJS.ProcessEnv;
  /** The workers' CPU priority (`vivace worker --nice`); 0 or absent: the coordinator's. */
  nice?: number;
  /** Whether worker-0 holds the memory catalog (`--memory-catalog`); false when no catalog file names one. Default true. */
  memoryCatalog?: boolean;
}

export interface LocalWorkerState {
  index: number;
  nodeId: string;
  pid?: number;
  /** Where it listens, once it said so. */
  url?: string;
  /** Times it was started again after dying. */
  restarts: number;
}

const BACKOFF = { initialMs: 1_000, maxMs: 30_000, resetAfterMs: 60_000 } as const;
const STOP_GRACE_MS = 5_000;
const READY_PREFIX = 'vivace worker ';
const READY_INFIX = ' listening on ';

/** The URL in a worker's `vivace worker <nodeId> listening on <url>` line, if the line is one. */
export function listeningUrl(line: string, nodeId: string): string | undefined {
  const head = `${READY_PREFIX}${nodeId}${READY_INFIX}`;
  if (!line.startsWith(head)) return undefined;
  const url = line.slice(head.length).trim();
  return url.startsWith('http://') || url.startsWith('https://') ? url : undefined;
}

/**
 * `{dataDirectory}/workers/{port}`: where the local workers of the coordinator listening on `port` keep
 * their data (each in `worker-{i}`). Keyed by the port because two coordinators on one machine never share
 * one, and one restarted on its port finds its memory tables again (Trino keeps a node's data under its own
 * node.data-dir).
 */
export function localWorkersDirectory(dataDirectory: string, port: string | number): string {
  return join(dataDirectory, 'workers', String(port));
}

/** Delay before restart `attempt` (0-based): initial, doubled each time, capped. */
export function restartDelayMs(attempt: number, initialMs: number = BACKOFF.initialMs, maxMs: number = BACKOFF.maxMs): number {
  return Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
}

/** How to start `vivace worker`: the built CLI, or the sources through tsx when running from them. */
function workerCommand(): { execArgv: string[]; main: string } {
  const here = dirname(fileURLToPath(import.meta.url));
  const fromSource = import.meta.url.endsWith('.ts');
  const extension = fromSource ? 'ts' : 'js';
  const guard = pathToFileURL(join(here, `orphan-guard.${extension}`)).href;
  const main = join(here, '..', 'cli', `main.${extension}`);
  return { execArgv: [...inheritedFlags(), ...(fromSource ? ['--import', 'tsx'] : []), '--import', guard], main };
}

/** The coordinator's own Node flags (bin/vivace's GC settings, source maps), without its preloads. */
function inheritedFlags(): string[] {
  const flags: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (flag === '--import' || flag === '--require' || flag === '-r' || flag === '--loader') i++;
    else if (!flag.startsWith('--import=') && !flag.startsWith('--require=') && !flag.startsWith('--loader=')) flags.push(flag);
  }
  return flags;
}

export class LocalWorkers {
  private readonly slots: Slot[];
  private stopping = false;

  constructor(private readonly options: LocalWorkersOptions) {
    this.slots = Array.from({ length: options.count }, (_, index) => new Slot(index, options, () => this.stopping));
  }

  start(): void {
    const { main } = workerCommand();
    if (!existsSync(main)) throw new Error(`Cannot start local workers: ${main} is missing (run make build)`);
    for (const slot of this.slots) slot.start();
  }

  workers(): LocalWorkerState[] {
    return this.slots.map((slot) => slot.state());
  }

  /** Resolves once every worker announced where it listens (or `timeoutMs` passes: false). */
  async ready(timeoutMs: number): Promise<boolean> {
    return Promise.all(this.slots.map((slot) => slot.ready(timeoutMs))).then((all) => all.every(Boolean));
  }

  /** SIGTERM every worker, SIGKILL after the grace; no restarts from now on. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.slots.map((slot) => slot.stop(this.options.stopGraceMs ?? STOP_GRACE_MS)));
  }

  /** Last resort on the coordinator's exit: no waiting is possible there. */
  killAll(): void {
    this.stopping = true;
    for (const slot of this.slots) slot.kill();
  }
}

class Slot {
  readonly nodeId: string;
  private child?: ChildProcess;
  private url?: string;
  private restarts = 0;
  private attempt = 0;
  private startedAt = 0;
  private restartTimer?: NodeJS.Timeout;
  private readyWaiters: (() => void)[] = [];

  constructor(
    readonly index: number,
    private readonly options: LocalWorkersOptions,
    private readonly stopping: () => boolean,
  ) {
    this.nodeId = `worker-${index}`;
  }

  state(): LocalWorkerState {
    return { index: this.index, nodeId: this.nodeId, ...(this.child?.pid === undefined ? {} : { pid: this.child.pid }), ...(this.url ? { url: this.url } : {}), restarts: this.restarts };
  }

  start(): void {
    const { execArgv, main } = workerCommand();
    const args = [
      ...execArgv, main, 'worker',
      '--coordinator', this.options.coordinatorUrl,
      '--node-id', this.nodeId,
      '--port', '0',
      '--data-dir', join(this.options.dataDirectory, this.nodeId),
      ...(this.options.configFile ? ['--config', this.options.configFile] : []),
      ...(this.index === 0 && this.options.memoryCatalog !== false ? ['--memory-catalog'] : []),
      ...(this.options.nice ? ['--nice', String(this.options.nice)] : []),
    ];
    this.url = undefined;
    this.startedAt = Date.now();
    const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...this.options.env, [ORPHAN_GUARD_ENV]: '1' } });
    this.child = child;
    const prefix = `[${this.nodeId}] `;
    const log = this.options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    forwardLines(child.stdout!, (line) => {
      const url = listeningUrl(line, this.nodeId);
      if (url) {
        this.url = url;
        for (const wake of this.readyWaiters.splice(0)) wake();
      }
      log(prefix + line);
    });
    // A worker's log lines are JSON that names its node already: they pass as they are, so the
    // coordinator's stderr stays one JSON object per line for a log shipper; anything else (a crash's
    // trace from Node or DuckDB) is prefixed with the worker's id.
    forwardLines(child.stderr!, (line) => log(line.startsWith('{') ? line : prefix + line));
    child.stdin!.on('error', () => {}); // the worker went away: nothing to write anyway
    child.on('error', (err) => {
      defaultLogger().error({ component: 'local_workers', event: 'worker_start_failed', nodeId: this.nodeId, message: err.message }, 'a local worker could not start');
    });
    child.on('exit', (code, signal) => {
      if (this.child !== child) return;
      this.child = undefined;
      this.url = undefined;
      if (this.stopping()) return;
      // A minute of health and the backoff starts over.
      if (Date.now() - this.startedAt >= (this.options.resetBackoffAfterMs ?? BACKOFF.resetAfterMs)) this.attempt = 0;
      const delay = restartDelayMs(this.attempt++, this.options.initialBackoffMs, this.options.maxBackoffMs);
      defaultLogger().warn({ component: 'local_workers', event: 'worker_exited', nodeId: this.nodeId, exit: signal ?? `code ${code}`, restartInMs: delay }, 'a local worker exited; it is started again');
      this.restartTimer = setTimeout(() => {
        this.restartTimer = undefined;
        if (this.stopping()) return;
        this.restarts++;
        this.start();
      }, delay);
    });
  }

  ready(timeoutMs: number): Promise<boolean> {
    if (this.url) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.readyWaiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  async stop(graceMs: number): Promise<void> {
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }

  kill(): void {
    clearTimeout(this.restartTimer);
    this.child?.kill('SIGKILL');
  }
}

/** Calls `onLine` for each complete line of a stream (a partial last line at its end too). */
function forwardLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let pending = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      onLine(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
    // A worker writing without newlines must not grow this without bound.
    if (pending.length > 64 * 1024) {
      onLine(pending);
      pending = '';
    }
  });
  stream.on('end', () => {
    if (pending !== '') onLine(pending);
  });
}
