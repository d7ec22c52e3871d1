// A CREATE TABLE or CTAS that fails leaves no directory behind (managed, external, under a schema location),
// while a directory that held something before stays as it was. Real directories, checked after each failure.
import { expect } from 'chai';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { useHiveFixture, type HiveFixture } from './hive-helpers.js';

describe('hive failed creates', function () {
  this.timeout(120_000);
  const fixture = useHiveFixture();
  let f: HiveFixture;
  beforeEach(() => {
    f = fixture();
  });
  const failing = "SELECT CAST(v AS integer) AS x FROM (VALUES '1', 'x') AS t(v)";

  it('a CTAS whose query fails leaves no table directory', async () => {
    const failure = await f.failure(`CREATE TABLE lake.s.bad AS ${failing}`);
    expect(failure.errorName).to.equal('INVALID_CAST_ARGUMENT');
    expect(existsSync(join(f.root, 's/bad'))).to.equal(false);
    expect(readdirSync(join(f.root, 's'))).to.deep.equal([]);
    // The name is free: the same CTAS with a good query works.
    await f.run("CREATE TABLE lake.s.bad AS SELECT 1 AS x");
    expect((await f.run('SELECT x FROM lake.s.bad')).rows).to.deep.equal([[1]]);
  });

  it('nor a partitioned one, nor one at a new external location or under a schema location', async () => {
    await f.failure(`CREATE TABLE lake.s.badp WITH (partitioned_by = ARRAY['k']) AS SELECT x, 'a' AS k FROM (${failing})`);
    expect(existsSync(join(f.root, 's/badp'))).to.equal(false);
    await f.failure(`CREATE TABLE lake.s.bade WITH (external_location = 'local:///new/ext') AS ${failing}`);
    expect(existsSync(join(f.root, 'new'))).to.equal(false);
    await f.run("CREATE SCHEMA lake.placed WITH (location = 'local:///elsewhere/placed')");
    await f.failure(`CREATE TABLE lake.placed.t AS ${failing}`);
    expect(readdirSync(join(f.root, 'elsewhere/placed'))).to.deep.equal([]);
  });

  it('keeps a directory that existed before, and what it holds', async () => {
    mkdirSync(join(f.root, 'kept'), { recursive: true });
    writeFileSync(join(f.root, 'kept/_note'), 'mine');
    await f.failure(`CREATE TABLE lake.s.badk WITH (external_location = 'local:///kept') AS ${failing}`);
    expect(readdirSync(join(f.root, 'kept'))).to.deep.equal(['_note']);
  });

  it('a CREATE TABLE that loses a race for its name removes nothing of the winner', async () => {
    await f.run('CREATE TABLE lake.s.raced (x bigint)');
    expect((await f.failure('CREATE TABLE lake.s.raced (x bigint)')).errorName).to.equal('TABLE_ALREADY_EXISTS');
    expect(existsSync(join(f.root, 's/raced/.trinoSchema'))).to.equal(true);
  });
});
