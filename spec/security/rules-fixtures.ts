// Fixtures for the access-control specs: file-based access controls over rules written to real files, as
// an operator writes them, and a real server (engine and HTTP) that holds such rules against every statement.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CoordinatorConfig } from '../../lib/config.js';
import { SystemTablesBinding } from '../../lib/connectors/system/system-tables.js';
import { createAccessControl, type AccessControl } from '../../lib/security/access-control.js';
import { createTestEngine } from '../support/duckdb.js';
import { startTestServer, type TestServer } from '../support/http.js';

/** Rules files in one throw-away directory: `control(rules)` writes one and reads it as the server would. */
export class RulesFiles {
  readonly dir = mkdtempSync(join(tmpdir(), 'vivace-rules-'));
  private files = 0;

  control(rules: unknown): AccessControl {
    const path = join(this.dir, `rules-${this.files++}.json`);
    writeFileSync(path, JSON.stringify(rules));
    return createAccessControl({ securityConfigFile: path });
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export interface RulesServer {
  server: TestServer;
  access: AccessControl;
  stop(): Promise<void>;
}

/** A real server whose engine and routes hold `rules` (the engine on 4 connections, with the system catalog). */
export async function startRulesServer(rules: unknown, config: Partial<CoordinatorConfig> = {}): Promise<RulesServer> {
  const files = new RulesFiles();
  const access = files.control(rules);
  const system = new SystemTablesBinding();
  const engine = await createTestEngine(4, { system, access });
  const server = await startTestServer({ engine, system, accessControl: access, config });
  return {
    server,
    access,
    async stop() {
      await server.stop();
      files.close();
    },
  };
}
