// A real DuckDB engine in a throw-away temp directory, for specs that run real SQL.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngineOptions } from '../../lib/engine/duckdb-engine.js';
import type { Engine } from '../../lib/engine/engine.types.js';

export async function createTestEngine(maxConnections = 8, options: Partial<DuckDbEngineOptions> = {}): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), 'vivace-spec-'));
  const engine = await createDuckDbEngine({ tempDirectory: dir, memoryLimit: '2GB', threads: 2, maxConnections, ...options });
  return {
    plan: (sql, session) => engine.plan(sql, session),
    async close() {
      await engine.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
