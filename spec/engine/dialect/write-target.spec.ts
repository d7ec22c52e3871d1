import { expect } from 'chai';
import { writeTargetCatalog } from '../../../lib/engine/dialect/write-target.js';

describe('dialect: write targets', () => {
  const memory = { catalog: undefined };
  const cases: [string, { catalog?: string }, string | undefined][] = [
    ['INSERT INTO tpch.tiny.region VALUES (1)', memory, 'tpch'],
    ['insert into "tpch"."tiny"."region" select * from memory.default.t', memory, 'tpch'],
    ['INSERT INTO t SELECT * FROM tpch.tiny.nation', memory, 'memory'],
    ['INSERT INTO t VALUES (1)', { catalog: 'tpch' }, 'tpch'],
    ['CREATE TABLE tpch.tiny.t AS SELECT 1', memory, 'tpch'],
    ['CREATE OR REPLACE VIEW system.runtime.v AS SELECT 1', memory, 'system'],
    ['CREATE TABLE IF NOT EXISTS memory.default.t (a int)', memory, 'memory'],
    ['CREATE SCHEMA tpch.extra', memory, 'tpch'],
    ['CREATE SCHEMA extra', { catalog: 'tpch' }, 'tpch'],
    ['DROP VIEW IF EXISTS tpch.tiny.nation', memory, 'tpch'],
    ['DROP SCHEMA memory.s', memory, 'memory'],
    ['DELETE FROM tpch.tiny.region WHERE true', memory, 'tpch'],
    ['UPDATE tpch.tiny.region SET name = 1', memory, 'tpch'],
    ['ALTER TABLE tpch.tiny.region ADD COLUMN x int', memory, 'tpch'],
    ['CREATE INDEX i ON tpch.tiny.region (name)', memory, 'tpch'],
    ['COMMENT ON TABLE tpch.tiny.region IS \'x\'', memory, 'tpch'],
    ['SELECT * FROM tpch.tiny.region', memory, undefined],
  ];
  for (const [sql, session, expected] of cases) {
    it(`${sql} writes to ${expected ?? 'nothing'}`, () => {
      expect(writeTargetCatalog(sql, session)).to.equal(expected);
    });
  }
});
