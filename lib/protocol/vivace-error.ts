// The one error type of the project: a Presto error name, a message, and optionally where in the SQL.
import { ERROR_CODES, type ErrorName } from './error-codes.js';
import type { ErrorLocation, FailureInfo, QueryError } from './types.js';

export class VivaceError extends Error {
  readonly errorName: ErrorName;
  readonly errorLocation?: ErrorLocation;
  /** For errors about the HTTP request itself (not a query failure): the status to answer with. */
  readonly httpStatus?: number;

  constructor(
    errorName: ErrorName,
    message: string,
    options: { location?: ErrorLocation; cause?: unknown; httpStatus?: number } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'VivaceError';
    this.errorName = errorName;
    this.errorLocation = options.location;
    this.httpStatus = options.httpStatus;
  }

  get errorCode(): number {
    return ERROR_CODES[this.errorName].code;
  }

  /** Any thrown value becomes a VivaceError; unknown errors are GENERIC_INTERNAL_ERROR. */
  static from(err: unknown): VivaceError {
    if (err instanceof VivaceError) return err;
    const message = err instanceof Error ? err.message : String(err);
    return new VivaceError('GENERIC_INTERNAL_ERROR', message || 'Internal error', { cause: err });
  }

  /** The `error` object of a statement response. */
  toQueryError(): QueryError {
    const info = ERROR_CODES[this.errorName];
    const failureInfo: FailureInfo = {
      type: javaTypeFor(this.errorName),
      message: this.message,
      suppressed: [],
      stack: (this.stack ?? '').split('\n').slice(1, 12).map((l) => l.trim()),
      ...(this.errorLocation ? { errorLocation: this.errorLocation } : {}),
    };
    return {
      message: this.message,
      errorCode: info.code,
      errorName: this.errorName,
      errorType: info.type,
      ...(this.errorLocation ? { errorLocation: this.errorLocation } : {}),
      failureInfo,
    };
  }
}

/** Exception class names upstream clients show for a failure type. */
function javaTypeFor(name: ErrorName): string {
  if (name === 'SYNTAX_ERROR') return 'io.trino.sql.parser.ParsingException';
  return 'io.trino.spi.TrinoException';
}
