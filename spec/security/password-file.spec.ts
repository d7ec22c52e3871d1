// The password file as Trino's file authenticator reads it: bcrypt and PBKDF2 hashes with Trino's floors,
// startup errors naming the line (never the hash), re-reads on the refresh schedule (an injected clock,
// no sleeping), a cache of successes only, and a broken re-read that refuses every password.
import { expect } from 'chai';
import fc from 'fast-check';
import sinon from 'sinon';
import bcrypt from 'bcryptjs';
import { rmSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { checkPassword, limitPendingChecks, TooManyPasswordChecks } from '../../lib/security/password-check-worker.js';
import { matches, parsePasswordFile, PasswordFile } from '../../lib/security/password-file.js';
import { bcryptLine, pbkdf2Line, tempDir, type TempDir } from './auth-fixtures.js';
import type { Logger } from '../../lib/log/logger.js';
import { captureLog } from '../support/log-capture.js';

function parseError(text: string): VivaceError {
  try {
    parsePasswordFile(text);
  } catch (err) {
    expect(err).to.be.instanceOf(VivaceError);
    return err as VivaceError;
  }
  throw new Error('parsed');
}

describe('security: password file', () => {
  let dir: TempDir;
  const alice = bcryptLine('alice', 'alice-pw');
  const bob = pbkdf2Line('bob', 'bob-pw');
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => {
    sinon.restore();
    dir.remove();
  });

  describe('parsing', () => {
    it('reads bcrypt ($2a$, $2b$, $2y$) and PBKDF2 lines, skipping blank lines, with CRLF or CR line ends', () => {
      const users = parsePasswordFile(`\n${alice}\r\n  \r${bob}\r\n${bcryptLine('carol', 'c', '$2a$')}\n${bcryptLine('dave', 'd', '$2b$')}\n`);
      expect([...users.keys()]).to.deep.equal(['alice', 'bob', 'carol', 'dave']);
      expect(users.get('alice')?.kind).to.equal('bcrypt');
      expect(users.get('bob')?.kind).to.equal('pbkdf2');
    });

    it('names the line of each of Trino’s refusals', () => {
      const cases: [string, string][] = [
        ['no-colon-here', 'Expected two parts for user and password'],
        [`alice:${bcrypt.hashSync('x', 4)}`, 'Minimum cost of BCrypt password must be 8'],
        ['alice:999:00ff:00ff', 'Minimum iterations of PBKDF2 password must be 1000'],
        ['alice:plaintext', 'Password hashing algorithm cannot be determined'],
        ['alice:$2y$10$tooshort', 'Invalid BCrypt password'],
        ['alice:1000:00FF:00ff', 'Invalid PBKDF2 password'],
        ['alice:1000:0f:', 'Invalid PBKDF2 password'],
        ['alice:1000:abc:00', 'Invalid PBKDF2 password'],
        ['alice:1000:00:11:22', 'Invalid PBKDF2 password'],
        ['alice:-1000:00:11', 'Invalid PBKDF2 password'],
        [`alice:$2x$${bcrypt.hashSync('x', 8).slice(4)}`, 'Unsupported BCrypt version $2x$'],
        [`alice:${bcrypt.hashSync('x', 8).replace('$08$', '$17$')}`, 'Maximum cost of BCrypt password is 16'],
        ['alice:10000001:00:11', 'Maximum iterations of PBKDF2 password is 10000000'],
        [`:${bcrypt.hashSync('x', 8)}`, 'User is empty'],
      ];
      for (const [line, message] of cases) {
        const err = parseError(`${alice}\n\n${line}\n`);
        expect(err.errorName, line).to.equal('CONFIGURATION_INVALID');
        expect(err.message, line).to.equal(`Error in password file line 3: ${message}${message.startsWith('Unsupported') ? ' (use $2a$, $2b$ or $2y$)' : ''}`);
      }
      expect(parseError(`${alice}\n${bcryptLine('alice', 'other')}`).message).to.equal('Error in password file line 2: Duplicate user: alice');
    });

    it('never puts a hash in its message, and answers any text with users or a line-numbered error (fast-check)', () => {
      const piece = fc.oneof(
        fc.constantFrom(alice, bob, ':', '$2y$', '$2y$08$', '$2x$', '1000:', 'ab', '\n', '\r\n', ' ', '\u0000', 'é'),
        fc.string({ unit: 'binary', maxLength: 40 }),
      );
      fc.assert(
        fc.property(fc.array(piece, { maxLength: 12 }).map((p) => p.join('')), (text) => {
          try {
            parsePasswordFile(text);
          } catch (err) {
            expect(err).to.be.instanceOf(VivaceError);
            const { message } = err as VivaceError;
            expect(message).to.match(/^Error in password file line \d+: /u);
            for (const line of [alice, bob]) expect(message).to.not.include(line.slice(line.indexOf(':') + 1));
          }
        }),
        { numRuns: 500 },
      );
    });

    it('is a startup error when the file cannot be read', () => {
      const path = `${dir.path}/missing`;
      expect(() => new PasswordFile({ path, refreshPeriodMs: 5000, cacheMaxSize: 10 }))
        .to.throw(VivaceError, `Failed to read password file: ${path} (ENOENT)`)
        .with.property('errorName', 'CONFIGURATION_UNAVAILABLE');
    });
  });

  describe('verification', () => {
    let now: number;
    const open = (text: string, options: { cacheTtlMs?: number; logger?: Logger; matches?: typeof matches } = {}) =>
      new PasswordFile({ path: dir.file('password.db', text), refreshPeriodMs: 5000, cacheMaxSize: 2, now: () => now, ...options });
    beforeEach(() => {
      now = 1_000_000;
    });

    it('accepts the right bcrypt ($2y$) and PBKDF2 passwords and nothing else', async () => {
      const file = open(`${alice}\n${bob}\n`);
      expect(await file.verify('alice', 'alice-pw')).to.equal(true);
      expect(await file.verify('bob', 'bob-pw')).to.equal(true);
      expect(await file.verify('alice', 'bob-pw')).to.equal(false);
      expect(await file.verify('bob', 'alice-pw')).to.equal(false);
      expect(await file.verify('mallory', 'alice-pw')).to.equal(false);
      expect(await file.verify('alice', '')).to.equal(false);
    });

    it('checks an unknown user against a hash of the file, so it answers as slowly as a known one, and refuses it', async () => {
      const compare = sinon.spy(matches);
      const file = open(`${alice}\n${bob}\n`, { matches: compare });
      expect(await file.verify('mallory', 'alice-pw')).to.equal(false);
      expect(compare.callCount).to.equal(1);
      expect(compare.firstCall.args[0]).to.deep.include({ kind: 'bcrypt', hash: alice.slice('alice:'.length) });
    });

    it('refuses a password beyond bcrypt’s 72 bytes even when its prefix matches', async () => {
      const long = 'x'.repeat(72);
      const file = open(bcryptLine('alice', long));
      expect(await file.verify('alice', long)).to.equal(true);
      expect(await file.verify('alice', `${long}and-more`)).to.equal(false);
    });

    it('caches successes for a while, never failures, and at most cacheMaxSize of them', async () => {
      const compare = sinon.spy(matches);
      const file = open(`${alice}\n${bcryptLine('carol', 'carol-pw')}\n${bcryptLine('dave', 'dave-pw')}`, { cacheTtlMs: 60_000, matches: compare });
      expect(await file.verify('alice', 'alice-pw')).to.equal(true);
      expect(await file.verify('alice', 'alice-pw')).to.equal(true);
      expect(compare.callCount, 'a success is cached').to.equal(1);
      expect(await file.verify('alice', 'wrong')).to.equal(false);
      expect(await file.verify('alice', 'wrong')).to.equal(false);
      expect(compare.callCount, 'a wrong password is checked every time').to.equal(3);
      now += 60_000;
      expect(await file.verify('alice', 'alice-pw')).to.equal(true);
      expect(compare.callCount, 'the entry expired').to.equal(4);
      await file.verify('carol', 'carol-pw');
      await file.verify('dave', 'dave-pw'); // evicts alice (max size 2)
      expect(await file.verify('alice', 'alice-pw')).to.equal(true);
      expect(compare.callCount).to.equal(7);
    });

    it('re-reads the file after the refresh period: new passwords count, removed users and the cache go', async () => {
      const compare = sinon.spy(matches);
      const file = open(`${alice}\n`, { matches: compare });
      expect(await file.verify('alice', 'alice-pw')).to.equal(true);
      dir.file('password.db', `${bcryptLine('alice', 'new-pw')}\n${bob}\n`);
      now += 4999;
      expect(await file.verify('alice', 'alice-pw'), 'not yet re-read').to.equal(true);
      now += 1;
      expect(await file.verify('alice', 'alice-pw'), 're-read').to.equal(false);
      expect(await file.verify('alice', 'new-pw')).to.equal(true);
      expect(await file.verify('bob', 'bob-pw')).to.equal(true);
      expect(compare.callCount, 'alice before, alice twice after (cache dropped), bob').to.equal(4);
    });

    it('decides a check that straddles a re-read by the new file', async () => {
      let straddle = true;
      const file: PasswordFile = open(`${alice}\n`, {
        matches: async (hashed, password) => {
          const ok = await matches(hashed, password);
          if (straddle) {
            straddle = false;
            dir.file('password.db', `${bcryptLine('alice', 'new-pw')}\n`);
            now += 5000;
            await file.verify('someone', 'else'); // re-reads the file
          }
          return ok;
        },
      });
      expect(await file.verify('alice', 'alice-pw')).to.equal(false);
      expect(await file.verify('alice', 'new-pw')).to.equal(true);
    });

    it('refuses every password while a re-read file is broken or gone, logs it once without the hash, and recovers', async () => {
      const log = captureLog('info');
      const file = open(`${alice}\n`, { logger: log.logger });
      expect(await file.verify('alice', 'alice-pw')).to.equal(true);
      dir.file('password.db', `${alice}\nbob:${bob.slice(4, 20)}\n`);
      now += 5000;
      expect(await file.verify('alice', 'alice-pw')).to.equal(false);
      now += 5000;
      expect(await file.verify('alice', 'alice-pw')).to.equal(false);
      expect(log.lines()).to.have.length(1);
      const { time, pid, hostname, ...line } = log.lines()[0]!;
      expect([typeof time, typeof pid, typeof hostname]).to.deep.equal(['string', 'number', 'string']);
      expect(line).to.deep.equal({
        level: 'warn',
        component: 'authentication',
        event: 'password_file_invalid',
        path: `${dir.path}/password.db`,
        errorName: 'CONFIGURATION_INVALID',
        message: 'Error in password file line 2: Invalid PBKDF2 password',
      });
      rmSync(`${dir.path}/password.db`);
      now += 5000;
      expect(await file.verify('alice', 'alice-pw')).to.equal(false);
      expect(log.lines()[1]!.message).to.match(/^Failed to read password file: .*password\.db \(ENOENT\)$/u);
      dir.file('password.db', `${alice}\n`);
      now += 5000;
      expect(await file.verify('alice', 'alice-pw')).to.equal(true);
      expect(log.chunks().join('\n')).to.not.include(alice.slice(6));
    });

    it('checks on a worker thread: concurrent wrong passwords never hold the event loop', async () => {
      // bcrypt cost 11 (~140 ms each in bcryptjs): on the main thread, 6 at once held the loop for most of a second.
      const file = open(`alice:${bcrypt.hashSync('alice-pw', 11)}\n${pbkdf2Line('bob', 'bob-pw', 200_000)}\n`);
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      const attempts: [string, string][] = [['alice', 'w1'], ['alice', 'w2'], ['bob', 'w3'], ['alice', 'w4'], ['bob', 'bob-pw'], ['alice', 'alice-pw']];
      const results = await Promise.all(attempts.map(([user, pw]) => file.verify(user, pw)));
      delay.disable();
      expect(results).to.deep.equal([false, false, false, false, true, true]);
      expect(delay.max / 1e6, 'longest event-loop delay, ms').to.be.below(50);
    });

    it('refuses a check at once when too many are queued (TooManyPasswordChecks, answered 503)', async () => {
      const restore = limitPendingChecks(2);
      try {
        const hash = bcrypt.hashSync('x', 10);
        const check = (password: string) => checkPassword({ kind: 'bcrypt', password, hash });
        const first = [check('a'), check('b')];
        await check('c').then(
          () => expect.fail('accepted'),
          (err: unknown) => expect(err).to.be.instanceOf(TooManyPasswordChecks),
        );
        expect(await Promise.all(first)).to.deep.equal([false, false]);
        expect(await check('x')).to.equal(true);
      } finally {
        restore();
      }
    });
  });
});
