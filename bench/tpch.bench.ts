// Figure e: wall time of bench/tpch-generate.ts (all eight tables, 2 worker processes) at a scale factor.
import { spawn } from 'node:child_process';
import { loaderArgs, siblingScript } from './sibling-script.js';

export interface TpchFigures {
  scaleFactor: number;
  seconds: number;
  megabytes: number;
  output: string;
}

export function generateTpch(scaleFactor: number, workers: number, timeoutSeconds: number): Promise<TpchFigures> {
  const script = siblingScript('tpch-generate.ts');
  return new Promise<TpchFigures>((resolve, reject) => {
    const child = spawn(process.execPath, [...loaderArgs, script, String(scaleFactor), '--workers', String(workers)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      // Only this child (its workers die with their IPC channel).
      child.kill('SIGKILL');
    }, timeoutSeconds * 1000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const match = /tpch sf[\d.]+: \d+ workers, (\d+) MB, ([\d.]+) s/.exec(output);
      if (code !== 0 || !match) {
        reject(new Error(`tpch-generate exited with ${code}: ${output.slice(-500)}`));
        return;
      }
      resolve({ scaleFactor, megabytes: Number(match[1]), seconds: Number(match[2]), output: output.trim() });
    });
  });
}

/** Runs another bench script (e.g. engine-render.bench.ts) in a child (same build as this one); resolves with its stdout. */
export function runBenchScript(name: string, args: string[], timeoutSeconds: number): Promise<string> {
  const script = siblingScript(name);
  return new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [...loaderArgs, script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutSeconds * 1000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output.trim());
      else reject(new Error(`${name} exited with ${code}: ${output.slice(-500)}`));
    });
  });
}
