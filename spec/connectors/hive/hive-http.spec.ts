// The lake through a real HTTP server (every body validated against its schema): CREATE SCHEMA, CREATE
// TABLE, INSERT and SELECT as a Trino client sends them, the files read back with DuckDB.
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { createTestEngine } from '../../support/duckdb.js';
import { startTestServer, type TestServer } from '../../support/http.js';
import { PrestoSession } from '../../support/presto-session.js';
import { defaultLakeCatalog } from '../../../lib/connectors/hive/default-lake.js';

describe('the lake over HTTP', function () {
  this.timeout(60_000);
  let server: TestServer;
  let directory: string;
  let root: string;

  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'vivace-hive-http-'));
    mkdirSync(directory, { recursive: true });
    const lake = defaultLakeCatalog(directory);
    root = lake.root;
    server = await startTestServer({ engine: await createTestEngine(2, { tpch: false, hive: [lake] }) });
  });
  after(async () => {
    await server.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('creates a schema and a partitioned table, inserts and selects', async () => {
    const trino = new PrestoSession(server.url, { prefix: 'X-Trino-', catalog: 'lake', schema: 'web', timeZone: 'UTC' });
    await trino.ok('CREATE SCHEMA lake.web');
    await trino.ok("CREATE TABLE hits (url varchar, n bigint, day date) WITH (partitioned_by = ARRAY['day'])");
    const inserted = await trino.ok("INSERT INTO hits VALUES ('/a', 1, DATE '2026-11-27'), ('/b', 2, DATE '2026-11-28')");
    expect(inserted.final.updateType).to.equal('INSERT');
    expect(inserted.final.updateCount).to.equal(2);
    const out = await trino.ok('SELECT url, n, day FROM hits ORDER BY n');
    expect(JSON.parse(out.dataText)).to.deep.equal([['/a', 1, '2026-11-27'], ['/b', 2, '2026-11-28']]);
    expect(out.columns!.map((c) => c.type)).to.deep.equal(['varchar', 'bigint', 'date']);
    const refused = await trino.execute("CREATE TABLE lake.web.x (a integer) WITH (external_location = '/etc')");
    expect(refused.error).to.include({ errorName: 'INVALID_TABLE_PROPERTY', message: 'Location references data outside of the root: /etc' });
    const dir = join(root, 'web/hits/day=2026-11-28');
    const file = readdirSync(dir).find((e) => !e.startsWith('.'))!;
    const instance = await DuckDBInstance.create(':memory:');
    const reader = await instance.connect();
    expect((await reader.runAndReadAll(`SELECT url, n FROM read_parquet('${join(dir, file)}', hive_partitioning = false)`)).getRows()).to.deep.equal([['/b', 2n]]);
    reader.closeSync();
    instance.closeSync();
  });
});
