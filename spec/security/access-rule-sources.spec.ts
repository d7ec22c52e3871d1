// One source per rule: the catalogs rule and its denial are decided in lib/sql/catalog-access.ts, and the
// access control, the statement check and SHOW CATALOGS's filter all answer from it; which queries a user
// sees is AccessControl.canSeeQueryOwnedBy, and its list form and query-visibility agree with it.
import { expect } from 'chai';
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { createAccessControl, type AccessControl } from '../../lib/security/access-control.js';
import { canSeeQuery } from '../../lib/security/query-visibility.js';
import { catalogOpen, checkCatalogAccess } from '../../lib/sql/catalog-access.js';
import { parseStatement } from '../../lib/sql/parser.js';

const USERS = ['alice', 'bob', 'carol', 'admin'];
const CATALOGS = ['tpch', 'memory', 'system', 'secret'];
const ACCESS = ['all', 'read-only', 'none'] as const;

/** The message of the PERMISSION_DENIED `fn` throws (anything else thrown fails the spec), or undefined. */
function denial(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof VivaceError && err.errorName === 'PERMISSION_DENIED') return err.message;
    throw err;
  }
  return undefined;
}

describe('security: one source per access rule', () => {
  let dir: string;
  let files = 0;
  const control = (rules: unknown): AccessControl => {
    const path = join(dir, `rules-${files++}.json`);
    writeFileSync(path, JSON.stringify(rules));
    return createAccessControl({ securityConfigFile: path });
  };
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-rule-sources-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the catalogs rule: checkCanAccessCatalog, filterCatalogs and a statement reading the catalog decide alike, with one message (fast-check)', () => {
    const rule = fc.record({ user: fc.constantFrom(...USERS, '.*'), catalog: fc.constantFrom(...CATALOGS, '.*'), allow: fc.constantFrom(...ACCESS) });
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 5 }), fc.constantFrom(...USERS), (rules, user) => {
        const ac = control({ catalogs: rules });
        const open = ac.filterCatalogs(user, CATALOGS);
        for (const catalog of CATALOGS) {
          const access = ac.catalogAccess(user, catalog);
          const byControl = denial(() => ac.checkCanAccessCatalog(user, catalog));
          const byStatement = denial(() => checkCatalogAccess(parseStatement(`SELECT * FROM ${catalog}.s.t`), { accessOf: (c) => ac.catalogAccess(user, c) }));
          expect(byStatement, catalog).to.equal(byControl);
          expect(byControl === undefined, catalog).to.equal(catalogOpen(access));
          expect(open.includes(catalog), catalog).to.equal(catalogOpen(access));
          if (byControl !== undefined) expect(byControl).to.equal(`Access Denied: Cannot access catalog ${catalog}`);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('which queries a user sees: own, opened by a view rule, or all for a reader of system information; filterQueriesOwnedBy and canSeeQuery agree', () => {
    const ac = control({
      queries: [{ user: 'dave', queryOwner: 'alice', allow: ['view'] }, { allow: ['execute'] }],
      system_information: [{ user: 'admin', allow: ['read'] }],
    });
    const queries = [{ id: 1, user: 'bob' }, { id: 2, user: 'alice' }, { id: 3, user: 'dave' }, { id: 4, user: 'admin' }];
    const seen = (user: string) => ac.filterQueriesOwnedBy(user, queries, (q) => q.user).map((q) => q.id);
    expect(seen('dave')).to.deep.equal([2, 3]);
    expect(seen('admin'), 'system information read sees every query').to.deep.equal([1, 2, 3, 4]);
    expect(seen('bob')).to.deep.equal([1]);
    for (const user of ['dave', 'admin', 'bob', 'eve']) {
      for (const q of queries) expect(canSeeQuery(ac, user, q.user), `${user} / ${q.user}`).to.equal(seen(user).includes(q.id));
    }
    expect(ac.canViewQueryOwnedBy('admin', 'bob'), "the view rule itself stays Trino's").to.equal(false);
  });
});
