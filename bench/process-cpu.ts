// CPU time of processes from /proc (Linux): a whole process (every thread) and its main thread, and a
// process's children. Figure b reads them around its measured load to say where each query's CPU goes.
import { readFileSync } from 'node:fs';

export interface ProcessCpu {
  /** user + system microseconds of every thread */
  total: number;
  /** user + system microseconds of the main thread (the event loop) */
  main: number;
}

/** utime + stime of a /proc stat line, in microseconds (clock ticks of 10 ms: USER_HZ is 100 on Linux). */
function statMicros(path: string): number {
  const stat = readFileSync(path, 'utf8');
  // The command name may hold spaces and parentheses: fields count from the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

export function processCpu(pid: number): ProcessCpu {
  return { total: statMicros(`/proc/${pid}/stat`), main: statMicros(`/proc/${pid}/task/${pid}/stat`) };
}

/** The direct children of `pid` (a coordinator's local workers). */
export function childPids(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter((s) => s !== '').map(Number);
}

/** CPU of each process between start() and the returned stop(), or undefined where /proc is not there. */
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
