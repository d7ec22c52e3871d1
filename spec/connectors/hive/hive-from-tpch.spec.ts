// A lake table created from tpch on an engine whose tpch data is not generated yet: the CTAS waits for the
// generation as a query of tpch would (the hive connector plans its own writes, so the wait must come first).
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine } from '../../../lib/engine/duckdb-engine.js';
import type { Engine } from '../../../lib/engine/engine.types.js';
import { defaultHiveCatalog } from '../../../lib/connectors/hive/default-lake.js';
import { runSql, testSession } from '../../engine/engine-helpers.js';

describe('hive connector: a CTAS from tpch data not generated yet', function () {
  this.timeout(120_000);
  let directory: string;
  let engine: Engine;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'vivace-hive-tpch-'));
    mkdirSync(join(directory, 'lake'));
    engine = await createDuckDbEngine({
      tempDirectory: join(directory, 'spill'), threads: 2, maxConnections: 4,
      tpch: { directory: join(directory, 'tpch'), log: () => {} }, hive: [defaultHiveCatalog(join(directory, 'lake'))],
    });
  });
  after(async () => {
    await engine.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('generates tpch.tiny first, then writes its rows', async () => {
    const session = testSession({ catalog: 'lake', schema: 'default' });
    await runSql(engine, 'CREATE SCHEMA lake.s', session);
    const created = await runSql(engine, "CREATE TABLE lake.s.nation WITH (partitioned_by = ARRAY['regionkey']) AS SELECT nationkey, name, regionkey FROM tpch.tiny.nation", session);
    expect(created.updateCount).to.equal(25);
    const rows = await runSql(engine, 'SELECT regionkey, count(*) FROM lake.s.nation GROUP BY 1 ORDER BY 1', session);
    expect(rows.rows).to.deep.equal([[0, 5], [1, 5], [2, 5], [3, 5], [4, 5]]);
  });
});
