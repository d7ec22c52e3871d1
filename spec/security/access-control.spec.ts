// Decisions of the access control, section by section, against Trino's file-based system access control:
// first matching rule wins, whole-name and case-sensitive patterns, defaults of missing sections, one's own
// queries, impersonation with $1, Trino's exact messages (403 over HTTP), hostile names and patterns.
import { expect } from 'chai';
import fc from 'fast-check';
import Koa from 'koa';
import type { AddressInfo } from 'node:net';
import { errorMiddleware } from '../../lib/http/error-middleware.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { createAccessControl, type AccessControl } from '../../lib/security/access-control.js';
import { expectLinear } from '../support/linear-time.js';
import { request } from '../support/http.js';
import { expectValid } from '../support/schema-validator.js';
import { RulesFiles } from './rules-fixtures.js';

let files: RulesFiles;

/** A file-based access control over `rules`, written to a real file as an operator would. */
const control = (rules: unknown): AccessControl => files.control(rules);

/** The message of the PERMISSION_DENIED `fn` throws, or undefined when it is allowed. */
function denial(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    expect(err).to.be.instanceOf(VivaceError);
    expect((err as VivaceError).errorName).to.equal('PERMISSION_DENIED');
    return (err as VivaceError).message;
  }
}

const VIEW = 'Access Denied: Cannot view query';

