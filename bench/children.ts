// Child processes of the benchmark (the Vivace server, the Koa baseline): forked in the parent's build,
// ready when they send their URL over IPC, stopped by message and, failing that, killed by their pid.
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loaderArgs, projectRoot, siblingScript } from './sibling-script.js';
import type { ChildMessage } from './server-child.js';

export interface Child {
  readonly url: string;
  readonly pid: number;
  /** Resident set size now, from /proc/<pid>/status (VmRSS), in bytes. */
  rss(): number;
  /** Force a full garbage collection in the child (server-child.ts only); resolves with its memory after it. */
  gc(): Promise<NodeJS.MemoryUsage>;
  /** Ask it to exit (waits up to 10 s, then SIGKILLs this pid). */
  stop(): Promise<void>;
}

/** server-child: Vivace in one process; koa-child: a bare Koa app; hop-floor-child: bare HTTP with a worker call's hops (figure b's floor). */
export type ChildScript = 'server-child.ts' | 'koa-child.ts' | 'hop-floor-child.ts';

export interface ChildOptions {
  /** Write a V8 CPU profile of the child into this directory when it exits. */
  cpuProfDir?: string;
}

export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) * 1024;
}

/** The Node flags bin/vivace starts the server with (its `node_flags=(...)` line), so the bench measures the same process. */
export function serverNodeFlags(): string[] {
  const script = readFileSync(join(projectRoot, 'bin/vivace'), 'utf8');
  const line = /^node_flags=\(([^)]*)\)$/m.exec(script);
  if (!line) throw new Error('bin/vivace has no node_flags=(...) line');
  return line[1]!.trim().split(/\s+/);
}

export function startChild(script: ChildScript, options: ChildOptions = {}): Promise<Child> {
  const path = siblingScript(script);
  const execArgv = [...loaderArgs, ...serverNodeFlags()];
  if (options.cpuProfDir) execArgv.push('--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`);
  const child: ChildProcess = fork(path, [], {
    execArgv,
    env: { ...process.env, UV_THREADPOOL_SIZE: process.env.UV_THREADPOOL_SIZE ?? '16' },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise<Child>((resolve, reject) => {
    const startTimer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not start within 30 s`));
    }, 30_000);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${script} exited early with code ${code}`)));
    child.on('message', (raw: unknown) => {
      const message = raw as ChildMessage;
      if (message.type === 'gc-done') return;
      clearTimeout(startTimer);
      if (message.type === 'error') {
        reject(new Error(`${script} failed: ${message.message}`));
        return;
      }
      const pid = child.pid!;
      resolve({
        url: message.url,
        pid,
        rss: () => rssOf(pid),
        gc: () =>
          new Promise<NodeJS.MemoryUsage>((done) => {
            const onMessage = (raw: unknown) => {
              const message = raw as ChildMessage;
              if (message.type !== 'gc-done') return;
              child.off('message', onMessage);
              done(message.memory);
            };
            child.on('message', onMessage);
            child.send({ type: 'gc' });
          }),
        async stop() {
          if (child.exitCode !== null || child.signalCode !== null) return;
          if (child.connected) child.send({ type: 'stop' });
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(timer);
        },
      });
    });
  });
}
