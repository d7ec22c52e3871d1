// Which statements answer with the spooling protocol: queries only (SELECT, VALUES, WITH ... SELECT,
// TABLE), as Trino's; SHOW, DESCRIBE, EXPLAIN, DDL, DML and session statements answer `data` arrays.
import { parsedStatement } from '../sql/statement-cache.js';
import { chooseEncoding, type QueryDataEncoding } from '../protocol/spooling/query-data-encoding.js';

/**
 * The encoding a statement's rows go out in: the first of the client's Query-Data-Encoding list the
 * server supports, when the statement is a query; undefined: the direct protocol. The statement is parsed
 * only when the client asked (a text that does not parse answers its error the direct way).
 */
export function queryDataEncodingOf(sql: string, header: string | undefined, enabled?: readonly QueryDataEncoding[]): QueryDataEncoding | undefined {
  const encoding = chooseEncoding(header, enabled);
  if (encoding === undefined) return undefined;
  return parsedStatement(sql)?.type === 'Query' ? encoding : undefined;
}
