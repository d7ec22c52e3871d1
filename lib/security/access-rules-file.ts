// The rules file over time (security.refresh-period). As Trino (a supplier memoized with expiry), the
// file is read at start, then again at the first access check once the period has passed since the last
// read: no timer runs, and time comes from an injected clock. While the file is invalid, every check
// fails with CONFIGURATION_INVALID (Trino's checks throw the parse error): a broken file never falls
// back to allowing everything, nor silently keeps the old rules. Unlike Trino, a failed read is also kept
// for one period, so a broken file is re-read once per period rather than at every request.
import { VivaceError } from '../protocol/vivace-error.js';
import { loadAccessRulesFile, type AccessRules } from './access-rules.js';

export interface Clock {
  now(): number;
}

export interface AccessRulesFileOptions {
  /** undefined: read once, at start (Trino's default) */
  refreshPeriodMs?: number;
  clock?: Clock;
  /** told once per failed re-read, with the reason; by default one JSON line on stderr */
  onInvalid?: (error: VivaceError) => void;
  /** for specs: how a file becomes rules */
  load?: (path: string) => AccessRules;
}

function logInvalid(error: VivaceError): void {
  console.error(JSON.stringify({ level: 'error', event: 'access_rules_invalid', errorName: error.errorName, message: error.message }));
}

export class AccessRulesFile {
  private rules: AccessRules | undefined;
  private failure: VivaceError | undefined;
  private readAt: number;
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
    this.onInvalid = options.onInvalid ?? logInvalid;
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
    } catch (err) {
      this.rules = undefined;
      // Clients learn that the rules are broken, not where the file is or what it holds: that goes to the log.
      this.failure = new VivaceError('CONFIGURATION_INVALID', 'Access control rules are invalid: every access check fails until the rules file is fixed', { cause: err });
      this.onInvalid(VivaceError.from(err));
    }
  }
}
