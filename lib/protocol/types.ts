// Wire-level shapes shared by every layer: sessions, columns, type signatures, errors.
// Pure data; no XState, no Koa, no DuckDB.

/** Which header family a request used; every response header is written back with it. */
export type HeaderPrefix = 'X-Service-' | 'X-Presto-' | 'X-Trino-';

/** Dialect for the few JSON shapes where prestodb and Trino clients disagree (ROW type signatures). */
export type ProtocolDialect = 'presto' | 'trino';

/** A Presto/Trino type as structured data; `formatType` renders `decimal(10,2)`, `row(a bigint, b varchar)`. */
export type PrestoType =
  | { base: string; params?: undefined }
  | { base: 'varchar' | 'char' | 'varbinary'; length?: number; params?: undefined }
  | { base: 'decimal'; precision: number; scale: number; params?: undefined }
  | { base: 'timestamp' | 'time' | 'timestamp with time zone' | 'time with time zone'; precision: number; params?: undefined }
  | { base: 'array'; params: [PrestoType] }
  | { base: 'map'; params: [PrestoType, PrestoType] }
  | { base: 'row'; params: PrestoType[]; fieldNames: (string | undefined)[] };

export interface ClientTypeSignature {
  rawType: string;
  arguments: ClientTypeSignatureArgument[];
  /** prestodb clients also read the deprecated arrays. */
  typeArguments?: ClientTypeSignature[];
  literalArguments?: unknown[];
}

export type ClientTypeSignatureArgument =
  | { kind: 'TYPE'; value: ClientTypeSignature }
  | { kind: 'LONG'; value: number }
  | { kind: 'NAMED_TYPE'; value: { fieldName?: { name: string; delimited?: boolean }; typeSignature: ClientTypeSignature | string } };

/** A result column as the statement response carries it. */
export interface Column {
  name: string;
  type: string;
  typeSignature: ClientTypeSignature;
}

/** A result column before rendering for a dialect: the engine produces these. */
export interface OutputColumn {
  name: string;
  type: PrestoType;
}

/** Session of one query, built from the request headers of the POST. */
export interface Session {
  prefix: HeaderPrefix;
  user: string;
  source?: string;
  catalog?: string;
  schema?: string;
  timeZone?: string;
  language?: string;
  clientInfo?: string;
  clientTags: string[];
  traceToken?: string;
  /** SET SESSION values sent back by the client in the Session header. */
  properties: Record<string, string>;
  /** name -> SQL, from the Prepared-Statement header. */
  preparedStatements: Record<string, string>;
  /** undefined: header absent (client does not support transactions); 'NONE' or an id otherwise. */
  transactionId?: string;
  remoteUserAddress: string;
  userAgent?: string;
  /** The principal the request authenticated as (absent without authentication): resource-group selection's authenticatedUser. */
  authenticatedUser?: string;
  /** epoch milliseconds */
  startTime: number;
  /**
   * Spooling protocol: the encoding negotiated from Query-Data-Encoding for a query (SELECT, VALUES, WITH,
   * TABLE); absent: `data` as arrays. Travels with the session to the worker that spools the rows.
   */
  queryDataEncoding?: 'json' | 'json+zstd' | 'json+lz4';
}

export type ErrorType = 'USER_ERROR' | 'INTERNAL_ERROR' | 'INSUFFICIENT_RESOURCES' | 'EXTERNAL';

export interface ErrorLocation {
  lineNumber: number;
  columnNumber: number;
}

export interface FailureInfo {
  type: string;
  message?: string;
  cause?: FailureInfo;
  suppressed: FailureInfo[];
  stack: string[];
  errorLocation?: ErrorLocation;
}

/** The `error` object of a failed statement response. */
export interface QueryError {
  message: string;
  errorCode: number;
  errorName: string;
  errorType: ErrorType;
  retriable?: boolean;
  errorLocation?: ErrorLocation;
  failureInfo: FailureInfo;
}

/** Session changes a statement asks the client to make (response headers Set-Catalog, Set-Session, ...). */
export interface SessionUpdates {
  setCatalog?: string;
  setSchema?: string;
  setSessionProperties?: Record<string, string>;
  resetSessionProperties?: string[];
  addedPreparedStatements?: Record<string, string>;
  deallocatedPreparedStatements?: string[];
  startedTransactionId?: string;
  clearTransactionId?: boolean;
  /** SET ROLE: catalog (`system` for the system role) -> the role as Trino's SelectedRole prints it (ALL, NONE, ROLE{r}). */
  setRoles?: Record<string, string>;
}
