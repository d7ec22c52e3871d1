// The DuckDB sandbox on its own, past any SQL gate: a raw connection of an instance set up as the engine
// sets up its own tries to read and write host files and to change the engine.
import { expect } from 'chai';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { lockDownEngine, sandboxDirectory, SANDBOX_INSTANCE_CONFIG } from '../../lib/engine/engine-sandbox.js';

describe('engine sandbox', () => {
  let root: string;
  let allowed: string;
  let secret: string;
  let canary: string;
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;

  const fails = async (sql: string): Promise<string> => {
    try {
      const reader = await connection.runAndReadAll(sql);
      return `succeeded: ${JSON.stringify(reader.getRows(), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`;
    } catch (err) {
      return (err as Error).message;
    }
  };

  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'vivace-sandbox-'));
    allowed = join(root, 'data');
    mkdirSync(allowed);
    mkdirSync(join(root, 'data-evil'));
    secret = randomBytes(16).toString('hex');
    canary = join(root, 'canary.csv');
    writeFileSync(canary, `secret\n${secret}\n`);
    writeFileSync(join(root, 'data-evil', 'canary.csv'), `secret\n${secret}\n`);
    writeFileSync(join(allowed, 'ok.csv'), 'x\n42\n');
    instance = await DuckDBInstance.create(':memory:', { ...SANDBOX_INSTANCE_CONFIG });
    connection = await instance.connect();
    await lockDownEngine(connection, [allowed]);
  });

  after(() => {
    connection.closeSync();
    instance.closeSync();
    rmSync(root, { recursive: true, force: true });
  });

  it('still reads inside the allowed directory (the tpch Parquet files live there)', async () => {
    const reader = await connection.runAndReadAll(`SELECT x FROM read_csv('${join(allowed, 'ok.csv')}')`);
    expect(String(reader.getRows()[0]![0])).to.equal('42');
  });

  const readAttempts = (c: string, r: string) => [
    `SELECT * FROM read_csv('${c}')`,
    `SELECT * FROM read_csv_auto('${c}')`,
    `SELECT * FROM '${c}'`,
    `SELECT content FROM read_text('${c}')`,
    `SELECT content FROM read_blob('${c}')`,
    `SELECT * FROM glob('${r}/*')`,
    `SELECT * FROM read_csv('${allowed}/../canary.csv')`,
    `SELECT * FROM read_csv('${allowed}/./../../${c}')`,
    // A sibling whose name starts with the allowed one's.
    `SELECT * FROM read_csv('${root}/data-evil/canary.csv')`,
    `SELECT * FROM read_csv('file://${c}')`,
    `SELECT * FROM read_json('${c}')`,
    `SELECT * FROM read_parquet('${c}')`,
    `SELECT * FROM sniff_csv('${c}')`,
  ];

  it('reads no file outside the allowed directories, however the path is spelled', async () => {
    for (const sql of readAttempts(canary, root)) {
      const message = await fails(sql);
      expect(message, sql).not.to.contain(secret);
      expect(message, sql).not.to.match(/^succeeded/);
    }
  });

  it('writes no file outside the allowed directories', async () => {
    const targets = [join(root, 'out.csv'), join(root, 'export'), join(root, 'attached.db'), join(root, 'data-evil', 'x.csv')];
    for (const sql of [
      `COPY (SELECT 1) TO '${targets[0]}'`,
      `EXPORT DATABASE '${targets[1]}'`,
      `ATTACH '${targets[2]}' AS attached`,
      `COPY (SELECT 1) TO '${targets[3]}'`,
    ]) {
      expect(await fails(sql), sql).not.to.match(/^succeeded/);
    }
    for (const target of targets) expect(existsSync(target), target).to.equal(false);
  });

  it('locks every setting, the sandbox\'s own included', async () => {
    for (const sql of [
      "SET memory_limit = '100GB'",
      'SET threads = 64',
      "SET default_order = 'DESC'",
      'SET enable_external_access = true',
      'SET lock_configuration = false',
      'RESET lock_configuration',
      `SET allowed_directories = ['/']`,
      "SET GLOBAL TimeZone = 'UTC'",
      'PRAGMA threads = 1',
      "PRAGMA memory_limit = '1GB'",
    ]) {
      expect(await fails(sql), sql).to.contain('locked');
    }
    expect(String((await connection.runAndReadAll("SELECT current_setting('enable_external_access')")).getRows()[0]![0])).to.equal('false');
  });

  it('installs and loads no extension', async () => {
    for (const sql of ['INSTALL httpfs', 'LOAD httpfs', `LOAD '${canary}'`, 'FORCE INSTALL httpfs', 'INSTALL httpfs FROM community', "INSTALL httpfs FROM 'http://127.0.0.1:9/'"]) {
      const message = await fails(sql);
      expect(message, sql).not.to.match(/^succeeded/);
      // Refused before any download is tried (the spec machine has no network to tell the difference).
      expect(message, sql).not.to.match(/download|connection|HTTP/i);
    }
  });

  it('compares directories by whole path segments', () => {
    expect(sandboxDirectory('/a/b')).to.equal('/a/b/');
    expect(sandboxDirectory('/a/b/')).to.equal('/a/b/');
    expect(sandboxDirectory('/a/b/../c')).to.equal('/a/c/');
  });
});
