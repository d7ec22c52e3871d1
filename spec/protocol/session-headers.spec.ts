import { expect } from 'chai';
import {
  DEFAULT_USER,
  javaUrlDecode,
  javaUrlEncode,
  parseSession,
  sessionResponseHeaders,
} from '../../lib/protocol/session-headers.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import type { RequestHeaders } from '../../lib/protocol/header-prefix.js';

const ctx = { remoteAddress: '10.0.0.7', now: 1_700_000_000_000 };

function failure(headers: RequestHeaders): VivaceError {
  try {
    parseSession(headers, ctx);
  } catch (err) {
    if (err instanceof VivaceError) return err;
    throw err;
  }
  throw new Error('expected parseSession to throw');
}

describe('session-headers', () => {
  describe('parseSession', () => {
    it('reads every field from the detected family', () => {
      const session = parseSession(
        {
          'x-trino-user': 'alice',
          'x-trino-source': 'trino-cli',
          'x-trino-catalog': 'tpch',
          'x-trino-schema': 'tiny',
          'x-trino-time-zone': 'Europe/Paris',
          'x-trino-language': 'en-US',
          'x-trino-client-info': 'notebook 7',
          'x-trino-client-tags': ' etl, ,nightly ,',
          'x-trino-trace-token': 'tt-1',
          'x-trino-session': 'query_max_run_time=15m, hash_partition_count=8',
          'x-trino-prepared-statement': 'q1=SELECT+1',
          'x-trino-transaction-id': 'NONE',
          'user-agent': 'StatementClientV1/468',
        },
        ctx,
      );
      expect(session).to.deep.equal({
        prefix: 'X-Trino-',
        user: 'alice',
        source: 'trino-cli',
        catalog: 'tpch',
        schema: 'tiny',
        timeZone: 'Europe/Paris',
        language: 'en-US',
        clientInfo: 'notebook 7',
        clientTags: ['etl', 'nightly'],
        traceToken: 'tt-1',
        properties: { query_max_run_time: '15m', hash_partition_count: '8' },
        preparedStatements: { q1: 'SELECT 1' },
        transactionId: 'NONE',
        remoteUserAddress: '10.0.0.7',
        userAgent: 'StatementClientV1/468',
        startTime: 1_700_000_000_000,
      });
    });

    it('defaults: X-Service- family, anonymous user, no transaction support', () => {
      const session = parseSession({}, ctx);
      expect(session).to.deep.equal({
        prefix: 'X-Service-',
        user: DEFAULT_USER,
        source: undefined,
        catalog: undefined,
        schema: undefined,
        timeZone: undefined,
        language: undefined,
        clientInfo: undefined,
        clientTags: [],
        traceToken: undefined,
        properties: {},
        preparedStatements: {},
        transactionId: undefined,
        remoteUserAddress: '10.0.0.7',
        userAgent: undefined,
        startTime: 1_700_000_000_000,
      });
      expect(DEFAULT_USER).to.equal('anonymous');
    });

    it('reads only the headers of the family the request uses', () => {
      const session = parseSession({ 'x-presto-user': 'bob', 'x-presto-catalog': 'memory' }, ctx);
      expect(session.prefix).to.equal('X-Presto-');
      expect(session.user).to.equal('bob');
      expect(session.catalog).to.equal('memory');
    });

    it('treats a blank user header as absent', () => {
      expect(parseSession({ 'x-service-user': '  ' }, ctx).user).to.equal('anonymous');
    });

    it('rejects a schema without a catalog', () => {
      const err = failure({ 'x-service-schema': 'tiny' });
      expect(err.errorName).to.equal('MISSING_CATALOG_NAME');
      expect(err.httpStatus).to.equal(400);
      expect(err.message).to.equal('Schema is set but catalog is not');
    });

    it('splits session items before decoding, so encoded commas stay inside values', () => {
      const session = parseSession(
        { 'x-presto-session': 'a=x%2Cy,tpch.splits=1+2,empty=,eq=a%3Db=c' },
        ctx,
      );
      expect(session.properties).to.deep.equal({ a: 'x,y', 'tpch.splits': '1 2', empty: '', eq: 'a=b=c' });
    });

    it('merges repeated Session headers (array form)', () => {
      const session = parseSession({ 'x-trino-session': ['a=1', 'b=2,c=3'] }, ctx);
      expect(session.properties).to.deep.equal({ a: '1', b: '2', c: '3' });
    });

    it('stores a hostile property name as a plain key', () => {
      const props = parseSession({ 'x-trino-session': '__proto__=x' }, ctx).properties;
      expect(Object.keys(props)).to.deep.equal(['__proto__']);
      expect(Object.getPrototypeOf(props)).to.equal(Object.prototype);
    });

    it('rejects a session item without = or with a bad escape', () => {
      for (const value of ['a=1,broken', '=1', 'a=%zz']) {
        const err = failure({ 'x-trino-session': value });
        expect(err.errorName, value).to.equal('INVALID_SESSION_PROPERTY');
        expect(err.httpStatus, value).to.equal(400);
        expect(err.message, value).to.match(/^Invalid X-Trino-Session header: /);
      }
    });

    it('decodes prepared statement names and SQL', () => {
      const header = `${javaUrlEncode('my stmt')}=${javaUrlEncode("SELECT 'a,b' = ?")},q2=VALUES+1`;
      const session = parseSession({ 'x-trino-prepared-statement': header }, ctx);
      expect(session.preparedStatements).to.deep.equal({ 'my stmt': "SELECT 'a,b' = ?", q2: 'VALUES 1' });
    });

    it('rejects a malformed Prepared-Statement header with a 400', () => {
      for (const value of ['q1', 'q1=SELECT+%', '%G1=x']) {
        const err = failure({ 'x-presto-prepared-statement': value });
        expect(err.httpStatus, value).to.equal(400);
        expect(err.message, value).to.match(/^Invalid X-Presto-Prepared-Statement header: /);
      }
    });

    it('takes the transaction id as sent and normalises none', () => {
      expect(parseSession({ 'x-trino-transaction-id': 'tx-42' }, ctx).transactionId).to.equal('tx-42');
      expect(parseSession({ 'x-trino-transaction-id': 'none' }, ctx).transactionId).to.equal('NONE');
      expect(parseSession({ 'x-trino-transaction-id': '' }, ctx).transactionId).to.equal('NONE');
    });
  });

  describe('sessionResponseHeaders', () => {
    it('writes every update with the request family, values URL-encoded', () => {
      const headers = sessionResponseHeaders('X-Trino-', {
        setCatalog: 'tpch',
        setSchema: 'tiny',
        setSessionProperties: { query_max_run_time: '15m', 'tpch.note': 'a b,c' },
        resetSessionProperties: ['hash_partition_count'],
        addedPreparedStatements: { 'my q': 'SELECT * FROM t WHERE x = ?' },
        deallocatedPreparedStatements: ['my q'],
        startedTransactionId: 'tx-1',
        clearTransactionId: true,
      });
      expect(headers).to.deep.equal([
        ['X-Trino-Set-Catalog', 'tpch'],
        ['X-Trino-Set-Schema', 'tiny'],
        ['X-Trino-Set-Session', 'query_max_run_time=15m'],
        ['X-Trino-Set-Session', 'tpch.note=a+b%2Cc'],
        ['X-Trino-Clear-Session', 'hash_partition_count'],
        ['X-Trino-Added-Prepare', 'my+q=SELECT+*+FROM+t+WHERE+x+%3D+%3F'],
        ['X-Trino-Deallocated-Prepare', 'my+q'],
        ['X-Trino-Started-Transaction-Id', 'tx-1'],
        ['X-Trino-Clear-Transaction-Id', 'true'],
      ]);
    });

    it('writes nothing for no updates, and no Clear-Transaction-Id when false', () => {
      expect(sessionResponseHeaders('X-Service-', {})).to.deep.equal([]);
      expect(sessionResponseHeaders('X-Presto-', { clearTransactionId: false, setCatalog: 'memory' })).to.deep.equal([
        ['X-Presto-Set-Catalog', 'memory'],
      ]);
    });

    it('round-trips: a client echoing Added-Prepare and Set-Session gets the same values back', () => {
      const updates = {
        setSessionProperties: { p: "it's 100%, ok" },
        addedPreparedStatements: { s1: "SELECT 'é', ?" },
      };
      const headers = sessionResponseHeaders('X-Presto-', updates);
      const session = parseSession(
        {
          'x-presto-session': headers.filter(([h]) => h.endsWith('Set-Session')).map(([, v]) => v),
          'x-presto-prepared-statement': headers.filter(([h]) => h.endsWith('Added-Prepare')).map(([, v]) => v),
        },
        ctx,
      );
      expect(session.properties).to.deep.equal(updates.setSessionProperties);
      expect(session.preparedStatements).to.deep.equal(updates.addedPreparedStatements);
      expect(javaUrlDecode(javaUrlEncode('x'))).to.equal('x');
    });
  });
});
