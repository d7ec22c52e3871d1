// A file the engine reads is read as it is now: DuckDB's external file cache (on by default) kept a file's
// blocks by path and modification time, so an exchange file of another query, or a lake file replaced in
// place, rewritten at the same path with the same size in the same instant was read stale.
import { expect } from 'chai';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDuckDbEngine, type DuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import { drainPlan, testSession } from './engine-helpers.js';

describe('duckdb engine: files are read fresh', () => {
  let directory: string;
  let engine: DuckDbEngine;
  before(async () => {
    directory = mkdtempSync(join(tmpdir(), 'vivace-fresh-'));
    engine = await createDuckDbEngine({ tempDirectory: directory, threads: 1 });
  });
  after(async () => {
    await engine.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('reads a Parquet file rewritten at the same path with the same size as its new self', async () => {
    const session = testSession({});
    const [x, y] = [join(directory, 'x.parquet'), join(directory, 'y.parquet')];
    await drainPlan(await engine.planOwnSql(`COPY (SELECT 1 AS vivace_r1_0, 2 AS vivace_r1_3) TO '${x}' (FORMAT parquet)`, session));
    await drainPlan(await engine.planOwnSql(`COPY (SELECT 1 AS vivace_r5_0, 2 AS vivace_r5_1) TO '${y}' (FORMAT parquet)`, session));
    expect(statSync(x).size).to.equal(statSync(y).size);
    const first = await engine.planOwnSql(`SELECT * FROM read_parquet(['${x}'])`, session);
    expect(first.columns.map((c) => c.name)).to.deep.equal(['vivace_r1_0', 'vivace_r1_3']);
    first.release();
    rmSync(x);
    writeFileSync(x, readFileSync(y));
    // Another text: the engine's plan cache keeps a prepared statement per text, bound to what it read then.
    const again = await engine.planOwnSql(`SELECT * FROM read_parquet(['${x}']) AS again`, session);
    expect(again.columns.map((c) => c.name)).to.deep.equal(['vivace_r5_0', 'vivace_r5_1']);
    expect((await drainPlan(again)).rows).to.deep.equal([[1, 2]]);
  });
});
