// The schemas and tables sections of the rules file (lib/security/table-rules.ts) and the decisions the
// file-based access control takes from them: Trino's defaults (a missing section allows all, [] denies
// all, no match denies, the first match decides, information_schema exempt), the catalogs rule beneath
// every privilege, masks and filters of the deciding rule only, and what listings show.
import { expect } from 'chai';
import fc from 'fast-check';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { FileBasedAccessControl, type AccessControl } from '../../lib/security/access-control.js';
import { parseAccessRules } from '../../lib/security/access-rules.js';
import { AccessRulesFile } from '../../lib/security/access-rules-file.js';
import { isValid } from '../support/schema-validator.js';
import { RulesFiles } from './rules-fixtures.js';

const ALL = ['SELECT', 'INSERT', 'DELETE', 'UPDATE', 'OWNERSHIP', 'GRANT_SELECT'];
const people = { catalog: 'memory', schema: 'default', table: 'people' };

let files: RulesFiles;
const control = (rules: unknown): AccessControl => files.control(rules);
const privileges = (ac: AccessControl, user: string, table = people) => [...ac.tableGrant(user, table).privileges].sort();

function refusal(doc: unknown): string {
  try {
    parseAccessRules(JSON.stringify(doc), 'rules.json');
  } catch (err) {
    expect(err).to.be.instanceOf(VivaceError);
    expect((err as VivaceError).errorName).to.equal('CONFIGURATION_INVALID');
    return (err as VivaceError).message;
  }
  return expect.fail('expected CONFIGURATION_INVALID');
}

