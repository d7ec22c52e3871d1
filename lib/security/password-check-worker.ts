// Password hash checks (bcrypt and PBKDF2) on one worker thread shared by the process. bcryptjs is plain
// JavaScript: even its async compare holds the event loop for up to 100 ms per step, and concurrent
// checks (wrong passwords from anyone) add up per turn of the loop (measured: 4 checks at cost 12 held it
// 404 ms). PBKDF2 on libuv's pool would take the threads DuckDB runs queries on. On the worker neither
// happens; checks queue there, one at a time, and past MAX_PENDING they are refused at once.
import { createRequire } from 'node:module';
import { ThreadQueue } from '../thread-queue.js';

/** An eval'd CommonJS script: it runs the same under tsx and from dist, and loads bcryptjs's CommonJS build. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { pbkdf2Sync, timingSafeEqual } = require('node:crypto');
const bcrypt = require(workerData.bcryptPath);
function check(request) {
  if (request.kind === 'bcrypt') return bcrypt.compareSync(request.password, request.hash);
  const expected = Buffer.from(request.hash, 'hex');
  const derived = pbkdf2Sync(request.password, Buffer.from(request.salt, 'hex'), request.iterations, expected.length, 'sha1');
  return timingSafeEqual(derived, expected);
}
parentPort.on('message', (request) => {
  let ok = false;
  try {
    ok = check(request);
  } catch {
    ok = false;
  }
  parentPort.postMessage({ id: request.id, ok });
});
`;

export type PasswordCheck =
  | { kind: 'bcrypt'; password: string; hash: string }
  | { kind: 'pbkdf2'; password: string; iterations: number; salt: string; hash: string };

/** Checks waiting at most; at bcrypt cost 8 (~18 ms each) the last one waits about 5 s. */
export const MAX_PENDING = 256;
let maxPending = MAX_PENDING;

/** For specs: a smaller queue; returns the function that restores the default. */
export function limitPendingChecks(limit: number): () => void {
  maxPending = limit;
  return () => {
    maxPending = MAX_PENDING;
  };
}

export class TooManyPasswordChecks extends Error {
  constructor() {
    super('Too many password checks in progress; try again later');
  }
}

let checks: ThreadQueue<PasswordCheck, { ok: boolean }> | undefined;

/** Whether the password matches; rejects with TooManyPasswordChecks when the queue is full. */
export async function checkPassword(check: PasswordCheck): Promise<boolean> {
  checks ??= new ThreadQueue('password check', WORKER_SOURCE, { bcryptPath: createRequire(import.meta.url).resolve('bcryptjs') });
  if (checks.size >= maxPending) throw new TooManyPasswordChecks();
  return (await checks.request(check)).ok;
}
