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

  it('takes the catalog session property by SET SESSION and by the X-Trino-Session header, and the writer honours it', async () => {
    const trino = new PrestoSession(server.url, { prefix: 'X-Trino-', catalog: 'lake', schema: 'web', timeZone: 'UTC' });
    await trino.ok("CREATE TABLE lake.web.days (n bigint, day date) WITH (partitioned_by = ARRAY['day'])");
    await trino.ok("INSERT INTO lake.web.days VALUES (1, DATE '2026-01-01')");
    // SET SESSION answers Set-Session; the client sends it back as a header.
    const set = await trino.ok("SET SESSION lake.insert_existing_partitions_behavior = 'overwrite'");
    expect(set.final.updateType).to.equal('SET SESSION');
    expect(trino.properties.get('lake.insert_existing_partitions_behavior')).to.equal('OVERWRITE');
    await trino.ok("INSERT INTO lake.web.days VALUES (2, DATE '2026-01-01')");
    expect(JSON.parse((await trino.ok('SELECT n FROM lake.web.days')).dataText)).to.deep.equal([[2]]);
    const shown = JSON.parse((await trino.ok("SHOW SESSION LIKE 'lake.%'")).dataText) as string[][];
    expect(shown.map((r) => r.slice(0, 4))).to.deep.equal([['lake.insert_existing_partitions_behavior', 'OVERWRITE', 'APPEND', 'varchar']]);
    // ERROR by header alone.
    trino.properties.set('lake.insert_existing_partitions_behavior', 'ERROR');
    const refused = await trino.execute("INSERT INTO lake.web.days VALUES (3, DATE '2026-01-01')");
    expect(refused.error).to.include({ errorName: 'HIVE_PARTITION_READ_ONLY' });
    await trino.ok('RESET SESSION lake.insert_existing_partitions_behavior');
    expect(trino.properties.has('lake.insert_existing_partitions_behavior')).to.equal(false);
    // Trino's errors: SetSessionTask for statements, Session for headers.
    const errors: [string, string, string][] = [
      ["SET SESSION lake.nope = 'x'", 'INVALID_SESSION_PROPERTY', "Session property 'lake.nope' does not exist"],
      ["SET SESSION nocat.insert_existing_partitions_behavior = 'APPEND'", 'CATALOG_NOT_FOUND', "Catalog 'nocat' not found"],
      ["SET SESSION lake.insert_existing_partitions_behavior = 'SOMETIMES'", 'INVALID_SESSION_PROPERTY', ''],
      ["SET SESSION a.b.c = 'x'", 'INVALID_SESSION_PROPERTY', "Invalid session property 'a.b.c'"],
      ['RESET SESSION lake.nope', 'INVALID_SESSION_PROPERTY', "Session property 'lake.nope' does not exist"],
    ];
    for (const [sql, errorName, message] of errors) {
      const out = await trino.execute(sql);
      expect(out.error?.errorName, sql).to.equal(errorName);
      if (message !== '') expect(out.error?.message, sql).to.equal(message);
    }
    const headerErrors: [string, string, string][] = [
      ['nocat.x', 'NOT_FOUND', 'Session property catalog does not exist: nocat'],
      ['lake.nope', 'INVALID_SESSION_PROPERTY', 'Unknown session property lake.nope'],
    ];
    for (const [name, errorName, message] of headerErrors) {
      const client = new PrestoSession(server.url, { prefix: 'X-Trino-', catalog: 'lake', schema: 'web', timeZone: 'UTC' });
      client.properties.set(name, 'APPEND');
      const out = await client.execute('SELECT 1');
      expect(out.error, name).to.include({ errorName, message });
    }
    const bad = new PrestoSession(server.url, { prefix: 'X-Trino-', catalog: 'lake', schema: 'web', timeZone: 'UTC' });
    bad.properties.set('lake.insert_existing_partitions_behavior', 'SOMETIMES');
    expect((await bad.execute('SELECT 1')).error?.errorName).to.equal('INVALID_SESSION_PROPERTY');
  });
});