describe('security: access control decisions', () => {
  before(() => {
    files = new RulesFiles();
  });
  after(() => files.close());

  describe('without a rules file (Trino\'s default)', () => {
    const ac = createAccessControl({});

    it('allows everything but impersonating another user', () => {
      expect(ac.kind).to.equal('default');
      expect(denial(() => ac.checkCanExecuteQuery('alice'))).to.equal(undefined);
      expect(ac.canViewQueryOwnedBy('alice', 'bob')).to.equal(true);
      expect(ac.canKillQueryOwnedBy('alice', 'bob')).to.equal(true);
      expect(denial(() => ac.checkCanReadSystemInformation('alice'))).to.equal(undefined);
      expect(denial(() => ac.checkCanWriteSystemInformation('alice'))).to.equal(undefined);
      expect(ac.catalogAccess('alice', 'tpch')).to.equal('all');
      expect(ac.filterCatalogs('alice', ['tpch', 'memory', 'system'])).to.deep.equal(['tpch', 'memory', 'system']);
      expect(denial(() => ac.checkCanImpersonateUser('alice', 'bob'))).to.equal('Access Denied: User alice cannot impersonate user bob');
      expect(denial(() => ac.checkCanImpersonateUser('alice', 'alice')), 'being oneself is no impersonation').to.equal(undefined);
    });
  });

  describe('queries', () => {
    it('a missing section allows all users to execute, view and kill any query', () => {
      const ac = control({ system_information: [] });
      expect(ac.kind).to.equal('file');
      expect(denial(() => ac.checkCanExecuteQuery('alice'))).to.equal(undefined);
      expect(ac.canViewQueryOwnedBy('alice', 'bob')).to.equal(true);
      expect(ac.canKillQueryOwnedBy('alice', 'bob')).to.equal(true);
    });

    it('an empty section denies all, with Trino\'s message for execute, view and kill alike; own queries stay visible and killable', () => {
      const ac = control({ queries: [] });
      expect(denial(() => ac.checkCanExecuteQuery('alice'))).to.equal(VIEW);
      expect(denial(() => ac.checkCanViewQueryOwnedBy('alice', 'bob'))).to.equal(VIEW);
      expect(denial(() => ac.checkCanKillQueryOwnedBy('alice', 'bob'))).to.equal(VIEW);
      expect(denial(() => ac.checkCanViewQueryOwnedBy('alice', 'alice'))).to.equal(undefined);
      expect(denial(() => ac.checkCanKillQueryOwnedBy('alice', 'alice'))).to.equal(undefined);
    });

    it('the first matching rule decides, even when a later one would allow more', () => {
      const ac = control({ queries: [{ user: 'alice', allow: ['execute'] }, { allow: ['execute', 'view', 'kill'] }] });
      expect(ac.canViewQueryOwnedBy('alice', 'bob')).to.equal(false);
      expect(ac.canViewQueryOwnedBy('carol', 'bob')).to.equal(true);
      expect(ac.canKillQueryOwnedBy('carol', 'alice')).to.equal(true);
    });

    it('queryOwner: Trino\'s example (admin all, alice execute and kill, dave views alice\'s and bob\'s, anyone executes)', () => {
      const ac = control({
        queries: [
          { user: 'admin', allow: ['execute', 'kill', 'view'] },
          { user: 'alice', allow: ['execute', 'kill'] },
          { user: 'dave', queryOwner: 'alice|bob', allow: ['view'] },
          { allow: ['execute'] },
        ],
      });
      expect(ac.canViewQueryOwnedBy('admin', 'x') && ac.canKillQueryOwnedBy('admin', 'x')).to.equal(true);
      expect([ac.canViewQueryOwnedBy('alice', 'bob'), ac.canKillQueryOwnedBy('alice', 'bob')]).to.deep.equal([false, true]);
      expect([ac.canViewQueryOwnedBy('dave', 'alice'), ac.canViewQueryOwnedBy('dave', 'bob'), ac.canKillQueryOwnedBy('dave', 'bob')]).to.deep.equal([true, true, false]);
      expect(ac.canViewQueryOwnedBy('dave', 'carol'), 'the owner rule does not match, nor does the execute-only rule grant view').to.equal(false);
      expect(denial(() => ac.checkCanExecuteQuery('dave')), 'executing skips owner rules and reaches the last one').to.equal(undefined);
      expect(ac.canViewQueryOwnedBy('dave', 'alice2'), 'queryOwner matches the whole name').to.equal(false);
    });

    it('patterns match whole names, case-sensitively: a rule for alice is not one for alice2, malice or Alice', () => {
      const ac = control({ queries: [{ user: 'alice', allow: ['execute', 'view'] }] });
      expect(ac.canViewQueryOwnedBy('alice', 'bob')).to.equal(true);
      for (const user of ['alice2', 'malice', 'Alice', 'alice\n', ' alice']) expect(ac.canViewQueryOwnedBy(user, 'bob'), JSON.stringify(user)).to.equal(false);
    });

    it('a rule naming a role or a group matches nobody (Vivace has neither), even with .*', () => {
      const ac = control({ queries: [{ role: '.*', allow: ['execute', 'view'] }, { group: '.*', allow: ['execute', 'view'] }, { allow: [] }] });
      expect(denial(() => ac.checkCanExecuteQuery('alice'))).to.equal(VIEW);
      expect(ac.canViewQueryOwnedBy('alice', 'bob')).to.equal(false);
    });

    it('filterQueriesOwnedBy keeps the order, one\'s own queries and those a rule lets one view', () => {
      const ac = control({ queries: [{ user: 'dave', queryOwner: 'alice', allow: ['view'] }] });
      const queries = [{ id: 1, user: 'bob' }, { id: 2, user: 'alice' }, { id: 3, user: 'dave' }, { id: 4, user: 'alice' }, { id: 5, user: 'eve' }];
      expect(ac.filterQueriesOwnedBy('dave', queries, (q) => q.user).map((q) => q.id)).to.deep.equal([2, 3, 4]);
      expect(ac.filterQueriesOwnedBy('bob', queries, (q) => q.user).map((q) => q.id)).to.deep.equal([1]);
    });
  });

  describe('impersonation', () => {
    const teams = {
      impersonation: [
        { original_user: 'admin', new_user: 'bob', allow: false },
        { original_user: 'admin', new_user: '.*' },
        { original_user: '.*', new_user: 'test' },
        { original_user: 'team_(.*)', new_user: 'team_$1_sandbox', allow: true },
        { original_role: 'admin', new_user: '.*' },
      ],
    };

    it('a missing or empty section denies it (unlike queries), with Trino\'s message', () => {
      for (const rules of [{ queries: [] }, { impersonation: [] }]) {
        expect(denial(() => control(rules).checkCanImpersonateUser('alice', 'bob'))).to.equal('Access Denied: User alice cannot impersonate user bob');
      }
    });

    it('first match: admin may become anyone but bob; anyone may become test', () => {
      const ac = control(teams);
      expect(denial(() => ac.checkCanImpersonateUser('admin', 'carol'))).to.equal(undefined);
      expect(denial(() => ac.checkCanImpersonateUser('admin', 'bob'))).to.equal('Access Denied: User admin cannot impersonate user bob');
      expect(denial(() => ac.checkCanImpersonateUser('carol', 'test'))).to.equal(undefined);
      expect(denial(() => ac.checkCanImpersonateUser('carol', 'dave'))).to.equal('Access Denied: User carol cannot impersonate user dave');
    });

    it('$1 in new_user is what original_user captured: team_backend may become team_backend_sandbox only', () => {
      const ac = control(teams);
      expect(denial(() => ac.checkCanImpersonateUser('team_backend', 'team_backend_sandbox'))).to.equal(undefined);
      expect(denial(() => ac.checkCanImpersonateUser('team_backend', 'team_frontend_sandbox'))).to.not.equal(undefined);
      expect(denial(() => ac.checkCanImpersonateUser('team_backend', 'team_backend_sandbox2'))).to.not.equal(undefined);
    });

    it('a captured piece is taken literally: a user named team_.* cannot become every team\'s sandbox', () => {
      const ac = control(teams);
      expect(denial(() => ac.checkCanImpersonateUser('team_.*', 'team_backend_sandbox'))).to.equal('Access Denied: User team_.* cannot impersonate user team_backend_sandbox');
      expect(denial(() => ac.checkCanImpersonateUser('team_.*', 'team_.*_sandbox'))).to.equal(undefined);
      expect(denial(() => ac.checkCanImpersonateUser('team_(', 'team_(_sandbox'))).to.equal(undefined);
    });

    it('original_role matches nobody; a rule without original_user applies to every user; newUser/originalUser aliases', () => {
      const ac = control({ impersonation: [{ original_role: 'admin', new_user: '.*' }, { new_user: 'guest' }, { originalUser: 'svc', newUser: 'u.*' }] });
      expect(denial(() => ac.checkCanImpersonateUser('alice', 'carol'))).to.not.equal(undefined);
      expect(denial(() => ac.checkCanImpersonateUser('alice', 'guest'))).to.equal(undefined);
      expect(denial(() => ac.checkCanImpersonateUser('svc', 'u42'))).to.equal(undefined);
    });
  });

  describe('system information', () => {
    it('a missing or empty section denies read and write, with Trino\'s messages', () => {
      for (const rules of [{}, { system_information: [] }]) {
        const ac = control(rules);
        expect(denial(() => ac.checkCanReadSystemInformation('admin'))).to.equal('Access Denied: Cannot read system information');
        expect(denial(() => ac.checkCanWriteSystemInformation('admin'))).to.equal('Access Denied: Cannot write system information');
        expect(ac.canReadSystemInformation('admin')).to.equal(false);
      }
    });

    it('first match: admin reads and writes, alice reads, the rest nothing', () => {
      const ac = control({ system_information: [{ user: 'admin', allow: ['read', 'write'] }, { user: 'alice', allow: ['read'] }, { user: 'alice|bob', allow: ['write'] }] });
      expect(denial(() => ac.checkCanWriteSystemInformation('admin'))).to.equal(undefined);
      expect(denial(() => ac.checkCanReadSystemInformation('alice'))).to.equal(undefined);
      expect(denial(() => ac.checkCanWriteSystemInformation('alice')), 'alice\'s first rule decides').to.not.equal(undefined);
      expect(denial(() => ac.checkCanWriteSystemInformation('bob'))).to.equal(undefined);
      expect(denial(() => ac.checkCanReadSystemInformation('bob'))).to.not.equal(undefined);
      expect(denial(() => ac.checkCanReadSystemInformation('administrator'))).to.not.equal(undefined);
    });
  });

  describe('catalogs', () => {
    it('a missing section allows all; with rules, the first match decides and no match is none', () => {
      expect(control({ queries: [] }).catalogAccess('alice', 'tpch')).to.equal('all');
      const ac = control({
        catalogs: [
          { user: 'admin', allow: 'all' },
          { catalog: 'secret', allow: false },
          { user: 'alice', catalog: 'tpch|memory', allow: 'read-only' },
          { catalog: 'tpch', allow: true },
        ],
      });
      expect(ac.catalogAccess('admin', 'secret')).to.equal('all');
      expect(ac.catalogAccess('alice', 'secret')).to.equal('none');
      expect(ac.catalogAccess('alice', 'tpch')).to.equal('read-only');
      expect(ac.catalogAccess('bob', 'tpch')).to.equal('all');
      expect(ac.catalogAccess('bob', 'memory')).to.equal('none');
      expect(ac.catalogAccess('bob', 'tpch2'), 'the catalog pattern matches the whole name').to.equal('none');
      expect(denial(() => ac.checkCanAccessCatalog('bob', 'memory'))).to.equal('Access Denied: Cannot access catalog memory');
      expect(denial(() => ac.checkCanAccessCatalog('alice', 'memory')), 'read-only is access').to.equal(undefined);
      expect(ac.filterCatalogs('bob', ['memory', 'system', 'tpch'])).to.deep.equal(['system', 'tpch']);
    });

    it('everyone keeps the system catalog (Trino\'s implicit last rule) unless a rule above takes it away', () => {
      expect(control({ catalogs: [] }).catalogAccess('alice', 'system')).to.equal('all');
      const ac = control({ catalogs: [{ user: 'guest', catalog: 'system', allow: 'none' }] });
      expect(ac.catalogAccess('guest', 'system')).to.equal('none');
      expect(ac.catalogAccess('alice', 'system')).to.equal('all');
      expect(ac.catalogAccess('alice', 'tpch')).to.equal('none');
    });
  });

  describe('hostile names and patterns', () => {
    const rules = {
      catalogs: [{ user: '(a+)+$', allow: 'all' }, { allow: 'read-only' }],
      queries: [{ user: '(a|aa)*b', allow: ['view'] }, { queryOwner: '(.*a){20}', allow: ['kill'] }, { allow: ['execute'] }],
      impersonation: [{ original_user: '(x+x+)+y', new_user: '$1' }, { original_user: '(.*)', new_user: '$1_(a+)+' }],
      system_information: [{ user: '(\\w+\\s?)*$', allow: ['read'] }],
    };

    it('any user name (huge, unicode, newline, NUL, lone surrogates) gets a decision or PERMISSION_DENIED, nothing else (fast-check)', () => {
      const ac = control(rules);
      const name = fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.constantFrom('', '\n', 'a\nb', '\u0000', '\ud800', '😀'.repeat(1000), 'a'.repeat(100_000)));
      fc.assert(
        fc.property(name, name, (user, other) => {
          denial(() => ac.checkCanExecuteQuery(user));
          denial(() => ac.checkCanViewQueryOwnedBy(user, other));
          denial(() => ac.checkCanKillQueryOwnedBy(user, other));
          denial(() => ac.checkCanImpersonateUser(user, other));
          denial(() => ac.checkCanReadSystemInformation(user));
          denial(() => ac.checkCanWriteSystemInformation(user));
          denial(() => ac.checkCanAccessCatalog(user, other));
          expect(['all', 'read-only', 'none']).to.include(ac.catalogAccess(user, other));
        }),
        { numRuns: 300 },
      );
    });

    it('a name in a denial message is the name as given, newline and all (the JSON body escapes it)', () => {
      expect(denial(() => control({}).checkCanImpersonateUser('a\nb', '\u0000'))).to.equal('Access Denied: User a\nb cannot impersonate user \u0000');
    });

    it('catastrophic-backtracking patterns run in linear time over a 50 000-character name (RE2, not RegExp)', () => {
      const ac = control(rules);
      // Near misses: long runs that almost match, the classic worst case for a backtracking engine.
      const names = (size: number) => ['a'.repeat(size) + '!', 'a'.repeat(size), 'x'.repeat(size), `${'a'.repeat(size)}\n`, 'ab'.repeat(size / 2)];
      const decide = (name: string) => {
        ac.catalogAccess(name, 'tpch');
        ac.canViewQueryOwnedBy(name, 'owner');
        ac.canKillQueryOwnedBy('someone', name);
        ac.canReadSystemInformation(name);
        denial(() => ac.checkCanImpersonateUser(name, `${name}_aaaa`));
      };
      const started = performance.now();
      for (const name of names(50_000)) decide(name);
      // A backtracking engine would not finish (2^50000 paths); RE2 takes milliseconds. The bound is generous.
      expect(performance.now() - started).to.be.below(5_000);
      expectLinear('access decisions', decide, names, 12_500);
    });
  });

  describe('over HTTP', () => {
    it('a denial answers 403 with Trino\'s message in the error body', async () => {
      const ac = control({ system_information: [{ user: 'admin', allow: ['read'] }] });
      const app = new Koa();
      app.use(errorMiddleware);
      app.use((ctx) => {
        ac.checkCanReadSystemInformation(ctx.get('X-Trino-User'));
        ctx.body = { ok: true };
      });
      const server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/node`;
        const refused = await request('GET', url, { headers: { 'X-Trino-User': 'alice' } });
        expect(refused.status).to.equal(403);
        expect(expectValid('error', refused.body)).to.deep.equal({
          errorName: 'PERMISSION_DENIED', errorCode: 4, errorType: 'USER_ERROR', message: 'Access Denied: Cannot read system information', status: 403,
        });
        expect((await request('GET', url, { headers: { 'X-Trino-User': 'admin' } })).status).to.equal(200);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });
});
