// The rules file of security.config-file: what Trino's file-based access control accepts and refuses,
// patterns RE2 refuses, impersonation references checked at load, and re-reading per security.refresh-period.
import { expect } from 'chai';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sinon from 'sinon';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { createAccessControl } from '../../lib/security/access-control.js';
import { AccessRulesFile } from '../../lib/security/access-rules-file.js';
import { loadAccessRulesFile, parseAccessRules, type AccessRules } from '../../lib/security/access-rules.js';
import { NewUserPattern } from '../../lib/security/new-user-pattern.js';
import { RulePattern } from '../../lib/security/rule-pattern.js';
import { captureLog } from '../support/log-capture.js';
import { isValid } from '../support/schema-validator.js';

const parse = (doc: unknown): AccessRules => parseAccessRules(JSON.stringify(doc), 'rules.json');

/** The CONFIGURATION_INVALID error `fn` throws (fails when it throws anything else, or nothing). */
function refusal(fn: () => unknown): VivaceError {
  try {
    fn();
  } catch (err) {
    expect(err).to.be.instanceOf(VivaceError);
    expect((err as VivaceError).errorName).to.equal('CONFIGURATION_INVALID');
    return err as VivaceError;
  }
  expect.fail('expected CONFIGURATION_INVALID');
}

