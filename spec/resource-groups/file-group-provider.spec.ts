// Trino's file group provider (lib/resource-groups/file-group-provider.ts) and the selectors it feeds:
// etc/group-provider.properties and a group file of `group:user1,user2` lines on real files in a temp dir,
// read at start, re-read when changed once file.refresh-period has passed (a simulated clock), a broken
// re-read keeping the last good groups; odd and huge files; and, over HTTPS with password authentication,
// the selectors `userGroup` (the session user's groups) and `authenticatedUser` (the principal, not the
// user it impersonates) choosing the groups /v1/query/{id} names. Trino's facts: FileGroupProvider,
// FileGroupConfig (file.group-file, file.refresh-period 5s, at least 1ms), GroupProviderManager
// (group-provider.name), StaticSelector (authenticatedUser matches only when there is a principal).
import { mkdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import fc from 'fast-check';
import sinon from 'sinon';
import { createCoordinator } from '../../lib/actors/coordinator.js';
import type { Engine } from '../../lib/engine/engine.types.js';
import { startServer, type RunningServer } from '../../lib/http/server.js';
import type { Logger } from '../../lib/log/logger.js';
import { FileGroupProvider, groupProviderPropertiesPath, MAX_GROUP_FILE_BYTES, parseGroupFile, readGroupProviderProperties } from '../../lib/resource-groups/file-group-provider.js';
import { ResourceGroupTree } from '../../lib/resource-groups/resource-group-tree.js';
import { parseResourceGroupsConfig } from '../../lib/resource-groups/resource-groups-config.js';
import { selectionOf } from '../../lib/resource-groups/selection.js';
import { createAccessControl } from '../../lib/security/access-control.js';
import { testSession } from '../support/actors.js';
import { tempFiles } from './temp-files.js';
import { expectLinear } from '../support/linear-time.js';
import { validateResponse } from '../support/schema-validator.js';
import { basic, bcryptLine, secureFixture, send, type SecureServer } from '../security/auth-fixtures.js';

/** Trino's documented example (docs/src/main/sphinx/security/group-file.md). */
const DOCUMENTED = 'group1:user_1,user_2,user_3\n';

const groups = (text: string) => Object.fromEntries([...parseGroupFile(text)].map(([user, g]) => [user, [...g].sort()]));

describe('file group provider', () => {
  const files = tempFiles('vivace-groups-');
  const { write } = files;

  describe('the group file', () => {
    it("reads Trino's documented example and a user's groups from every line naming it", () => {
      expect(groups(DOCUMENTED)).to.deep.equal({ user_1: ['group1'], user_2: ['group1'], user_3: ['group1'] });
      expect(groups('admins:alice,bob\nanalysts:bob\n# a comment\n\n  analysts : carol , , bob ,\n')).to.deep.equal({ alice: ['admins'], bob: ['admins', 'analysts'], carol: ['analysts'] });
    });

    it('splits lines at \\n, \\r\\n and \\r, keeps a group without users and one with an empty name, splits at the first colon', () => {
      expect(groups('a:x\r\nb:y\rc:z')).to.deep.equal({ x: ['a'], y: ['b'], z: ['c'] });
      expect(groups('empty:\n:nameless\nurl:http://h:1')).to.deep.equal({ nameless: [''], 'http://h:1': ['url'] });
      // names that are special to a plain object are just names
      expect(groups('__proto__:constructor,toString\nhasOwnProperty:__proto__')).to.deep.equal({ constructor: ['__proto__'], toString: ['__proto__'], ['__proto__']: ['hasOwnProperty'] });
    });

    it("refuses a line without a colon with Trino's message and its line number", () => {
      expect(() => parseGroupFile('a:x\n\n# c\nno colon here\n')).to.throw('Error in group file line 4: Expected two parts for group and users');
      expect(() => parseGroupFile('a:x\r\nb')).to.throw('Error in group file line 2:');
    });

    it('reads huge lines in linear time: one group of many users, many groups of one user, runs of separators', () => {
      const users = (n: number) => Array.from({ length: n }, (_, i) => `u${i}`);
      expect(parseGroupFile(`big:${users(200_000).join(',')}\n`).get('u199999')).to.deep.equal(['big']);
      expect(parseGroupFile(users(1000).map((u) => `g_${u}:${u}`).join('\n')).get('u7')).to.deep.equal(['g_u7']);
      expect(parseGroupFile(`g${':'.repeat(1000)}`).get(':'.repeat(999))).to.deep.equal(['g']);
      expectLinear('parseGroupFile', parseGroupFile, (size) => [
        `big:${users(size / 8).join(',')}`, users(size / 16).map((u) => `g_${u}:${u}`).join('\n'), `g:${', '.repeat(size / 2)}`,
        `g${':'.repeat(size)}`, ' '.repeat(size), '\r\n'.repeat(size / 2), '#'.repeat(size), `${'\n'.repeat(size)}x`,
      ], 100_000);
    });

    it('never throws anything but its own error on any text', () => {
      fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        try {
          parseGroupFile(text);
        } catch (err) {
          expect((err as Error).message).to.match(/^Error in group file line \d+: Expected two parts for group and users$/);
        }
      }), { numRuns: 300 });
    });
  });

  describe('etc/group-provider.properties', () => {
    it('is found beside config.properties, or in etc/ beside it', () => {
      const config = write('config.properties', 'http-server.http.port=0\n');
      expect(groupProviderPropertiesPath(config)).to.equal(undefined);
      mkdirSync(join(files.dir, 'etc'));
      writeFileSync(join(files.dir, 'etc', 'group-provider.properties'), '');
      expect(groupProviderPropertiesPath(config)).to.equal(join(files.dir, 'etc', 'group-provider.properties'));
      const beside = write('group-provider.properties', '');
      expect(groupProviderPropertiesPath(config)).to.equal(beside);
    });

    it('reads the settings, refusing what Trino refuses', () => {
      const file = write('group.txt', DOCUMENTED);
      const props = (lines: string[]) => write('group-provider.properties', `${lines.join('\n')}\n`);
      expect(readGroupProviderProperties(props(['group-provider.name=file', `file.group-file=${file}`]))).to.deep.include({ groupFile: file, refreshPeriodMs: 5000 });
      expect(readGroupProviderProperties(props(['group-provider.name=file', `file.group-file=${file}`, 'file.refresh-period=250ms'])).refreshPeriodMs).to.equal(250);
      const refused = (lines: string[]) => {
        try {
          readGroupProviderProperties(props(lines));
        } catch (err) {
          expect(err).to.have.property('errorName', 'CONFIGURATION_INVALID');
          return (err as Error).message;
        }
        throw new Error('accepted');
      };
      expect(refused([`file.group-file=${file}`])).to.match(/ does not contain group-provider\.name$/);
      expect(refused(['group-provider.name=ldap', `file.group-file=${file}`])).to.match(/:1: Group provider ldap is not registered$/);
      expect(refused(['group-provider.name=file'])).to.match(/Invalid configuration property file\.group-file: must not be null$/);
      expect(refused(['group-provider.name=file', `file.group-file=${join(files.dir, 'missing.txt')}`])).to.match(/:2: Invalid configuration property file\.group-file: file does not exist: /);
      expect(refused(['group-provider.name=file', `file.group-file=${file}`, 'file.refresh-period=0s'])).to.match(/:3: Invalid configuration property file\.refresh-period: 0s/);
      expect(refused(['group-provider.name=file', `file.group-file=${file}`, 'file.refresh-period=soon'])).to.match(/file\.refresh-period: soon/);
      expect(refused(['group-provider.name=file', `file.group-file=${file}`, 'file.group-case=upper'])).to.match(/:3: Configuration property 'file.group-case' was not used$/);
    });

    it("takes group-provider.group-case as Trino's GroupProviderManager does: keep, upper or lower in any case, else its message", () => {
      const file = write('group.txt', DOCUMENTED);
      const props = (lines: string[]) => write('group-provider.properties', `${lines.join('\n')}\n`);
      const groupCase = (value: string) => readGroupProviderProperties(props(['group-provider.name=file', `file.group-file=${file}`, `group-provider.group-case=${value}`])).groupCase;
      expect(groupCase('keep')).to.equal(undefined);
      expect(groupCase('KEEP')).to.equal(undefined);
      expect(groupCase('upper')).to.equal('upper');
      expect(groupCase('Lower')).to.equal('lower');
      const path = props(['group-provider.name=file', `file.group-file=${file}`, 'group-provider.group-case=invalid']);
      expect(() => readGroupProviderProperties(path)).to.throw(`${path}:3: Group provider configuration ${path} does not contain valid group-provider.group-case. Expected one of: [KEEP, LOWER, UPPER]`);
      // Read before the provider's name is looked up (an unknown provider with a bad case fails on the case).
      expect(() => readGroupProviderProperties(props(['group-provider.name=ldap', 'group-provider.group-case=camel']))).to.throw(/does not contain valid group-provider\.group-case/);
    });
  });

  describe('the provider', () => {
    function provider(text: string, refreshPeriodMs = 1000) {
      const file = write('group.txt', text);
      let now = 1_000_000;
      const warn = sinon.spy();
      const logger = { warn } as unknown as Logger;
      const p = new FileGroupProvider({ propertiesFile: join(files.dir, 'group-provider.properties'), groupFile: file, refreshPeriodMs }, { now: () => now, logger });
      return { p, file, warn, advance: (ms: number) => (now += ms) };
    }

    it("gives each group's name in group-provider.group-case, names that become one counted once", () => {
      const text = 'Admins:alice\nadmins:alice,bob\nAnalysts:bob\n';
      const file = write('group.txt', text);
      const settings = { propertiesFile: join(files.dir, 'group-provider.properties'), groupFile: file, refreshPeriodMs: 1000 };
      expect(new FileGroupProvider(settings).groupsOf('alice')).to.deep.equal(['Admins', 'admins']);
      expect(new FileGroupProvider({ ...settings, groupCase: 'upper' }).groupsOf('alice')).to.deep.equal(['ADMINS']);
      expect(new FileGroupProvider({ ...settings, groupCase: 'lower' }).groupsOf('bob')).to.deep.equal(['admins', 'analysts']);
      // Users are matched as written: only groups change case.
      expect(new FileGroupProvider({ ...settings, groupCase: 'upper' }).groupsOf('ALICE')).to.deep.equal([]);
      expect(groups(text)).to.deep.equal({ alice: ['Admins', 'admins'], bob: ['Analysts', 'admins'] });
    });

    it('answers a user\'s groups, none for a user no line names', () => {
      const { p } = provider('admins:alice,bob\nanalysts:bob\n');
      expect(p.groupsOf('bob')).to.deep.equal(['admins', 'analysts']);
      expect(p.groupsOf('mallory')).to.deep.equal([]);
      expect(p.groupsOf('__proto__')).to.deep.equal([]);
    });

    it('re-reads a changed file once the refresh period has passed, not before', () => {
      const { p, advance } = provider('admins:alice\n');
      write('group.txt', 'admins:bob\n');
      advance(999);
      expect(p.groupsOf('alice')).to.deep.equal(['admins']);
      advance(1);
      expect(p.groupsOf('alice')).to.deep.equal([]);
      expect(p.groupsOf('bob')).to.deep.equal(['admins']);
    });

    it('keeps the last good groups while the file is broken or gone, logging each problem once, and takes the fixed file', () => {
      const { p, advance, warn, file } = provider('admins:alice\n');
      write('group.txt', 'admins:bob\nbroken line\n');
      for (let i = 0; i < 3; i++) {
        advance(1000);
        expect(p.groupsOf('alice')).to.deep.equal(['admins']);
      }
      expect(warn.callCount).to.equal(1);
      expect(warn.firstCall.args[0]).to.include({ event: 'group_file_invalid', path: file });
      expect(warn.firstCall.args[0].message).to.equal('Error in group file line 2: Expected two parts for group and users; the last good group file stays in force');
      rmSync(file);
      advance(1000);
      expect(p.groupsOf('alice')).to.deep.equal(['admins']);
      expect(warn.callCount).to.equal(2);
      expect(warn.secondCall.args[0].message).to.match(/^Failed to read group file: /);
      write('group.txt', 'admins:bob\n');
      advance(1000);
      expect(p.groupsOf('bob')).to.deep.equal(['admins']);
    });

    it('stops the start on a broken or oversized file', () => {
      const file = write('group.txt', 'no colon\n');
      const settings = { propertiesFile: 'p', groupFile: file, refreshPeriodMs: 1000 };
      expect(() => new FileGroupProvider(settings)).to.throw('Error in group file line 1: Expected two parts for group and users');
      truncateSync(file, MAX_GROUP_FILE_BYTES + 1); // sparse: nothing is written
      expect(() => new FileGroupProvider(settings)).to.throw(`more than ${MAX_GROUP_FILE_BYTES}`);
    });
  });

  describe('the selectors', () => {
    const config = parseResourceGroupsConfig(JSON.stringify({
      rootGroups: [{
        name: 'global', softMemoryLimit: '100%', hardConcurrencyLimit: 10, maxQueued: 10,
        subGroups: ['by_alice', 'admins', 'other'].map((name) => ({ name, softMemoryLimit: '100%', hardConcurrencyLimit: 10, maxQueued: 10 })),
      }],
      selectors: [
        { authenticatedUser: 'alice', group: 'global.by_alice' },
        { userGroup: 'adm.*', group: 'global.admins' },
        { group: 'global.other' },
      ],
    }), 'rg.json');

    it('selectionOf gives the user\'s groups and the principal; the tree matches on them', () => {
      const tree = new ResourceGroupTree(config);
      const groupsOf = (user: string) => (user === 'bob' ? ['admins'] : []);
      const select = (session: Parameters<typeof selectionOf>[0]) => tree.selectedGroupId(selectionOf(session, 'SELECT 1', groupsOf).criteria);
      expect(selectionOf(testSession({ user: 'bob' }), 'SELECT 1', groupsOf).criteria).to.deep.include({ userGroups: ['admins'] });
      expect(select(testSession({ user: 'bob' }))).to.deep.equal(['global', 'admins']);
      // alice's principal acting as robot: the principal matches, the user's name would not
      expect(select({ ...testSession({ user: 'robot' }), authenticatedUser: 'alice' })).to.deep.equal(['global', 'by_alice']);
      // named alice without authentication: no principal, so authenticatedUser does not match
      expect(select(testSession({ user: 'alice' }))).to.deep.equal(['global', 'other']);
      // without a provider nobody has groups
      expect(tree.selectedGroupId(selectionOf(testSession({ user: 'bob' }), 'SELECT 1').criteria)).to.deep.equal(['global', 'other']);
    });

    describe('over HTTPS with password authentication', function () {
      this.timeout(30_000);
      /** Plans that never finish: each query stays in the group admission gave it. */
      const waitingEngine: Engine = { plan: () => new Promise(() => {}), async close() {} };
      const tls = secureFixture(async (tmp, certificate): Promise<SecureServer> => {
        const provider = new FileGroupProvider(readGroupProviderProperties(tmp.file('group-provider.properties', `group-provider.name=file\nfile.group-file=${tmp.file('group.txt', 'admins:bob\n')}\n`)));
        const coordinator = createCoordinator({
          engine: waitingEngine,
          config: {
            trackerIntervalMs: 60_000, authenticationTypes: ['PASSWORD'], httpsEnabled: true,
            passwordFile: tmp.file('password.db', `${bcryptLine('alice', 'alice-secret')}\n${bcryptLine('bob', 'bob-secret')}\n`),
            httpsKeystorePath: tmp.file('keystore.pem', `${certificate.key}${certificate.cert}`),
            securityConfigFile: tmp.file('rules.json', JSON.stringify({ impersonation: [{ original_user: 'alice|bob', new_user: 'robot' }] })),
          },
          resourceGroups: { resourceGroups: config },
          userGroups: (user) => provider.groupsOf(user),
        });
        const server: RunningServer = await startServer(coordinator, { host: '127.0.0.1', port: 0, httpsPort: 0, accessControl: createAccessControl(coordinator.config) });
        return { coordinator, server, url: server.url, httpsUrl: server.httpsUrl!, stop: async () => { await server.close(); await coordinator.stop(); } };
      });

      async function groupOf(credential: string, user?: string): Promise<string[]> {
        const headers = { Authorization: credential, ...(user ? { 'X-Trino-User': user } : {}) };
        const posted = await send('POST', `${tls.server.httpsUrl}/v1/statement`, { ca: tls.certificate.cert, headers, body: 'SELECT 1' });
        expect(posted.status).to.equal(200);
        validateResponse('statement-initial', posted.body);
        const info = await send('GET', `${tls.server.httpsUrl}/v1/query/${posted.body.id}`, { ca: tls.certificate.cert, headers });
        expect(info.status).to.equal(200);
        validateResponse('query-info', info.body);
        return info.body.resourceGroupId;
      }

      it('selects by the principal (authenticatedUser) and by the user\'s groups in the group file (userGroup)', async () => {
        expect(await groupOf(basic('alice', 'alice-secret'))).to.deep.equal(['global', 'by_alice']);
        expect(await groupOf(basic('alice', 'alice-secret'), 'robot')).to.deep.equal(['global', 'by_alice']);
        expect(await groupOf(basic('bob', 'bob-secret'))).to.deep.equal(['global', 'admins']);
        // bob acting as robot: robot's groups (none) count, not bob's, and bob's principal is not alice
        expect(await groupOf(basic('bob', 'bob-secret'), 'robot')).to.deep.equal(['global', 'other']);
      });
    });
  });
});
