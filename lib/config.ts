// Coordinator configuration: defaults as upstream Presto where it has one, and a Presto-style
// properties file (`query.max-history=100`) to override them.
import { vivaceVersion } from './protocol/vivace-version.js';
import { readFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { parseDataSize } from './protocol/data-size.js';
import { parseDuration } from './protocol/duration.js';
import { VivaceError } from './protocol/vivace-error.js';
import { parseLogLevel, type LogLevel } from './log/log-level.js';
import { DEFAULT_LOCAL_WORKERS_NICE, parseNice } from './cluster/process-priority.js';
import { defaultSpoolingConfig, SPOOLING_PROPERTIES, type SpoolingConfig } from './spooling/spooling-config.js';

/** The spooling protocol's settings live in spooling/spooling-config.ts. */
export interface CoordinatorConfig extends SpoolingConfig {
  host: string;
  port: number;
  environment: string;
  /** the structured log's level (log.level: fatal, error, warn, info, debug, trace, silent) */
  logLevel: LogLevel;
  nodeVersion: string;
  /** queries executing at once; keep below UV_THREADPOOL_SIZE (engine.md) */
  maxRunningQueries: number;
  /** past this many waiting queries a new one fails with QUERY_QUEUE_FULL */
  maxQueuedQueries: number;
  /** finished queries always kept (query.max-history) */
  maxHistory: number;
  /** finished queries younger than this are kept too (query.min-expire-age)... */
  minExpireAgeMs: number;
  /** ...but never more than this many, so a burst cannot grow memory without bound */
  maxHistoryHard: number;
  /** a query whose client has not polled for this long fails with ABANDONED_QUERY (query.client.timeout) */
  clientTimeoutMs: number;
  /** enforced by the tracker's sweep (query.max-run-time) */
  maxRunTimeMs: number;
  /** planning alone (Trino's query.max-planning-time, 10m) */
  maxPlanningTimeMs: number;
  /** from the start of planning, queueing excluded (Trino's query.max-execution-time, 100d) */
  maxExecutionTimeMs: number;
  /** how often the tracker sweeps (1 s upstream) */
  trackerIntervalMs: number;
  /** JSON bytes of rows per statement page */
  targetResultBytes: number;
  prefetchPages: number;
  /** longest wait of a statement GET for new results */
  longPollMs: number;
  maxQueryLength: number;
  maxBodyBytes: number;
  /** where generated data (tpch) lives */
  dataDirectory: string;
  /** the durable query history under `<data.directory>/history` (query.history.enabled, ours; serve only) */
  queryHistoryEnabled?: boolean;
  /** query.history.max-age (ours): history files whose newest query is older go */
  queryHistoryMaxAgeMs?: number;
  /** query.history.max-size (ours): the oldest history files go until the rest fit */
  queryHistoryMaxSizeBytes?: number;
  /** query.history.batch-size (ours): finished queries held in memory before they are written */
  queryHistoryBatchSize?: number;
  /** query.history.flush-interval (ours): a batch held this long is written even if not full */
  queryHistoryFlushIntervalMs?: number;
  /** query.history.batch-max-size (ours): a batch whose lines reach this size is written */
  queryHistoryBatchMaxBytes?: number;
  /** query.history.max-scan-size (ours): the most bytes of history files one read takes (completed_queries, the UI's search, a lookup) */
  queryHistoryMaxScanBytes?: number;
  /** Trino's `catalog.config-dir`: the catalog files (default: catalog/ beside the config file, as etc/catalog beside etc/config.properties, else etc/catalog beside it; none: the built-in set) */
  catalogConfigDirectory?: string;
  /** Trino's `catalog.management`: `dynamic` allows CREATE CATALOG and DROP CATALOG (default `static`). */
  catalogManagement?: 'static' | 'dynamic';
  /**
   * `catalog.dynamic-roots` (ours): the absolute directories a created catalog's root must lie under, fixed at
   * start (default: `<data.directory>/catalogs`). Only read with catalog.management=dynamic.
   */
  catalogDynamicRoots?: string[];
  /** DuckDB spill directory */
  tempDirectory: string;
  engineMemoryLimit: string;
  /**
   * query.max-memory-per-node (Trino's name, a data size): a worker's DuckDB memory_limit when set. DuckDB's
   * limit is the instance's, so this bounds every task a worker runs at once together, and a task past it
   * fails with EXCEEDED_LOCAL_MEMORY_LIMIT. Trino's default is 30% of the JVM's heap; here unset, the
   * worker's limit is engine.memory-limit. It cannot exceed engine.memory-limit (memoryLimitOf), as
   * Trino's query.max-memory-per-node cannot exceed the heap.
   */
  maxMemoryPerNodeBytes?: number;
  engineThreads: number;
  /**
   * Resident bytes past which the coordinator fails the query holding the most memory and admits none
   * until it is back under (coordinator.max-resident-memory; default engine.memory-limit + 1 GB).
   */
  maxResidentMemoryBytes?: number;
  /** open transactions in all (transaction.max-open; default half of query.max-concurrent-queries) */
  maxOpenTransactions?: number;
  /** open transactions of one user (transaction.max-open-per-user) */
  maxOpenTransactionsPerUser: number;
  /** an idle transaction is rolled back after this (Trino's transaction.idle-timeout) */
  transactionIdleTimeoutMs: number;
  /** running queries may finish and be read this long after SHUTTING_DOWN (shutdown.grace-period, 2m) */
  shutdownGracePeriodMs: number;
  /** honour X-Forwarded-Host/-Proto/-For (http-server.process-forwarded; off, as in Trino) */
  processForwarded: boolean;
  /** `http-server.authentication.type`: none by default, as in Trino */
  authenticationTypes: AuthenticationType[];
  /** credentials over plain HTTP (http-server.authentication.allow-insecure-over-http, default false) */
  allowInsecureOverHttp: boolean;
  /** `file.password-file`: `user:hash` lines (bcrypt or PBKDF2) */
  passwordFile?: string;
  /** how often the password file is re-read (file.refresh-period, 5s) and how many successful checks are cached (file.auth-token-cache.max-size, 1000) */
  passwordFileRefreshPeriodMs: number;
  passwordCacheMaxSize: number;
  /** `http-server.authentication.jwt.key-file`: a PEM public key or a JWKS file */
  jwtKeyFile?: string;
  jwtRequiredIssuer?: string;
  jwtRequiredAudience?: string;
  /** claim holding the principal (http-server.authentication.jwt.principal-field, default `sub`) */
  jwtPrincipalField: string;
  httpsEnabled: boolean;
  httpsPort: number;
  /** PEM holding the certificate (and the key, unless httpsKeyPath names it) */
  httpsKeystorePath?: string;
  httpsKeyPath?: string;
  /** `security.config-file`: Trino's file-based access-control rules (JSON) */
  securityConfigFile?: string;
  /** how often the rules file is re-read (security.refresh-period); undefined: read once */
  securityRefreshPeriodMs?: number;
  /** signs coordinator<->worker traffic (internal-communication.shared-secret, as Trino); none: open */
  internalSharedSecret?: string;
  /** vivace.distributed-tpch: queries over one tpch table run in two stages across the workers (on by default; false: every statement is one task) */
  distributedTpch?: boolean;
  /** vivace.distributed-tpch-min-rows: a table with fewer rows runs as one task (the leaf stage's fixed cost outweighs a small scan); default in staged-query.ts */
  distributedTpchMinRows?: number;
  /** exchange.compression-codec (Trino's: NONE, LZ4, ZSTD; default NONE): how exchange files are compressed */
  exchangeCompressionCodec?: ExchangeCodec;
  /** a lake table with fewer bytes of data files runs as one task (vivace.distributed-lake-min-bytes, 64MB) */
  distributedLakeMinBytes?: number;
  /** how long a web UI login lasts (web-ui.session-timeout, Trino's default 1d) */
  webUiSessionTimeoutMs: number;
  /** signs the web UI's session cookies (web-ui.shared-secret); none: a random key per process */
  webUiSharedSecret?: string;
  /** query-manager.required-workers: active workers a statement waits for before it runs (Trino's default 1) */
  requiredWorkers: number;
  /** query-manager.required-workers-max-wait: past this a waiting statement fails with GENERIC_INSUFFICIENT_RESOURCES (5m) */
  requiredWorkersMaxWaitMs: number;
  /**
   * vivace.startup-statement-wait: how long a POST /v1/statement sent while the coordinator starts waits for
   * its required workers before it answers (20s: under the clients' request timeouts, trino-python-client's
   * 30 s); the statement itself keeps waiting up to required-workers-max-wait.
   */
  startupStatementWaitMs: number;
  /** vivace.local-workers.nice: the CPU priority (Unix nice, 0 to 19) of the workers `serve` starts, below the coordinator's; 0 keeps theirs (lib/cluster/process-priority.ts) */
  localWorkersNice: number;
}

export type AuthenticationType = 'PASSWORD' | 'JWT';

export function defaultCacheDirectory(): string {
  return process.env.XDG_CACHE_HOME ? join(process.env.XDG_CACHE_HOME, 'vivace') : join(homedir(), '.cache', 'vivace');
}

export function defaultConfig(): CoordinatorConfig {
  return {
    host: '127.0.0.1',
    port: 8080,
    environment: 'vivace',
    logLevel: 'info',
    nodeVersion: vivaceVersion(),
    maxRunningQueries: 8,
    maxQueuedQueries: 5000,
    maxHistory: 100,
    minExpireAgeMs: 15 * 60_000,
    maxHistoryHard: 1000,
    clientTimeoutMs: 5 * 60_000,
    maxRunTimeMs: 100 * 24 * 3_600_000,
    maxPlanningTimeMs: 10 * 60_000,
    maxExecutionTimeMs: 100 * 24 * 3_600_000,
    trackerIntervalMs: 1000,
    targetResultBytes: 1 << 20,
    prefetchPages: 2,
    longPollMs: 1000,
    maxQueryLength: 1_000_000,
    maxBodyBytes: 4 << 20,
    dataDirectory: defaultCacheDirectory(),
    tempDirectory: join(tmpdir(), `vivace-spill-${process.pid}`),
    engineMemoryLimit: '4GB',
    engineThreads: 2,
    distributedTpch: true,
    localWorkersNice: DEFAULT_LOCAL_WORKERS_NICE,
    requiredWorkers: 1,
    requiredWorkersMaxWaitMs: 5 * 60_000,
    startupStatementWaitMs: 20_000,
    maxOpenTransactionsPerUser: 2,
    transactionIdleTimeoutMs: 5 * 60_000,
    shutdownGracePeriodMs: 2 * 60_000,
    processForwarded: false,
    authenticationTypes: [],
    allowInsecureOverHttp: false,
    passwordFileRefreshPeriodMs: 5000,
    passwordCacheMaxSize: 1000,
    jwtPrincipalField: 'sub',
    webUiSessionTimeoutMs: 24 * 60 * 60_000,
    httpsEnabled: false,
    httpsPort: 8443,
    ...defaultSpoolingConfig(),
  };
}

type Parser = (value: string) => Partial<CoordinatorConfig>;
const integer = (value: string, key: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new VivaceError('INVALID_ARGUMENTS', `${key} must be a non-negative integer: ${value}`);
  return n;
};
const boolean = (value: string, key: string): boolean => {
  const v = value.toLowerCase();
  if (v === 'true' || v === 'false') return v === 'true';
  throw new VivaceError('INVALID_ARGUMENTS', `${key} must be true or false: ${value}`);
};
/** Longest wait a timer can hold (about 24.8 days): a longer configured wait would fire at once. */
const MAX_WAIT_MS = 2 ** 31 - 1;
const wait = (value: string, key: string): number => {
  let ms: number;
  try {
    ms = parseDuration(value);
  } catch (err) {
    throw new VivaceError('INVALID_ARGUMENTS', `${key}: ${(err as Error).message} (a duration such as 30s or 5m)`);
  }
  if (!(ms <= MAX_WAIT_MS)) throw new VivaceError('INVALID_ARGUMENTS', `${key} must be a duration from 0s to 24d: ${value}`);
  return Math.round(ms);
};
/** Workers a statement may wait for; more than any cluster this coordinator can track is a typo. */
export const MAX_REQUIRED_WORKERS = 10_000;
const requiredWorkers = (value: string, key: string): number => {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 1 || n > MAX_REQUIRED_WORKERS) {
    throw new VivaceError('INVALID_ARGUMENTS', `${key} must be an integer from 1 to ${MAX_REQUIRED_WORKERS}: ${value}`);
  }
  return n;
};
const AUTHENTICATION_TYPES: readonly AuthenticationType[] = ['PASSWORD', 'JWT'];
/** `PASSWORD,JWT`: each known, none twice (Trino also has CERTIFICATE, OAUTH2, KERBEROS, HEADER). */
const authenticationTypes = (value: string): AuthenticationType[] => {
  const types: AuthenticationType[] = [];
  for (const part of value.split(',')) {
    const name = part.trim().toUpperCase();
    if (name === '') continue;
    const type = AUTHENTICATION_TYPES.find((t) => t === name);
    if (!type) throw new VivaceError('INVALID_ARGUMENTS', `http-server.authentication.type: unsupported authenticator ${part.trim()} (supported: PASSWORD, JWT)`);
    if (!types.includes(type)) types.push(type);
  }
  return types;
};

