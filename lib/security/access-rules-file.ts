// The rules file over time (security.refresh-period). As Trino (a supplier memoized with expiry), the
// file is read at start, then again at the first access check once the period has passed since the last
// read: no timer runs, and time comes from an injected clock. While the file is invalid, every check
// fails with CONFIGURATION_INVALID (Trino's checks throw the parse error): a broken file never falls
// back to allowing everything, nor silently keeps the old rules. Unlike Trino, a failed read is also kept
// for one period, so a broken file is re-read once per period rather than at every request.
import { defaultLogger, type Logger } from '../log/logger.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { loadAccessRulesFile, type AccessRules } from './access-rules.js';

export interface Clock {
  now(): number;
}

export interface AccessRulesFileOptions {
  /** undefined: read once, at start (Trino's default) */
  refreshPeriodMs?: number;
  clock?: Clock;
  /**
   * Told when a re-read finds the file broken, once per problem (the same one found again at the next
   * period is not told again); by default a warn line on `logger`.
   */
  onInvalid?: (error: VivaceError) => void;
  /** Where the default onInvalid writes (default: the process's logger, as it is when the line is written). */
  logger?: Logger;
  /** for specs: how a file becomes rules */
  load?: (path: string) => AccessRules;
}

/**
 * The file's path and what is wrong with it: the messages of loadAccessRulesFile name the place (a
 * section, a rule's index, a property) and never quote the file beyond a rule's pattern.
 */
function logInvalid(logger: Logger, path: string, error: VivaceError): void {
  logger.warn({ component: 'access-control', event: 'access_rules_invalid', path, errorName: error.errorName, message: error.message });
}

export class AccessRulesFile {
  private rules: AccessRules | undefined;
  private failure: VivaceError | undefined;
  private readAt: number;
  /** The problem last told, so that a file broken the same way is told once, not once per period. */
  private lastProblem: string | undefined;
  private readonly clock: Clock;
  private readonly load: (path: string) => AccessRules;
  private readonly onInvalid: (error: VivaceError) => void;

  /** Reads the file at once: an invalid file (or refresh period) is a startup error. */
  constructor(
    readonly path: string,
    private readonly options: AccessRulesFileOptions = {},
  ) {
    const period = options.refreshPeriodMs;
    if (period !== undefined && !(period > 0)) {
      throw new VivaceError('CONFIGURATION_INVALID', `security.refresh-period must be greater than zero: ${period} ms`);
    }
    this.clock = options.clock ?? Date;
    this.load = options.load ?? loadAccessRulesFile;
    this.onInvalid = options.onInvalid ?? ((error) => logInvalid(options.logger ?? defaultLogger(), path, error));
    this.rules = this.load(path);
    this.readAt = this.clock.now();
  }

  /** The rules in force; throws CONFIGURATION_INVALID while the file is invalid. */
  current(): AccessRules {
    const period = this.options.refreshPeriodMs;
    if (period !== undefined && this.clock.now() - this.readAt >= period) this.reread();
    if (this.failure !== undefined) throw this.failure;
    return this.rules!;
  }

  private reread(): void {
    this.readAt = this.clock.now();
    try {
      this.rules = this.load(this.path);
      this.failure = undefined;
      this.lastProblem = undefined;
    } catch (err) {
      this.rules = undefined;
      // Clients learn that the rules are broken, not where the file is or what it holds: that goes to the log.
      this.failure = new VivaceError('CONFIGURATION_INVALID', 'Access control rules are invalid: every access check fails until the rules file is fixed', { cause: err });
      const problem = VivaceError.from(err);
      if (problem.message === this.lastProblem) return;
      this.lastProblem = problem.message;
      this.onInvalid(problem);
    }
  }
}
