// Trino's paths of spooled segments (SegmentResource / WorkerSegmentResource), and ours to drop a query's.
export const SPOOLED_DOWNLOAD_PREFIX = '/v1/spooled/download/';
export const SPOOLED_ACK_PREFIX = '/v1/spooled/ack/';
export const spooledQueryPath = (queryId: string): string => `/v1/spooled/queries/${encodeURIComponent(queryId)}`;

/** Paths a client reaches without credentials: the sealed id is their key, as in Trino. */
export const isOpenSpooledPath = (path: string): boolean => path.startsWith(SPOOLED_DOWNLOAD_PREFIX) || path.startsWith(SPOOLED_ACK_PREFIX);
