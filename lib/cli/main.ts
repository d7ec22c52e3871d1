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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`vivace: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
