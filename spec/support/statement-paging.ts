// The shape of a statement's responses as Trino pages them (Query.getNextResult): a response with rows
// always has a nextUri, and the last response (no nextUri) carries no rows. Checked on bodies a spec
// fetched itself and on the traffic a client library made (recordStatementTraffic).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { expect } from 'chai';

/** Checks one statement's response bodies, POST first, in the order they were answered. */
export function expectTrinoPaging(responses: readonly any[]): void {
  expect(responses.length, 'responses of the statement').to.be.greaterThan(0);
  const last = responses[responses.length - 1];
  for (const [i, r] of responses.entries()) {
    if (r.data !== undefined) expect(r.nextUri, `response ${i} carries rows, so it links to a next one`).to.be.a('string');
    if (i < responses.length - 1) expect(r.nextUri, `response ${i} is not the last`).to.be.a('string');
  }
  expect(last, 'the last response').not.to.have.property('nextUri');
  expect(last, 'the last response').not.to.have.property('data');
  expect(last.stats.state).to.be.oneOf(['FINISHED', 'FAILED']);
  if (last.stats.state === 'FINISHED') {
    expect(last.stats.rootStage.done).to.equal(true);
    expect(last.columns).to.be.an('array');
  }
  // As Trino's POST (QueuedStatementResource): no update type or count yet.
  expect(responses[0]).not.to.have.property('updateType');
  expect(responses[0]).not.to.have.property('updateCount');
}

/** A statement response as the server sent it, reduced to what the paging rules look at. */
export interface SentStatement {
  method: string;
  url: string;
  status: number;
  /** the parsed body, `data` replaced by its row count in `rows` */
  body: any;
  rows: number;
}

export interface StatementTraffic {
  /** The 200 responses of one query, in the order they were answered (POST first). */
  of(queryId: string): SentStatement[];
  /** Every query id that was answered. */
  queryIds(): string[];
  clear(): void;
  stop(): void;
}

/**
 * Records every /v1/statement response a server sends (as the client received it, whatever library made
 * the request). Bodies are kept without their rows, only the row counts.
 */
export function recordStatementTraffic(server: Server): StatementTraffic {
  let sent: SentStatement[] = [];
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.startsWith('/v1/statement')) return;
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown) => {
      if (typeof chunk === 'string' || chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    const write = res.write;
    const end = res.end;
    res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
      keep(chunk);
      return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof res.write;
    res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
      if (typeof chunk !== 'function') keep(chunk);
      return (end as (...args: unknown[]) => ServerResponse).call(this, chunk, ...rest);
    } as typeof res.end;
    res.once('finish', () => {
      if (res.statusCode !== 200 || chunks.length === 0) return;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const rows = Array.isArray(body.data) ? body.data.length : 0;
      if (body.data !== undefined) body.data = `${rows} rows`;
      sent.push({ method: req.method ?? '', url: req.url ?? '', status: res.statusCode, body, rows });
    });
  };
  server.prependListener('request', onRequest);
  return {
    of: (queryId) => sent.filter((s) => s.body?.id === queryId),
    queryIds: () => [...new Set(sent.map((s) => s.body?.id as string))],
    clear: () => (sent = []),
    stop: () => server.off('request', onRequest),
  };
}

/**
 * Every query the traffic holds was paged as Trino pages it; returns the rows each one carried.
 * A GET repeated by the client (same token) is a repeat of the same response, so it counts once.
 */
export function expectTrinoPagingOfTraffic(traffic: StatementTraffic): Map<string, number> {
  const rowsByQuery = new Map<string, number>();
  const ids = traffic.queryIds();
  expect(ids.length, 'statements recorded').to.be.greaterThan(0);
  for (const id of ids) {
    const seen = new Set<string>();
    const answers = traffic.of(id).filter((s) => {
      const key = `${s.method} ${s.url.split('?')[0]}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    expectTrinoPaging(answers.map((s) => s.body));
    rowsByQuery.set(id, answers.reduce((n, s) => n + s.rows, 0));
  }
  return rowsByQuery;
}
