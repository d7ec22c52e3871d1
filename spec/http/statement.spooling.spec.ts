import { expect } from 'chai';
import { BIGINT_COLUMN, FakeEngine } from '../support/fake-engine.js';
import { request, runStatement, startTestServer, type TestServer } from '../support/http.js';
import { runSpooled } from '../support/spooling.js';

// Rows long enough that a page passes the 8kB compression threshold.
const many = Array.from({ length: 3000 }, (_, i) => [i, `row-${i} ${'x'.repeat(i % 40)}`]);

function engine(): FakeEngine {
  return new FakeEngine({
    'SELECT 1': { columns: [BIGINT_COLUMN('_col0')], rows: [[1]] },
    'SELECT many': { columns: [BIGINT_COLUMN('n'), { name: 's', type: { base: 'varchar' } }], rows: many, batchRows: 500 },
    'VALUES 1': { columns: [BIGINT_COLUMN('_col0')], rows: [[1]] },
    'SHOW CATALOGS': { columns: [{ name: 'Catalog', type: { base: 'varchar' } }], rows: [['memory'], ['tpch']] },
    'EXPLAIN SELECT 1': { columns: [{ name: 'Query Plan', type: { base: 'varchar' } }], rows: [['plan']] },
    'CREATE TABLE t (x bigint)': { columns: [], rows: [], updateType: 'CREATE TABLE' },
  });
}

describe('statement routes: the spooling protocol (inline segments)', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer({ engine: engine(), config: { targetResultBytes: 16 * 1024, longPollMs: 200 } });
  });
  afterEach(() => server.stop());

  it('answers arrays without the header and with no supported encoding', async () => {
    for (const headers of [{ 'X-Trino-User': 'alice' }, { 'X-Trino-User': 'alice', 'X-Trino-Query-Data-Encoding': 'arrow, json+snappy' }] as Record<string, string>[]) {
      const { responses, rows } = await runStatement(server.url, 'SELECT many', headers);
      expect(rows).to.deep.equal(many);
      for (const r of responses) if (r.data !== undefined) expect(r.data).to.be.an('array');
    }
  });

  it('takes the first encoding of the client list it supports, echoes it, and keeps the client order', async () => {
    const res = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT 1', headers: { 'X-Trino-User': 'a', 'X-Trino-Query-Data-Encoding': ' arrow , json+lz4,json+zstd,json' } });
    expect(res.headers.get('x-trino-query-data-encoding')).to.equal('json+lz4');
    for (const [list, chosen] of [['json+zstd,json+lz4,json', 'json+zstd'], ['json', 'json'], ['json+lz4,json', 'json+lz4']] as const) {
      const read = await runSpooled(server.url, 'SELECT 1', list);
      expect(read.rows).to.deep.equal([[1]]);
      expect(read.responses.filter((r) => r.data !== undefined).map((r) => r.data.encoding)).to.deep.equal([chosen]);
    }
  });

  it('hears the header in the X-Presto- family too', async () => {
    const read = await runSpooled(server.url, 'VALUES 1', 'json', { 'X-Presto-User': 'alice' });
    expect(read.segments).to.have.length(1);
    expect(read.rows).to.deep.equal([[1]]);
  });

  it('spools only queries: SHOW, EXPLAIN and DDL answer arrays', async () => {
    for (const sql of ['SHOW CATALOGS', 'EXPLAIN SELECT 1', 'CREATE TABLE t (x bigint)']) {
      const read = await runSpooled(server.url, sql, 'json');
      expect(read.segments, sql).to.have.length(0);
      for (const r of read.responses) if (r.data !== undefined) expect(r.data, sql).to.be.an('array');
    }
  });

  for (const encoding of ['json', 'json+zstd', 'json+lz4']) {
    it(`${encoding}: inline segments decode to exactly the direct protocol's rows, offsets contiguous from 0`, async () => {
      const direct = await runStatement(server.url, 'SELECT many', { 'X-Trino-User': 'alice' });
      const read = await runSpooled(server.url, 'SELECT many', encoding);
      expect(read.rows).to.deep.equal(direct.rows);
      // The same JSON text, not only equal values: each segment is the rows of a direct page.
      const directTexts = direct.raw.flatMap((r) => (r.body.data === undefined ? [] : [r.text.slice(r.text.indexOf('"data":') + 7, r.text.indexOf(',"stats"'))]));
      expect(read.texts.join('').replaceAll('][', ',')).to.equal(directTexts.join('').replaceAll('][', ','));
      expect(read.segments.length).to.be.greaterThan(1);
      for (const s of read.segments) expect(s.type).to.equal('inline');
      // Responses without rows leave data out; none has empty segments.
      for (const r of read.responses) if (r.data !== undefined) expect(r.data.segments.length).to.be.greaterThan(0);
      const compressed = read.segments.filter((s) => s.metadata.uncompressedSize !== undefined);
      if (encoding === 'json') expect(compressed).to.have.length(0);
      else {
        expect(compressed.length).to.be.greaterThan(0);
        for (const s of compressed) expect(s.metadata.uncompressedSize).to.be.at.least(8192);
      }
    });
  }

  it('leaves a segment under 8 kB plain JSON without uncompressedSize, whatever the encoding', async () => {
    const read = await runSpooled(server.url, 'SELECT 1', 'json+zstd');
    expect(read.segments).to.have.length(1);
    expect(read.segments[0].metadata).to.deep.equal({ rowOffset: 0, rowsCount: 1, segmentSize: 5 });
    expect(Buffer.from(read.segments[0].data, 'base64').toString()).to.equal('[[1]]');
  });
});

describe('statement routes: spooling turned off', () => {
  it('answers arrays when protocol.spooling.enabled=false or the encoding is turned off', async () => {
    for (const config of [{ spoolingEnabled: false }, { spoolingJsonEnabled: false }]) {
      const server = await startTestServer({ engine: engine(), config });
      try {
        const res = await request('POST', `${server.url}/v1/statement`, { body: 'SELECT 1', headers: { 'X-Trino-User': 'a', 'X-Trino-Query-Data-Encoding': 'json' } });
        expect(res.headers.get('x-trino-query-data-encoding')).to.equal(null);
        const read = await runSpooled(server.url, 'SELECT 1', 'json');
        expect(read.segments).to.have.length(0);
        expect(read.rows).to.deep.equal([[1]]);
      } finally {
        await server.stop();
      }
    }
  });
});