describe('security: access-control rules file', () => {
  describe('what it accepts', () => {
    it('an empty object: every section left out (each keeps Trino\'s default)', () => {
      expect(parse({})).to.deep.equal({ catalogs: undefined, schemas: undefined, tables: undefined, queries: undefined, impersonation: undefined, systemInformation: undefined });
    });

    it('the four sections, with mode names in any case (as Jackson reads Trino\'s enums) and Trino\'s legacy booleans for catalogs', () => {
      const doc = {
        catalogs: [{ user: 'alice', catalog: 'tpch', allow: 'Read-Only' }, { catalog: 'memory', allow: true }, { allow: false }],
        queries: [{ user: 'admin', allow: ['EXECUTE', 'View', 'kill'] }, { queryOwner: 'bob', allow: [] }],
        impersonation: [{ original_user: 'admin', new_user: '.*', allow: false }, { originalUser: 'a', newUser: 'b' }],
        system_information: [{ user: 'admin', allow: ['READ', 'write'] }],
      };
      expect(isValid('access-control-rules', doc), 'the schema alone is case-sensitive').to.equal(false);
      const rules = parse(doc);
      expect(rules.catalogs!.map((r) => r.allow)).to.deep.equal(['read-only', 'all', 'none']);
      expect([...rules.queries![0]!.allow]).to.deep.equal(['execute', 'view', 'kill']);
      expect(rules.queries![1]!.allow.size).to.equal(0);
      expect(rules.impersonation!.map((r) => r.allow)).to.deep.equal([false, true]);
      expect(rules.impersonation![1]!.originalUser!.source).to.equal('a');
      expect([...rules.systemInformation![0]!.allow]).to.deep.equal(['read', 'write']);
    });

    it('a byte order mark before the JSON, and empty sections', () => {
      const rules = parseAccessRules('\uFEFF{"queries": [], "impersonation": []}', 'rules.json');
      expect(rules.queries).to.deep.equal([]);
      expect(rules.impersonation).to.deep.equal([]);
    });

    it('marks a rule naming a role or a group: Vivace has neither, so it matches nobody', () => {
      const rules = parse({ catalogs: [{ role: 'admin', allow: 'all' }, { group: '.*', allow: 'all' }, { allow: 'none' }], impersonation: [{ original_role: 'x', new_user: 'y' }] });
      expect(rules.catalogs!.map((r) => r.namesRoleOrGroup)).to.deep.equal([true, true, false]);
      expect(rules.impersonation![0]!.namesRole).to.equal(true);
    });
  });

  describe('what it refuses, saying where (CONFIGURATION_INVALID)', () => {
    const cases: [string, unknown, RegExp][] = [
      ['an unknown section (Trino fails on unknown properties)', { session_properties: [] }, /\(root\): unknown property "session_properties"/],
      ['an unknown key in a rule', { queries: [{ users: 'alice', allow: ['view'] }] }, /\/queries\/0: unknown property "users"/],
      ['a group in a system_information rule (Trino\'s has none)', { system_information: [{ group: 'g', allow: ['read'] }] }, /unknown property "group"/],
      ['a rule without allow', { queries: [{ user: 'alice' }] }, /\/queries\/0: must have required property 'allow'/],
      ['an unknown query mode', { queries: [{ allow: ['view', 'drop'] }] }, /\/queries\/0\/allow\/1: must be one of execute, view, kill/],
      ['an unknown catalog mode', { catalogs: [{ allow: 'owner' }] }, /\/catalogs\/0\/allow: must be one of all, read-only, none/],
      ['allow as a single string where Trino wants a list', { system_information: [{ allow: 'read' }] }, /\/system_information\/0\/allow: must be array/],
      ['a pattern that is not a string', { catalogs: [{ user: 7, allow: 'all' }] }, /\/catalogs\/0\/user: must be string/],
      ['an impersonation rule without new_user', { impersonation: [{ original_user: 'a' }] }, /\/impersonation\/0: must have required property 'new_user'/],
      ['queryOwner with execute (a query has no owner before it runs)', { queries: [{ queryOwner: 'a', allow: ['execute'] }] }, /queries\[0\]: a rule with queryOwner cannot allow execute/],
      ['a file that is not an object', [], /\(root\): must be object/],
    ];
    for (const [what, doc, message] of cases) {
      it(what, () => {
        const err = refusal(() => parse(doc));
        expect(err.message).to.match(/^Invalid access control rules file rules\.json: /).and.match(message);
      });
    }

    it('the sections of Trino\'s file that Vivace does not apply, by name (no rule is silently ignored)', () => {
      const err = refusal(() => parse({ queries: [], tables: [], functions: [], procedures: [] }));
      expect(err.message).to.include('section functions, procedures of Trino\'s file-based access control is not supported by Vivace');
    });

    it('text that is not JSON', () => {
      expect(refusal(() => parseAccessRules('{"queries": [', 'rules.json')).message).to.match(/^Invalid JSON in access control rules file rules\.json: /);
    });

    it('patterns RE2 refuses (backreferences, lookaround, possessive and atomic groups), naming the rule, the field and the pattern', () => {
      for (const pattern of ['(a)\\1', 'a(?=b)', '(?<=a)b', 'a(?!b)', 'a*+', '(?>a)', 'a{1001}', '(unclosed']) {
        const err = refusal(() => parse({ queries: [{ allow: ['view'] }, { user: pattern, allow: ['view'] }] }));
        expect(err.message, pattern).to.include(`queries[1].user: invalid pattern ${JSON.stringify(pattern)}: `);
      }
      const huge = `(${'a'.repeat(60_000)}`;
      const message = refusal(() => parse({ catalogs: [{ catalog: huge, allow: 'all' }] })).message;
      expect(message).to.include('catalogs[0].catalog: invalid pattern').and.include('missing closing )');
      expect(message.length, 'a huge pattern is cut in the message').to.be.below(600);
    });

    it('a new_user reference to a group original_user does not have, at load rather than at the first request', () => {
      const err = refusal(() => parse({ impersonation: [{ original_user: 'team_(.*)', new_user: 'team_$2_sandbox' }] }));
      expect(err.message).to.include('impersonation[0].new_user: new_user in impersonation rule refers to a capturing group that does not exist in original_user');
      expect(refusal(() => parse({ impersonation: [{ original_user: '(?<team>.*)', new_user: '${squad}' }] })).message).to.include('capturing group that does not exist');
      expect(refusal(() => parse({ impersonation: [{ original_user: '(.*)', new_user: 'a$b' }] })).message).to.include('illegal group reference');
      expect(refusal(() => parse({ impersonation: [{ original_user: '(.*)', new_user: '${open' }] })).message).to.include("without its closing '}'");
    });

    it('a missing file, a directory, or a file past the size limit, naming the path', () => {
      const dir = mkdtempSync(join(tmpdir(), 'vivace-rules-'));
      try {
        expect(refusal(() => loadAccessRulesFile(join(dir, 'none.json'))).message).to.match(/^Cannot read access control rules file .*none\.json: ENOENT/);
        mkdirSync(join(dir, 'sub'));
        expect(refusal(() => loadAccessRulesFile(join(dir, 'sub'))).message).to.include('not a regular file');
        writeFileSync(join(dir, 'big.json'), Buffer.alloc((16 << 20) + 1, 0x20));
        expect(refusal(() => loadAccessRulesFile(join(dir, 'big.json'))).message).to.include('more than the 16777216 allowed');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it('anything at all: fast-check text and JSON values either load or fail with CONFIGURATION_INVALID, nothing else', () => {
      const section = fc.constantFrom('catalogs', 'queries', 'impersonation', 'system_information', 'tables', 'x');
      const key = fc.constantFrom('user', 'role', 'group', 'catalog', 'queryOwner', 'allow', 'original_user', 'new_user', 'newUser', 'original_role', 'zz');
      const value = fc.oneof(fc.string(), fc.constantFrom('(a)\\1', '$1', '(.*)', '${x}', 'all', 'view', true, null), fc.array(fc.constantFrom('read', 'write', 'view', 'kill', 'execute', 'x')), fc.jsonValue());
      const doc = fc.oneof(fc.jsonValue(), fc.dictionary(section, fc.array(fc.dictionary(key, value), { maxLength: 4 })));
      const tryLoad = (text: string) => {
        try {
          parseAccessRules(text, 'rules.json');
        } catch (err) {
          if (!(err instanceof VivaceError) || err.errorName !== 'CONFIGURATION_INVALID') throw err;
        }
      };
      fc.assert(fc.property(doc, (d) => tryLoad(JSON.stringify(d) ?? 'null')), { numRuns: 500 });
      fc.assert(fc.property(fc.string({ unit: 'binary' }), tryLoad), { numRuns: 300 });
    });
  });

  describe('patterns', () => {
    it('match the whole name, case-sensitively, as Java\'s matches()', () => {
      const alice = RulePattern.compile('alice', 'spec');
      expect(['alice', 'alice2', 'malice', 'Alice', 'alice\n'].map((n) => alice.matches(n))).to.deep.equal([true, false, false, false, false]);
      expect(RulePattern.compile('alice|bob', 'spec').matches('bob')).to.equal(true);
      expect(RulePattern.compile('a.*', 'spec').matches('ab\ncd'), 'as Java, . stops at a newline').to.equal(false);
    });

    it('never fail on any pattern text with anything but CONFIGURATION_INVALID (fast-check)', () => {
      const pieces = fc.constantFrom('(', ')', '[', ']', '{', '}', '*', '+', '?', '\\', '|', '^', '$', '.', 'a', '1', ',', '<', '>', '=', '!', 'P', ':', '-');
      fc.assert(
        fc.property(fc.oneof(fc.string(), fc.array(pieces, { maxLength: 30 }).map((p) => p.join(''))), fc.string(), (source, name) => {
          try {
            RulePattern.compile(source, 'spec').matches(name);
          } catch (err) {
            if (!(err instanceof VivaceError) || err.errorName !== 'CONFIGURATION_INVALID') throw err;
          }
        }),
        { numRuns: 1000 },
      );
    });

    it('new_user templates: Java\'s $n and ${name} references, captured text taken literally (fast-check)', () => {
      const original = RulePattern.compile('(?<team>[^_]*)_(.*)', 'spec');
      const rule = NewUserPattern.compile('${team}_$2_sandbox', original, 'spec');
      expect(rule.matches('db_x_sandbox', original.wholeMatch('db_x'))).to.equal(true);
      expect(rule.matches('db_y_sandbox', original.wholeMatch('db_x'))).to.equal(false);
      // `$12` with two groups is group 1 then the digit 2, as Java reads it; `\$` is a literal dollar sign.
      const two = RulePattern.compile('(a)(b)', 'spec');
      expect(NewUserPattern.compile('$12', two, 'spec').matches('a2', two.wholeMatch('ab'))).to.equal(true);
      expect(NewUserPattern.compile('\\$1', two, 'spec').matches('$1', two.wholeMatch('ab'))).to.equal(true);
      // Whatever the user name, the substituted pattern compiles and matches that name literally.
      const team = RulePattern.compile('team_(.*)', 'spec');
      const sandbox = NewUserPattern.compile('team_$1_sandbox', team, 'spec');
      fc.assert(
        fc.property(fc.string({ unit: 'grapheme' }).filter((s) => !s.includes('\n')), fc.string(), (name, other) => {
          const groups = team.wholeMatch(`team_${name}`);
          expect(sandbox.matches(`team_${name}_sandbox`, groups)).to.equal(true);
          if (other !== name) expect(sandbox.matches(`team_${other}_sandbox`, groups)).to.equal(false);
        }),
        { numRuns: 500 },
      );
    });
  });

  describe('security.refresh-period', () => {
    let dir: string;
    let path: string;
    const write = (doc: unknown) => writeFileSync(path, typeof doc === 'string' ? doc : JSON.stringify(doc));
    const adminOnly = { system_information: [{ user: 'admin', allow: ['read'] }] };
    const aliceToo = { system_information: [{ user: 'admin|alice', allow: ['read'] }] };

    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'vivace-rules-'));
      path = join(dir, 'rules.json');
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));

    /** A clock the spec moves, and a loader that counts reads. */
    function watched(refreshPeriodMs?: number) {
      const clock = { t: 1_000_000, now: () => clock.t };
      const reads = { n: 0 };
      const invalid: VivaceError[] = [];
      const file = new AccessRulesFile(path, {
        refreshPeriodMs,
        clock,
        onInvalid: (e) => invalid.push(e),
        load: (p) => {
          reads.n++;
          return loadAccessRulesFile(p);
        },
      });
      return { file, clock, reads, invalid };
    }

    it('without it, the file is read once: later changes are not seen (Trino\'s default)', () => {
      write(adminOnly);
      const { file, clock, reads } = watched();
      write(aliceToo);
      clock.t += 86_400_000;
      expect(file.current().systemInformation![0]!.user!.source).to.equal('admin');
      expect(reads.n).to.equal(1);
    });

    it('with it, the file is read again at the first check once the period has passed, not before', () => {
      write(adminOnly);
      const { file, clock, reads } = watched(5_000);
      write(aliceToo);
      clock.t += 4_999;
      expect(file.current().systemInformation![0]!.user!.source).to.equal('admin');
      clock.t += 1;
      expect(file.current().systemInformation![0]!.user!.source).to.equal('admin|alice');
      expect(file.current().systemInformation![0]!.user!.source).to.equal('admin|alice');
      expect(reads.n).to.equal(2);
    });

    it('a file that becomes invalid fails every check (never allows, never keeps the old rules) until it is fixed', () => {
      write(adminOnly);
      const { file, clock, reads, invalid } = watched(1_000);
      write('{"system_information": [ {"user": "admin", "allow": ["read"]} ], "session_properties": []}');
      clock.t += 1_000;
      const err = refusal(() => file.current());
      expect(err.message).to.equal('Access control rules are invalid: every access check fails until the rules file is fixed');
      expect(err.message, 'the client is not told where the file is').not.to.include(dir);
      expect(invalid).to.have.length(1);
      expect(invalid[0]!.message, 'the log is').to.include(path).and.include('unknown property "session_properties"');
      refusal(() => file.current());
      expect(reads.n, 'a broken file is re-read once per period, not at every check').to.equal(2);
      write(aliceToo);
      clock.t += 1_000;
      expect(file.current().systemInformation![0]!.user!.source).to.equal('admin|alice');
      expect(invalid).to.have.length(1);
    });

    it('a deleted file likewise, and the access control built on it answers CONFIGURATION_INVALID, not a decision', () => {
      write({ queries: [{ allow: ['execute', 'view', 'kill'] }], system_information: [{ allow: ['read', 'write'] }] });
      const clock = sinon.useFakeTimers({ now: 1_000_000, toFake: ['Date'] });
      try {
        const log = captureLog('info');
        const ac = createAccessControl({ securityConfigFile: path, securityRefreshPeriodMs: 60_000 }, { logger: log.logger });
        ac.checkCanReadSystemInformation('anyone');
        unlinkSync(path);
        clock.tick(60_000);
        for (const check of [() => ac.checkCanReadSystemInformation('anyone'), () => ac.checkCanExecuteQuery('anyone'), () => ac.canViewQueryOwnedBy('a', 'b'), () => ac.filterCatalogs('a', ['tpch'])]) {
          refusal(check);
        }
        expect(ac.canViewQueryOwnedBy('a', 'a'), 'one\'s own queries need no rule').to.equal(true);
        expect(log.lines()).to.have.length(1);
        expect(log.lines()[0]).to.include({ level: 'warn', component: 'access-control', event: 'access_rules_invalid', path, errorName: 'CONFIGURATION_INVALID' });
      } finally {
        clock.restore();
      }
    });

    it('an invalid file or a period of zero is a startup error', () => {
      write('{"queries": [{"user": "(a)\\\\1", "allow": ["view"]}]}');
      expect(refusal(() => createAccessControl({ securityConfigFile: path })).message).to.include('queries[0].user: invalid pattern "(a)\\\\1"');
      write({});
      expect(refusal(() => createAccessControl({ securityConfigFile: path, securityRefreshPeriodMs: 0 })).message).to.include('security.refresh-period must be greater than zero');
    });
  });
});
