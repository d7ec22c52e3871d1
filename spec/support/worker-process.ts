// `bin/vivace worker` as a real child process (from source), for specs that start, kill and restart one.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const VIVACE_BIN = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/vivace');
const LINE = 'vivace worker ';

export interface StartedWorker {
  child: ChildProcess;
  nodeId: string;
  url: string;
  /** Its exit code once it exited (null when a signal ended it). */
  exited: Promise<number | null>;
}

/** Starts `vivace worker ...args`; resolves once it printed `vivace worker <nodeId> listening on <url>`. */
export function startWorkerProcess(args: string[]): Promise<StartedWorker> {
  const child = spawn(VIVACE_BIN, ['worker', ...args], { env: { ...process.env, VIVACE_FROM_SOURCE: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return new Promise((resolveStart, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith(LINE));
      if (!line || !out.includes('\n')) return;
      // `vivace worker <nodeId> listening on <url>`
      const [, , nodeId, , , url] = line.split(' ');
      resolveStart({ child, nodeId: nodeId!, url: url!, exited });
    });
    void exited.then((code) => reject(new Error(`worker exited with ${code} before its line: ${out} ${err}`)));
  });
}
