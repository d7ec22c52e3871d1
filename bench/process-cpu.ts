// Processes of a running Vivace through /proc (Linux): a coordinator's local worker processes, and CPU
// time of a whole process (every thread) and of its main thread. Figure b reads CPU around its measured
// load to say where each query's CPU goes; the e2e specs find the worker to kill.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessCpu {
  /** user + system microseconds of every thread */
  total: number;
  /** user + system microseconds of the main thread (the event loop) */
  main: number;
}

/** The fields of a /proc stat line after the command name (which may hold spaces and parentheses): state is [0]. */
function statFields(path: string): string[] {
  const stat = readFileSync(path, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** utime + stime of a /proc stat file, in microseconds (clock ticks of 10 ms: USER_HZ is 100 on Linux). */
function statMicros(path: string): number {
  const fields = statFields(path);
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

export function processCpu(pid: number): ProcessCpu {
  return { total: statMicros(`/proc/${pid}/stat`), main: statMicros(`/proc/${pid}/task/${pid}/stat`) };
}

/** Pids of a coordinator's local worker processes by node id (its children started with --node-id). */
export function workerPids(coordinatorPid: number): Map<string, number> {
  const pids = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(statFields(`/proc/${entry}/stat`)[1]) !== coordinatorPid) continue;
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const at = args.indexOf('--node-id');
      if (at >= 0) pids.set(args[at + 1]!, Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

/** CPU of each process between the call and the returned stop(), or undefined where /proc is not there. */
export function watchCpu(pids: readonly number[]): { stop(): ProcessCpu[] } | undefined {
  try {
    const before = pids.map(processCpu);
    return {
      stop: () => pids.map((pid, i) => {
        const after = processCpu(pid);
        return { total: after.total - before[i]!.total, main: after.main - before[i]!.main };
      }),
    };
  } catch {
    return undefined;
  }
}

/** The CPU of a load's server processes (/proc) and of this process, the load's client (microseconds). */
export interface LoadCpu {
  processes: ProcessCpu[];
  client: number;
}

/** CPU of `pids` and of this process between the call and the returned stop(); undefined where /proc is not there. */
export function watchLoadCpu(pids: readonly number[]): { stop(): LoadCpu | undefined } {
  const watch = watchCpu(pids);
  const client = process.cpuUsage();
  return {
    stop: () => {
      const used = process.cpuUsage(client);
      const processes = watch?.stop();
      return processes ? { processes, client: used.user + used.system } : undefined;
    },
  };
}
