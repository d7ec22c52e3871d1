// The local worker processes of a `vivace serve` the e2e specs started, found through /proc (Linux).
import { readdirSync, readFileSync } from 'node:fs';

/** Pids of the coordinator's worker processes by node id. */
export function workerPids(coordinatorPid: number): Map<string, number> {
  const pids = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== coordinatorPid) continue;
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      const at = args.indexOf('--node-id');
      if (at >= 0) pids.set(args[at + 1]!, Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}
