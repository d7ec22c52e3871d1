// The spooling e2e specs' client: a statement run to its end asking for `json`, its segments collected and
// none downloaded (so a spec can kill their worker before the client reaches them).
import { expect } from 'chai';
import { request, validateStatement } from '../support/http.js';
import { USER } from './cluster-nodes.js';

/** Runs `sql` to its end asking for `json`, downloading nothing: its id, final state and segments. */
export async function runWithoutDownloads(url: string, sql: string): Promise<{ id: string; state: string; segments: any[] }> {
  const first = await request('POST', `${url}/v1/statement`, { body: sql, headers: { ...USER, 'X-Trino-Query-Data-Encoding': 'json' } });
  expect(first.status).to.equal(200);
  let current = first.body;
  const segments: any[] = [];
  while (current.nextUri) {
    const next = await request('GET', current.nextUri);
    validateStatement(next.body, false);
    current = next.body;
    segments.push(...(current.data?.segments ?? []));
  }
  return { id: first.body.id, state: current.stats.state, segments };
}

/** Reads no table: one task on one worker, every segment in that worker's spool. */
export const SPOOLED_SEQUENCE =
  "SELECT a.x * 10000 + b.y AS x, concat('value ', CAST(a.x * 10000 + b.y AS varchar)) AS s FROM UNNEST(sequence(0, 9)) AS a(x) CROSS JOIN UNNEST(sequence(1, 10000)) AS b(y) ORDER BY 1";
