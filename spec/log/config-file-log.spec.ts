// The log lines of files read while the server runs: the access rules file, the password file and the
// memory catalog's declared types. Each problem is one warn line naming the file and what is wrong, never what the
// file holds (rules, users' view SQL); JSON.parse's own message quotes the input, so it is cut.
import { expect } from 'chai';
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeclaredColumns } from '../../lib/engine/catalogs/declared-columns.js';
import { jsonSyntaxProblem } from '../../lib/log/json-syntax.js';
import { setDefaultLogger } from '../../lib/log/logger.js';
import { createAccessControl } from '../../lib/security/access-control.js';
import { createCoordinator } from '../../lib/actors/coordinator.js';
import { startServer } from '../../lib/http/server.js';
import { basic, bcryptLine, makeCertificate, send } from '../security/auth-fixtures.js';
import { createTestEngine } from '../support/duckdb.js';
import { captureLog, type LogLine } from '../support/log-capture.js';
import { expectValid } from '../support/schema-validator.js';

/** Text that must never reach a log line. */
const MARKER = 'zq-private-marker-81';

describe('log: files read at run time', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-file-log-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The fields a spec compares: pino's own (time, pid, hostname) left out. */
  const fields = ({ time: _time, pid: _pid, hostname: _hostname, ...rest }: LogLine) => rest;

  describe('the access rules file', () => {
    it('a file that breaks: one warn line with its path and no contents, however often it is re-read; fixed and broken again: one more', () => {
      const path = join(dir, 'rules.json');
      writeFileSync(path, JSON.stringify({ catalogs: [{ user: 'alice', catalog: 'tpch', allow: 'all' }] }));
      const clock = { t: 0, now: () => clock.t };
      const log = captureLog('info');
      const access = createAccessControl({ securityConfigFile: path, securityRefreshPeriodMs: 1_000 }, { clock, logger: log.logger });
      expect(access.catalogAccess('alice', 'tpch')).to.equal('all');

      writeFileSync(path, `{"catalogs": [{"user": "${MARKER}", "catalog": x}]}`);
      for (let i = 0; i < 3; i++) {
        clock.t += 1_000;
        expect(() => access.catalogAccess('alice', 'tpch')).to.throw('Access control rules are invalid');
      }
      expect(log.lines().map(fields)).to.deep.equal([
        {
          level: 'warn',
          component: 'access-control',
          event: 'access_rules_invalid',
          path,
          errorName: 'CONFIGURATION_INVALID',
          message: `Invalid JSON in access control rules file ${path}: Unexpected token 'x': not valid JSON`,
        },
      ]);

      writeFileSync(path, JSON.stringify({ catalogs: [{ catalog: 'tpch', allow: 'read-only' }] }));
      clock.t += 1_000;
      expect(access.catalogAccess('alice', 'tpch')).to.equal('read-only');
      writeFileSync(path, JSON.stringify({ catalogs: [{ user: MARKER, allow: 'everything' }] }));
      clock.t += 1_000;
      expect(() => access.catalogAccess('alice', 'tpch')).to.throw('Access control rules are invalid');
      expect(log.lines()).to.have.length(2);
      expect(log.lines()[1]).to.include({ level: 'warn', event: 'access_rules_invalid', path });
      expect(log.lines()[1]!.message).to.include('/catalogs/0/allow: must be one of all, read-only, none');
      expect(log.chunks().join('')).not.to.include(MARKER);
      access.close();
    });

    it('goes to the process logger when none is given, at its level', () => {
      const path = join(dir, 'rules.json');
      writeFileSync(path, '{}');
      const clock = { t: 0, now: () => clock.t };
      const quiet = captureLog('error');
      const previous = setDefaultLogger(quiet.logger);
      try {
        const access = createAccessControl({ securityConfigFile: path, securityRefreshPeriodMs: 1_000 }, { clock });
        writeFileSync(path, MARKER);
        clock.t += 1_000;
        expect(() => access.canReadSystemInformation('alice')).to.throw('Access control rules are invalid');
        expect(quiet.lines(), 'a warn line under log.level=error').to.deep.equal([]);
        const loud = captureLog('warn');
        setDefaultLogger(loud.logger);
        writeFileSync(path, `{"queries": "${MARKER}"}`);
        clock.t += 1_000;
        expect(() => access.canReadSystemInformation('alice')).to.throw('Access control rules are invalid');
        expect(loud.lines().map((l) => [l.level, l.event, l.path])).to.deep.equal([['warn', 'access_rules_invalid', path]]);
        expect(loud.chunks().join('')).not.to.include(MARKER);
      } finally {
        setDefaultLogger(previous);
      }
    });
  });

  describe('the password file of a running server', () => {
    it("a broken re-read is one warn line on the server's logger, with the file's path, no hash and no password", async () => {
      const password = join(dir, 'password.db');
      writeFileSync(password, `${bcryptLine('alice', 'alice-secret')}\n`);
      const certificate = await makeCertificate();
      writeFileSync(join(dir, 'keystore.pem'), `${certificate.key}${certificate.cert}`);
      const clock = { t: Date.now() };
      const coordinator = createCoordinator({
        engine: await createTestEngine(1),
        now: () => clock.t,
        config: { trackerIntervalMs: 60_000, authenticationTypes: ['PASSWORD'], passwordFile: password, httpsEnabled: true, httpsKeystorePath: join(dir, 'keystore.pem') },
      });
      const log = captureLog('info');
      const server = await startServer(coordinator, { host: '127.0.0.1', port: 0, httpsPort: 0, logger: log.logger });
      const query = () => send('GET', `${server.httpsUrl!}/v1/query`, { ca: certificate.cert, headers: { Authorization: basic('alice', 'alice-secret') } });
      try {
        expect((await query()).status).to.equal(200);
        const broken = `alice:$2y$08$${MARKER}`;
        writeFileSync(password, `${broken}\n`);
        clock.t += 5_000;
        const refused = await query();
        expect(refused.status).to.equal(401);
        expectValid('error', refused.body);
      } finally {
        await server.close();
        await coordinator.stop();
      }
      const lines = log.lines().filter((l) => l.event === 'password_file_invalid');
      expect(lines.map(fields)).to.deep.equal([
        { level: 'warn', component: 'authentication', event: 'password_file_invalid', path: password, errorName: 'CONFIGURATION_INVALID', message: 'Error in password file line 1: Invalid BCrypt password' },
      ]);
      expect(log.chunks().join('')).not.to.include(MARKER).and.not.to.include('alice-secret');
    });
  });

  describe("the memory catalog's declared types", () => {
    it('an unreadable file: one warn line with its path and the kind of problem, not the views\' SQL it holds', () => {
      const file = join(dir, 'declared-columns.json');
      writeFileSync(file, `{"version": 1, "tables": [], "views": [["k", "SELECT '${MARKER}'"]], oops}`);
      const log = captureLog('info');
      const declared = new DeclaredColumns({ file, logger: log.logger });
      expect(declared.viewSql({ catalog: 'memory', schema: 'default', table: 'k' })).to.equal(undefined);
      expect(log.lines().map(fields)).to.deep.equal([
        {
          level: 'warn',
          component: 'memory-catalog',
          event: 'declared_columns_unreadable',
          path: file,
          message: 'Expected double-quoted property name in JSON at position 80',
        },
      ]);
      expect(log.chunks().join('')).not.to.include(MARKER);
    });

    it('a file of an unknown form likewise; a missing file is no problem', () => {
      const log = captureLog('info');
      new DeclaredColumns({ file: join(dir, 'absent.json'), logger: log.logger });
      const file = join(dir, 'declared-columns.json');
      writeFileSync(file, JSON.stringify({ version: 2, tables: [[MARKER, []]] }));
      new DeclaredColumns({ file, logger: log.logger });
      expect(log.lines().map((l) => [l.level, l.event, l.path, l.message])).to.deep.equal([['warn', 'declared_columns_unreadable', file, 'unknown form']]);
    });
  });

  describe('jsonSyntaxProblem', () => {
    it('never repeats the text JSON.parse failed on (fast-check)', () => {
      const around = fc.string({ maxLength: 40 });
      fc.assert(
        fc.property(around, around, (before, after) => {
          const text = `${before}${MARKER}${after}`;
          let problem: string | undefined;
          try {
            JSON.parse(text);
          } catch (err) {
            problem = jsonSyntaxProblem(err);
          }
          // Valid only when the marker lands inside a string literal: nothing to report then.
          fc.pre(problem !== undefined);
          expect(problem).not.to.include(MARKER.slice(0, 6));
        }),
        { numRuns: 500 },
      );
    });

    it("keeps V8's kind and position", () => {
      const problemOf = (text: string) => {
        try {
          JSON.parse(text);
          return undefined;
        } catch (err) {
          return jsonSyntaxProblem(err);
        }
      };
      expect(problemOf('{"a": 1,}')).to.match(/^Expected double-quoted property name in JSON at position 8/u);
      expect(problemOf('[1, 2')).to.match(/end of JSON input|in JSON at position 5/u);
      expect(problemOf(`"${MARKER}`)).not.to.include(MARKER);
      expect(problemOf(`nope ${MARKER}`)).to.equal("Unexpected token 'o': not valid JSON");
    });
  });
});
