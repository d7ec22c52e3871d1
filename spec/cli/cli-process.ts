// Runs `vivace query ...` as a real child process (node + tsx on lib/cli/main.ts), as a user would.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bcryptLine, makeCertificate, startSecureServer, type SecureServer, type TempDir } from '../security/auth-fixtures.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MAIN = fileURLToPath(new URL('../../lib/cli/main.ts', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], init: { env?: Record<string, string>; input?: string } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'query', ...args], {
      cwd: ROOT,
      env: { ...process.env, VIVACE_HISTORY_FILE: '/dev/null', ...init.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(init.input ?? '');
  });
}

/** A real server with HTTPS and PASSWORD authentication (alice, `alice-secret`) and its certificate as a CA file. */
export async function startPasswordServer(dir: TempDir): Promise<{ server: SecureServer; caFile: string }> {
  const certificate = await makeCertificate();
  const caFile = dir.file('ca.pem', certificate.cert);
  const server = await startSecureServer({
    authenticationTypes: ['PASSWORD'],
    passwordFile: dir.file('password.db', `${bcryptLine('alice', 'alice-secret')}\n`),
    httpsEnabled: true,
    httpsKeystorePath: dir.file('keystore.pem', `${certificate.key}${certificate.cert}`),
  });
  return { server, caFile };
}
