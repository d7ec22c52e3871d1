// Runs `vivace query ...` as a real child process (node + tsx on lib/cli/main.ts), as a user would.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import { makeCertificate, startAuthenticatedServer, type SecureServer, type TempDir } from '../security/auth-fixtures.js';

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

/**
 * A real server with HTTPS and PASSWORD,JWT authentication (alice, `alice-secret`; tokens from `token(user)`)
 * and its certificate as a CA file.
 */
export async function startPasswordServer(dir: TempDir): Promise<{ server: SecureServer; caFile: string; token(user: string): Promise<string> }> {
  const certificate = await makeCertificate();
  const caFile = dir.file('ca.pem', certificate.cert);
  const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const server = await startAuthenticatedServer(dir, certificate, signing.publicKey);
  const token = (user: string) => new SignJWT({ sub: user }).setProtectedHeader({ alg: 'ES256' }).setIssuedAt().setExpirationTime('5m').sign(signing.privateKey);
  return { server, caFile, token };
}