/** Property names follow Presto's config.properties where one exists. */
/** catalog.management: static or dynamic (Trino's CatalogManagerConfig, case-insensitive). */
function catalogManagement(value: string): 'static' | 'dynamic' {
  const v = value.trim().toLowerCase();
  if (v !== 'static' && v !== 'dynamic') throw new VivaceError('INVALID_ARGUMENTS', `catalog.management must be static or dynamic: ${value}`);
  return v;
}

/** catalog.dynamic-roots: comma-separated absolute directories (checked further at start: dynamic-catalogs.ts). */
function dynamicRoots(value: string): string[] {
  const roots = value.split(',').map((r) => r.trim()).filter((r) => r !== '');
  if (roots.length === 0) throw new VivaceError('INVALID_ARGUMENTS', 'catalog.dynamic-roots must name at least one absolute directory');
  for (const root of roots) if (!isAbsolute(root)) throw new VivaceError('INVALID_ARGUMENTS', `catalog.dynamic-roots: not an absolute directory: ${root}`);
  return roots;
}

const PROPERTIES: Record<string, Parser> = {
  'http-server.http.port': (v) => ({ port: integer(v, 'http-server.http.port') }),
  'http-server.http.host': (v) => ({ host: v }),
  'node.environment': (v) => ({ environment: v }),
  'log.level': (v) => ({ logLevel: parseLogLevel(v) }),
  'query.max-concurrent-queries': (v) => ({ maxRunningQueries: integer(v, 'query.max-concurrent-queries') }),
  'query.max-queued-queries': (v) => ({ maxQueuedQueries: integer(v, 'query.max-queued-queries') }),
  'query.max-history': (v) => ({ maxHistory: integer(v, 'query.max-history') }),
  'query.max-history-hard': (v) => ({ maxHistoryHard: integer(v, 'query.max-history-hard') }),
  'query.min-expire-age': (v) => ({ minExpireAgeMs: parseDuration(v) }),
  'query.client.timeout': (v) => ({ clientTimeoutMs: parseDuration(v) }),
  'query.max-run-time': (v) => ({ maxRunTimeMs: parseDuration(v) }),
  'query.max-planning-time': (v) => ({ maxPlanningTimeMs: parseDuration(v) }),
  'query.max-execution-time': (v) => ({ maxExecutionTimeMs: parseDuration(v) }),
  'query.max-length': (v) => ({ maxQueryLength: integer(v, 'query.max-length') }),
  'http-server.max-request-size': (v) => ({ maxBodyBytes: parseDataSize(v) }),
  'protocol.v1.target-result-size': (v) => ({ targetResultBytes: parseDataSize(v) }),
  'protocol.v1.max-wait': (v) => ({ longPollMs: parseDuration(v) }),
  'data.directory': (v) => ({ dataDirectory: v }),
  'query.history.enabled': (v) => ({ queryHistoryEnabled: boolean(v, 'query.history.enabled') }),
  'query.history.max-age': (v) => ({ queryHistoryMaxAgeMs: parseDuration(v) }),
  'query.history.max-size': (v) => ({ queryHistoryMaxSizeBytes: parseDataSize(v) }),
  'query.history.batch-size': (v) => ({ queryHistoryBatchSize: Math.max(1, integer(v, 'query.history.batch-size')) }),
  'query.history.flush-interval': (v) => ({ queryHistoryFlushIntervalMs: parseDuration(v) }),
  'query.history.batch-max-size': (v) => ({ queryHistoryBatchMaxBytes: Math.max(1, parseDataSize(v)) }),
  'query.history.max-scan-size': (v) => ({ queryHistoryMaxScanBytes: Math.max(1, parseDataSize(v)) }),
  'catalog.config-dir': (v) => ({ catalogConfigDirectory: v }),
  'catalog.management': (v) => ({ catalogManagement: catalogManagement(v) }),
  'catalog.dynamic-roots': (v) => ({ catalogDynamicRoots: dynamicRoots(v) }),
  'engine.temp-directory': (v) => ({ tempDirectory: v }),
  'engine.memory-limit': (v) => ({ engineMemoryLimit: v }),
  'query.max-memory-per-node': (v) => ({ maxMemoryPerNodeBytes: positiveDataSize(v, 'query.max-memory-per-node') }),
  'engine.threads': (v) => ({ engineThreads: integer(v, 'engine.threads') }),
  'coordinator.max-resident-memory': (v) => ({ maxResidentMemoryBytes: parseDataSize(v) }),
  'transaction.max-open': (v) => ({ maxOpenTransactions: integer(v, 'transaction.max-open') }),
  'transaction.max-open-per-user': (v) => ({ maxOpenTransactionsPerUser: integer(v, 'transaction.max-open-per-user') }),
  'transaction.idle-timeout': (v) => ({ transactionIdleTimeoutMs: parseDuration(v) }),
  'shutdown.grace-period': (v) => ({ shutdownGracePeriodMs: parseDuration(v) }),
  'http-server.process-forwarded': (v) => ({ processForwarded: boolean(v, 'http-server.process-forwarded') }),
  'http-server.authentication.type': (v) => ({ authenticationTypes: authenticationTypes(v) }),
  'http-server.authentication.allow-insecure-over-http': (v) => ({ allowInsecureOverHttp: boolean(v, 'http-server.authentication.allow-insecure-over-http') }),
  'file.password-file': (v) => ({ passwordFile: v }),
  'file.refresh-period': (v) => ({ passwordFileRefreshPeriodMs: parseDuration(v) }),
  'file.auth-token-cache.max-size': (v) => ({ passwordCacheMaxSize: integer(v, 'file.auth-token-cache.max-size') }),
  'http-server.authentication.jwt.key-file': (v) => ({ jwtKeyFile: v }),
  'http-server.authentication.jwt.required-issuer': (v) => ({ jwtRequiredIssuer: v }),
  'http-server.authentication.jwt.required-audience': (v) => ({ jwtRequiredAudience: v }),
  'http-server.authentication.jwt.principal-field': (v) => ({ jwtPrincipalField: v }),
  'http-server.https.enabled': (v) => ({ httpsEnabled: boolean(v, 'http-server.https.enabled') }),
  'http-server.https.port': (v) => ({ httpsPort: integer(v, 'http-server.https.port') }),
  'http-server.https.keystore.path': (v) => ({ httpsKeystorePath: v }),
  // Airlift's keystore.key is the keystore's password; a separate PEM key file has its own name.
  'http-server.https.key-path': (v) => ({ httpsKeyPath: v }),
  'security.config-file': (v) => ({ securityConfigFile: v }),
  'security.refresh-period': (v) => ({ securityRefreshPeriodMs: parseDuration(v) }),
  'internal-communication.shared-secret': (v) => ({ internalSharedSecret: v }),
  'web-ui.session-timeout': (v) => ({ webUiSessionTimeoutMs: parseDuration(v) }),
  'web-ui.shared-secret': (v) => ({ webUiSharedSecret: v }),
  'query-manager.required-workers': (v) => ({ requiredWorkers: requiredWorkers(v, 'query-manager.required-workers') }),
  'query-manager.required-workers-max-wait': (v) => ({ requiredWorkersMaxWaitMs: wait(v, 'query-manager.required-workers-max-wait') }),
  'vivace.startup-statement-wait': (v) => ({ startupStatementWaitMs: wait(v, 'vivace.startup-statement-wait') }),
  'vivace.distributed-tpch': (v) => ({ distributedTpch: boolean(v, 'vivace.distributed-tpch') }),
  'vivace.local-workers.nice': (v) => ({ localWorkersNice: parseNice(v, 'vivace.local-workers.nice') }),
  'vivace.distributed-tpch-min-rows': (v) => ({ distributedTpchMinRows: integer(v, 'vivace.distributed-tpch-min-rows') }),
  'vivace.distributed-lake-min-bytes': (v) => ({ distributedLakeMinBytes: parseDataSize(v) }),
  'exchange.compression-codec': (v) => ({ exchangeCompressionCodec: exchangeCodec(v) }),
  ...SPOOLING_PROPERTIES,
};