describe('security: schemas and tables rules', () => {
  before(() => {
    files = new RulesFiles();
  });
  after(() => files.close());

  describe('the file', () => {
    it('reads Trino\'s fields, privileges in any case, masks and filters as Trino expressions', () => {
      const doc = {
        schemas: [{ user: 'alice', catalog: 'memory', schema: 'a.*', owner: true }, { owner: false }],
        tables: [
          {
            user: 'alice', catalog: 'memory', schema: 'default', table: 'people', privileges: ['select', 'Grant_Select'],
            columns: [{ name: 'ssn', allow: false }, { name: 'salary', mask: 'salary / 1000', mask_environment: { user: 'admin' } }],
            filter: "region = 'eu'", filter_environment: { user: 'admin' },
          },
        ],
      };
      // The schema sees privileges upper-cased, as the reader hands them to it.
      expect(isValid('access-control-rules', { ...doc, tables: [{ ...doc.tables[0], privileges: ['SELECT', 'GRANT_SELECT'] }] })).to.equal(true);
      expect(isValid('access-control-rules', doc)).to.equal(false);
      const rules = parseAccessRules(JSON.stringify(doc), 'rules.json');
      expect(rules.schemas).to.have.length(2);
      const rule = rules.tables![0]!;
      expect([...rule.privileges]).to.deep.equal(['SELECT', 'GRANT_SELECT']);
      expect(rule.restrictedColumns).to.deep.equal(['ssn']);
      expect(rule.masks.get('salary')).to.deep.include({ text: 'salary / 1000', user: 'admin' });
      expect(rule.masks.get('salary')!.expression.type).to.equal('ArithmeticBinaryExpression');
      expect(rule.filter).to.deep.include({ text: "region = 'eu'", user: 'admin' });
    });

    it('refuses what Trino refuses, naming the place', () => {
      expect(refusal({ tables: [{ table: 't' }] })).to.match(/\/tables\/0: must have required property 'privileges'/);
      expect(refusal({ tables: [{ privileges: ['READ'] }] })).to.match(/\/tables\/0\/privileges\/0: must be one of SELECT/);
      expect(refusal({ schemas: [{ schema: 's' }] })).to.match(/\/schemas\/0: must have required property 'owner'/);
      expect(refusal({ tables: [{ privileges: [], columns: [{ name: 'a', hide: true }] }] })).to.include('unknown property "hide"');
      expect(refusal({ tables: [{ privileges: [], columns: [{ name: 'a' }, { name: 'a', allow: false }] }] })).to.include('tables[0].columns[1]: column "a" is listed twice');
      expect(refusal({ tables: [{ privileges: ['SELECT'], columns: [{ name: 'a', mask: 'a +' }] }] })).to.match(/tables\[0\]\.columns\[0\]\.mask: invalid expression "a \+": line 1:4/);
      expect(refusal({ tables: [{ privileges: ['SELECT'], filter: 'SELECT 1' }] })).to.match(/tables\[0\]\.filter: invalid expression/);
      expect(refusal({ tables: [{ table: '(a)\\1', privileges: [] }] })).to.include('tables[0].table: invalid pattern');
    });

    it('never crashes on arbitrary masks and filters: a Trino expression or CONFIGURATION_INVALID', () => {
      fc.assert(
        fc.property(fc.string({ maxLength: 40 }), (text) => {
          const doc = { tables: [{ privileges: ['SELECT'], columns: [{ name: 'c', mask: text || 'x' }], filter: text || 'x' }] };
          try {
            parseAccessRules(JSON.stringify(doc), 'rules.json');
          } catch (err) {
            expect((err as VivaceError).errorName).to.equal('CONFIGURATION_INVALID');
          }
        }),
        { numRuns: 300 },
      );
    });
  });

  describe('decisions', () => {
    it('a missing tables section allows all, [] denies all, no match denies, the first match decides', () => {
      expect(privileges(control({}), 'alice')).to.deep.equal([...ALL].sort());
      expect(privileges(control({ tables: [] }), 'alice')).to.deep.equal([]);
      const ac = control({ tables: [{ user: 'alice', table: 'people', privileges: ['SELECT'] }, { user: 'alice', privileges: ALL }, { table: 'other', privileges: ['INSERT'] }] });
      expect(privileges(ac, 'alice')).to.deep.equal(['SELECT']);
      expect(privileges(ac, 'alice', { ...people, table: 'people2' }), 'patterns match the whole name').to.deep.equal([...ALL].sort());
      expect(privileges(ac, 'bob')).to.deep.equal([]);
      expect(privileges(ac, 'bob', { ...people, table: 'other' })).to.deep.equal(['INSERT']);
    });

    it('exempts information_schema, matches nobody by role or group, and lets the catalogs rule bound every privilege', () => {
      const ac = control({
        catalogs: [{ catalog: 'tpch', allow: 'read-only' }, { catalog: 'memory', allow: 'all' }],
        tables: [{ group: 'staff', privileges: ALL }, { role: 'admin', privileges: ALL }, { user: 'alice', privileges: ALL }],
      });
      expect(privileges(ac, 'bob', { catalog: 'memory', schema: 'information_schema', table: 'tables' })).to.deep.equal([...ALL].sort());
      expect(privileges(ac, 'bob'), 'no role, no group: those rules match nobody').to.deep.equal([]);
      expect(privileges(ac, 'alice', { catalog: 'tpch', schema: 'tiny', table: 'nation' }), 'read-only catalog: reads only').to.deep.equal(['GRANT_SELECT', 'SELECT']);
      expect(privileges(ac, 'alice', { catalog: 'secret', schema: 's', table: 't' }), 'closed catalog: nothing').to.deep.equal([]);
    });

    it('owns schemas per the schemas rules, with the catalog open to all', () => {
      expect(control({}).isSchemaOwner('alice', 'memory', 'x')).to.equal(true);
      expect(control({ schemas: [] }).isSchemaOwner('alice', 'memory', 'x')).to.equal(false);
      const ac = control({ catalogs: [{ catalog: 'tpch', allow: 'read-only' }, { allow: 'all' }], schemas: [{ user: 'alice', schema: 'a_.*', owner: true }, { user: 'alice', owner: false }, { owner: true }] });
      expect(ac.isSchemaOwner('alice', 'memory', 'a_1')).to.equal(true);
      expect(ac.isSchemaOwner('alice', 'memory', 'b')).to.equal(false);
      expect(ac.isSchemaOwner('bob', 'memory', 'b')).to.equal(true);
      expect(ac.isSchemaOwner('bob', 'tpch', 'tiny'), 'a read-only catalog has no owners').to.equal(false);
    });

    it('shows a schema where a schemas rule owns or a tables rule grants something (checkAnySchemaAccess)', () => {
      expect(control({ tables: [] }).schemaVisible('alice', 'memory', 'x'), 'no schemas section: Trino\'s allow-all owner rule').to.equal(true);
      const ac = control({
        catalogs: [{ catalog: 'secret', allow: 'none' }, { allow: 'all' }],
        schemas: [{ user: 'alice', schema: 'own', owner: true }, { owner: false }],
        tables: [{ user: 'alice', schema: 'shared', table: 't', privileges: ['SELECT'] }, { user: 'alice', schema: 'empty', privileges: [] }],
      });
      expect(ac.schemaVisible('alice', 'memory', 'own')).to.equal(true);
      expect(ac.schemaVisible('alice', 'memory', 'shared'), 'a table rule names the schema (whatever its table)').to.equal(true);
      expect(ac.schemaVisible('alice', 'memory', 'empty'), 'a rule without privileges gives nothing').to.equal(false);
      expect(ac.schemaVisible('bob', 'memory', 'own')).to.equal(false);
      expect(ac.schemaVisible('bob', 'memory', 'information_schema')).to.equal(true);
      expect(ac.schemaVisible('alice', 'secret', 'own'), 'a closed catalog shows nothing').to.equal(false);
    });

    it('takes masks and the filter from the deciding rule only', () => {
      const ac = control({
        tables: [
          { user: 'alice', table: 'people', privileges: ['SELECT'], columns: [{ name: 'ssn', mask: "'x'" }], filter: 'id > 0' },
          { user: 'alice', privileges: ['SELECT'], columns: [{ name: 'name', mask: "'y'" }] },
          { privileges: ['SELECT'] },
        ],
      });
      const guard = ac.tableGuard('alice', people)!;
      expect([...guard.masks.keys()]).to.deep.equal(['ssn']);
      expect(guard.filter?.text).to.equal('id > 0');
      expect([...ac.tableGuard('alice', { ...people, table: 'other' })!.masks.keys()]).to.deep.equal(['name']);
      expect(ac.tableGuard('bob', people)).to.equal(undefined);
      expect(ac.tableGuard('alice', { ...people, schema: 'information_schema' })).to.equal(undefined);
    });

    it('lists tables with any privilege or in an owned schema, and hides denied columns from readers only', () => {
      const ac = control({
        schemas: [{ user: 'owner', owner: true }, { owner: false }],
        tables: [
          { user: 'reader', privileges: ['SELECT'], columns: [{ name: 'ssn', allow: false }] },
          { user: 'writer', privileges: ['SELECT', 'INSERT'], columns: [{ name: 'ssn', allow: false }] },
          { user: 'owner', privileges: [] },
        ],
      });
      expect(ac.tableVisible('reader', people)).to.equal(true);
      expect(ac.tableVisible('owner', people), 'the schema\'s owner').to.equal(true);
      expect(ac.tableVisible('nobody', people)).to.equal(false);
      expect(ac.columnVisible('reader', people, 'ssn')).to.equal(false);
      expect(ac.columnVisible('reader', people, 'id')).to.equal(true);
      expect(ac.columnVisible('writer', people, 'ssn')).to.equal(true);
      expect(ac.columnVisible('nobody', people, 'id')).to.equal(false);
    });

    it('counts a new generation of rules when the file is read again', () => {
      const path = join(files.dir, 'refreshed.json');
      writeFileSync(path, JSON.stringify({ tables: [] }));
      let now = 0;
      const file = new AccessRulesFile(path, { refreshPeriodMs: 1000, clock: { now: () => now } });
      const refreshing = new FileBasedAccessControl(file);
      expect(refreshing.rulesGeneration()).to.equal(refreshing.rulesGeneration());
      const first = refreshing.rulesGeneration();
      now = 2000;
      expect(refreshing.rulesGeneration()).to.equal(first + 1);
      expect(refreshing.rulesGeneration()).to.equal(first + 1);
    });
  });
});
