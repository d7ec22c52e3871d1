// Minimal types for the two clients that ship none: only what the client specs use.

declare module 'presto-client' {
  export interface PrestoColumn {
    name: string;
    type: string;
  }
  export interface PrestoStats {
    state: string;
    [key: string]: unknown;
  }
  export interface ClientOptions {
    host?: string;
    port?: number;
    user?: string;
    source?: string;
    catalog?: string;
    schema?: string;
    engine?: 'presto' | 'trino';
    /** ms between polls; 0 means the default (800) */
    checkInterval?: number;
    /** seconds; 0 disables */
    timeout?: number;
    enableVerboseStateCallback?: boolean;
  }
  export interface ExecuteOptions {
    query: string;
    catalog?: string;
    schema?: string;
    user?: string;
    session?: string;
    timezone?: string;
    headers?: Record<string, string>;
    timeout?: number;
    info?: boolean;
    /** polled before every nextUri GET; returning true sends DELETE to the nextUri */
    cancel?: () => boolean;
    state?: (error: unknown, queryId: string, stats: PrestoStats) => void;
    columns?: (error: unknown, columns: PrestoColumn[]) => void;
    data?: (error: unknown, data: unknown[][], columns: PrestoColumn[], stats: PrestoStats) => void;
    retry?: () => void;
    success?: (error: unknown, stats: PrestoStats, info?: unknown) => void;
    error?: (error: any) => void;
    callback?: (error: any, stats?: PrestoStats, info?: unknown) => void;
  }
  export class Client {
    constructor(options?: ClientOptions);
    execute(options: ExecuteOptions): void;
    query(queryId: string, callback: (error: any, info?: any) => void): void;
    kill(queryId: string, callback?: (error: any) => void): void;
    nodes(callback: (error: any, nodes?: unknown[]) => void): void;
  }
}

declare module 'lento' {
  import type { EventEmitter } from 'node:events';
  import type { Readable } from 'node:stream';

  export interface LentoOptions {
    hostname?: string;
    port?: number;
    protocol?: 'http:' | 'https:';
    catalog?: string;
    schema?: string;
    user?: string;
    timezone?: string;
    pollInterval?: number | string;
    maxRetries?: number;
  }
  export interface StreamOptions {
    /** 'array' for rows as arrays; objects keyed by column name otherwise */
    rowFormat?: 'array' | 'object';
    /** rows per chunk of a page stream; 0 pushes each server page as one chunk */
    pageSize?: number;
    highWaterMark?: number;
  }
  export interface LentoClient extends EventEmitter {
    createPageStream(sql: string, options?: StreamOptions): Readable;
    createRowStream(sql: string, options?: StreamOptions): Readable;
    query(sql: string, callback: (error: any, rows: any[]) => void): void;
    query(sql: string, options: StreamOptions, callback: (error: any, rows: any[]) => void): void;
  }
  export default function lento(options?: LentoOptions): LentoClient;
}