/** Trino's exchange codecs (exchange.compression-codec), as their Parquet codec. */
export const EXCHANGE_CODECS = { NONE: 'uncompressed', LZ4: 'lz4', ZSTD: 'zstd' } as const;
export type ExchangeCodec = keyof typeof EXCHANGE_CODECS;

function exchangeCodec(value: string): ExchangeCodec {
  const upper = value.trim().toUpperCase();
  if (!Object.hasOwn(EXCHANGE_CODECS, upper)) throw new VivaceError('INVALID_ARGUMENTS', `exchange.compression-codec must be one of ${Object.keys(EXCHANGE_CODECS).join(', ')}: ${value}`);
  return upper as ExchangeCodec;
}

export const CONFIG_PROPERTY_NAMES = Object.keys(PROPERTIES);

function positiveDataSize(value: string, name: string): number {
  const bytes = parseDataSize(value);
  if (!(bytes > 0)) throw new VivaceError('INVALID_ARGUMENTS', `${name} must be more than 0B: ${value}`);
  return bytes;
}

/**
 * The DuckDB memory_limit of a worker: query.max-memory-per-node when set, else engine.memory-limit. Set
 * above engine.memory-limit, the configuration is refused (CONFIGURATION_INVALID) as Trino's
 * LocalMemoryManager refuses a query.max-memory-per-node larger than the heap ("Invalid memory
 * configuration"): the lower one is the limit, and a larger one would promise memory the engine does not have.
 */
