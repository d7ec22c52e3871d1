// `vivace serve ...` (the coordinator, lib/cli/serve-command.ts) and `vivace worker ...` (a worker,
// lib/cli/worker-command.ts).
import { runServe, SERVE_USAGE } from './serve-command.js';
import { runWorker, WORKER_USAGE } from './worker-command.js';
import { QUERY_USAGE, runQuery } from './query-command.js';

const USAGE = `${SERVE_USAGE}\n       ${WORKER_USAGE.slice('usage: '.length)}\n       ${QUERY_USAGE.slice('usage: '.length)}`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'worker') return runWorker(rest);
  if (command === 'serve') return runServe(rest);
  if (command === 'query') return runQuery(rest);
  process.stderr.write(`${USAGE}\n`);
  return command === undefined || command === '--help' ? 0 : 2;
}

/**
 * Exits once what was written to stdout and stderr has left: writes to a pipe are asynchronous, and an exit
 * at once cut `vivace query`'s output of a large result short (64 kB to a shell pipe) with status 0.
 */
function exitAfterOutput(code: number): void {
  let pending = 2;
  const done = () => {
    if (--pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

main(process.argv.slice(2)).then(
  (code) => exitAfterOutput(code),
  (err) => {
    process.stderr.write(`vivace: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
