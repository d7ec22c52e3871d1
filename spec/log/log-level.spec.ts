// log.level: pino's level names in any case; anything else stops the start with a clear error.
import { expect } from 'chai';
import fc from 'fast-check';
import { defaultConfig, parseConfigProperties } from '../../lib/config.js';
import { LOG_LEVELS, parseLogLevel } from '../../lib/log/log-level.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { captureLog } from '../support/log-capture.js';

describe('log: log.level', () => {
  it('reads each level in any case from the properties file; info by default', () => {
    expect(defaultConfig().logLevel).to.equal('info');
    expect(parseConfigProperties('log.level=DEBUG\n')).to.include({ logLevel: 'debug' });
    expect(parseConfigProperties('log.level = Warn\n')).to.include({ logLevel: 'warn' });
    for (const level of LOG_LEVELS) expect(parseLogLevel(level.toUpperCase())).to.equal(level);
  });

  it('refuses any other text with INVALID_ARGUMENTS, quoting at most 40 characters of it', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 10_000 }), (text) => {
        try {
          expect(LOG_LEVELS).to.include(parseLogLevel(text));
        } catch (err) {
          expect(err).to.be.instanceOf(VivaceError);
          expect((err as VivaceError).errorName).to.equal('INVALID_ARGUMENTS');
          expect((err as VivaceError).message.length).to.be.below(200);
        }
      }),
      { numRuns: 500 },
    );
    expect(() => parseConfigProperties('log.level=verbose\n')).to.throw(/log\.level: unknown level "verbose"/);
  });

  it('filters lines below the level', () => {
    const log = captureLog('warn');
    log.logger.info({ event: 'a' });
    log.logger.debug({ event: 'b' });
    log.logger.warn({ event: 'c' });
    log.logger.error({ event: 'd' });
    expect(log.lines().map((l) => [l.event, l.level])).to.deep.equal([
      ['c', 'warn'],
      ['d', 'error'],
    ]);
  });
});