export function memoryLimitOf(config: Pick<CoordinatorConfig, 'engineMemoryLimit' | 'maxMemoryPerNodeBytes'>): string {
  if (config.maxMemoryPerNodeBytes === undefined) return config.engineMemoryLimit;
  const engine = parseDataSize(config.engineMemoryLimit);
  if (config.maxMemoryPerNodeBytes > engine) {
    throw new VivaceError('CONFIGURATION_INVALID', `Invalid memory configuration. query.max-memory-per-node (${config.maxMemoryPerNodeBytes}B) cannot be larger than engine.memory-limit (${config.engineMemoryLimit})`);
  }
  return `${config.maxMemoryPerNodeBytes}B`;
}

/** Parse `key=value` lines (# comments); unknown keys are an error, as in Presto. */
export function parseConfigProperties(text: string): Partial<CoordinatorConfig> {
  const config: Partial<CoordinatorConfig> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq < 0) throw new VivaceError('INVALID_ARGUMENTS', `Malformed configuration line: ${line}`);
    const key = line.slice(0, eq).trim();
    const parse = PROPERTIES[key];
    if (!parse) throw new VivaceError('INVALID_ARGUMENTS', `Unknown configuration property: ${key}`);
    Object.assign(config, parse(line.slice(eq + 1).trim()));
  }
  return config;
}

export function loadConfigFile(path: string): Partial<CoordinatorConfig> {
  return parseConfigProperties(readFileSync(path, 'utf8'));
}
