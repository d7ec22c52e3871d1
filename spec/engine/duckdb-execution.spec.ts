// Streaming executions: paging by targetBytes, progress, cancellation (with the connection reused), memory limits.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import sinon from 'sinon';
import { DuckDBDataChunk } from '@duckdb/node-api';
import { createDuckDbEngine } from '../../lib/engine/duckdb-engine.js';
import type { Engine, RowBatch } from '../../lib/engine/engine.types.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { newEngine, runSql, testSession } from './engine-helpers.js';
import { batchText } from '../../lib/engine/row-batch.js';

// Rows come from Trino's row generators: UNNEST(sequence(a, b)) (at most 10,000 entries, as in Presto) and
// cross joins of them; long strings from lpad('', n, 'x').

describe('duckdb engine: execution', () => {
  let engine: Engine;
  before(async () => {
    // One connection: every spec here proves the connection comes back usable.
    engine = await newEngine(1);
  });
  after(() => engine.close());

  it('pages a result into batches of at most targetBytes whose sum is the whole result', async () => {
    const sql = "SELECT i, 'row ' || CAST(i AS varchar) AS s, i * 0.5e0 AS d " +
      'FROM (SELECT a * 100 + b AS i FROM UNNEST(sequence(0, 199)) AS x(a) CROSS JOIN UNNEST(sequence(0, 99)) AS y(b)) ORDER BY i';
    const whole = await runSql(engine, sql, testSession(), 64 << 20);
    const plan = await engine.plan(sql, testSession());
    const execution = plan.execute();
    const batches: RowBatch[] = [];
    for (let b = await execution.next(4096); b; b = await execution.next(4096)) batches.push(b);
    expect(batches.length).to.be.greaterThan(50);
    for (const b of batches) {
      expect(b.bytes).to.be.at.most(4096);
      expect(b.bytes).to.equal(Buffer.byteLength(batchText(b)));
      expect(JSON.parse(`[${batchText(b)}]`)).to.have.length(b.rows);
    }
    expect(`[${batches.map(batchText).join(',')}]`).to.equal(whole.json);
    expect(batches.reduce((n, b) => n + b.rows, 0)).to.equal(20000);
    const progress = execution.progress();
    expect(progress.outputRows).to.equal(20000);
    expect(progress.outputBytes).to.equal(batches.reduce((n, b) => n + b.bytes, 0));
    // UNNEST is no table: nothing was read from one.
    expect(progress).to.include({ processedRows: 0, processedBytes: 0 });
    expect(progress.cpuTimeMillis).to.be.at.least(0);
    expect(await execution.next(4096)).to.equal(null);
  });

  it('hands large pages over as bytes that later pages never overwrite', async () => {
    const sql = "SELECT a * 10000 + b AS i, 'row ' || CAST(b AS varchar) AS s FROM UNNEST(sequence(0, 9)) AS x(a) CROSS JOIN UNNEST(sequence(0, 9999)) AS y(b) ORDER BY i";
    const whole = await runSql(engine, sql, testSession(), 64 << 20);
    const execution = (await engine.plan(sql, testSession())).execute();
    const batches: RowBatch[] = [];
    const copies: string[] = [];
    for (let b = await execution.next(200_000); b; b = await execution.next(200_000)) {
      batches.push(b);
      copies.push(batchText(b));
    }
    expect(batches.length).to.be.greaterThan(5);
    expect(batches.slice(0, -1).every((b) => typeof b.json === 'object' && b.bytes > 64 * 1024)).to.equal(true);
    // Read after the whole stream: a page handed over must still hold its own rows.
    expect(batches.map((b) => batchText(b))).to.deep.equal(copies);
    expect(`[${copies.join(',')}]`).to.equal(whole.json);
  });

  it('hands a large page over as the runs of rows the bindings copied, not copied again into one page buffer', async () => {
    const sql = "SELECT i, lpad('', 200, 'y') AS s FROM UNNEST(sequence(1, 10000)) AS t(i) ORDER BY i";
    const whole = await runSql(engine, sql, testSession(), 64 << 20);
    const execution = (await engine.plan(sql, testSession())).execute();
    const texts: string[] = [];
    for (let b = await execution.next(1 << 20); b; b = await execution.next(1 << 20)) {
      texts.push(batchText(b));
      if (typeof b.json === 'string') continue;
      expect(b.json.length).to.be.greaterThan(1);
      // No piece lies in a buffer that could hold the page (the page copy that was there before).
      for (const piece of b.json) expect(piece.buffer.byteLength).to.be.below(b.bytes);
    }
    expect(texts.length).to.be.greaterThan(2);
    expect(`[${texts.join(',')}]`).to.equal(whole.json);
  });

  it('sends a row larger than targetBytes alone in its batch', async () => {
    const plan = await engine.plan("SELECT '1' AS a UNION ALL SELECT lpad('', 10000, 'x') UNION ALL SELECT 'b'", testSession());
    const execution = plan.execute();
    const sizes: number[] = [];
    for (let b = await execution.next(100); b; b = await execution.next(100)) sizes.push(b.rows);
    expect(sizes.reduce((a, b) => a + b, 0)).to.equal(3);
    expect(sizes.length).to.be.at.least(2);
  });

  it('counts UTF-8 bytes, not characters', async () => {
    const plan = await engine.plan("SELECT 'é€😀'", testSession());
    const batch = (await plan.execute().next(1 << 20))!;
    expect(batchText(batch)).to.equal('["é€😀"]');
    expect(batch.bytes).to.equal(Buffer.byteLength('["é€😀"]'));
  });

  it('cancels mid-stream: next() rejects USER_CANCELED and the connection serves the next query', async () => {
    // 50,000,000 rows
    const plan = await engine.plan(
      "SELECT a * 10000 + b AS i, lpad('', 100, 'x') FROM UNNEST(sequence(1, 5000)) AS x(a) CROSS JOIN UNNEST(sequence(1, 10000)) AS y(b)",
      testSession(),
    );
    const execution = plan.execute();
    expect(await execution.next(64 << 10)).to.not.equal(null);
    execution.cancel();
    execution.cancel();
    const err = await execution.next(64 << 10).then(() => undefined, (e: unknown) => e);
    expect(err).to.be.instanceOf(VivaceError).and.include({ errorName: 'USER_CANCELED', message: 'Query was canceled' });
    expect((await runSql(engine, 'SELECT 42')).rows).to.deep.equal([[42]]);
  });

  it('cancels while a fetch is running', async () => {
    // 3,000,000,000 rows
    const plan = await engine.plan(
      'SELECT count(*) FROM UNNEST(sequence(1, 10000)) AS a(i) CROSS JOIN UNNEST(sequence(1, 10000)) AS b(j) CROSS JOIN UNNEST(sequence(1, 30)) AS c(k) ' +
        'WHERE (i + j + k) % 7 = 3',
      testSession(),
    );
    const execution = plan.execute();
    const pending = execution.next(1 << 20).then(() => undefined, (e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    execution.cancel();
    expect(await pending).to.include({ errorName: 'USER_CANCELED' });
    expect((await runSql(engine, 'SELECT 43')).rows).to.deep.equal([[43]]);
  });

  it('cancel after the end is harmless', async () => {
    const plan = await engine.plan('SELECT 1', testSession());
    const execution = plan.execute();
    while (await execution.next(1 << 20)) { /* drain */ }
    execution.cancel();
    expect((await runSql(engine, 'SELECT 44')).rows).to.deep.equal([[44]]);
  });

  it('a failing query gives its connection back', async () => {
    const sql = "SELECT CAST(i AS INTEGER) FROM (SELECT 'x' || CAST(i AS VARCHAR) AS i FROM UNNEST(sequence(0, 9)) AS t(i))";
    const err = await runSql(engine, sql).then(() => undefined, (e: unknown) => e);
    expect(err).to.include({ errorName: 'INVALID_CAST_ARGUMENT' });
    expect((await runSql(engine, 'SELECT 45')).rows).to.deep.equal([[45]]);
  });

  it('maps exceeding the memory limit to EXCEEDED_LOCAL_MEMORY_LIMIT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vivace-engine-spec-'));
    const small = await createDuckDbEngine({ tempDirectory: dir, memoryLimit: '32MB', threads: 1, maxConnections: 1 });
    try {
      // One array of 20,000,000 bigints
      const sql = 'SELECT cardinality(array_agg(a * 10000 + b)) FROM UNNEST(sequence(1, 2000)) AS x(a) CROSS JOIN UNNEST(sequence(1, 10000)) AS y(b)';
      const err = await runSql(small, sql).then(() => undefined, (e: unknown) => e);
      expect(err).to.include({ errorName: 'EXCEEDED_LOCAL_MEMORY_LIMIT' });
      expect((err as Error).message).to.match(/^Query exceeded per-node memory limit of 32MB \[/);
    } finally {
      await small.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('duckdb engine: streaming memory safety', () => {
  it('keeps the rows of a chunk valid across batches even when garbage is collected in between', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const engine = await newEngine(1);
    try {
      const plan = await engine.plan("SELECT i, lpad('', 40, chr(65 + CAST(i % 26 AS INTEGER))) AS s FROM UNNEST(sequence(0, 5999)) AS t(i)", testSession());
      const execution = plan.execute();
      const rows: unknown[][] = [];
      for (let n = 0; ; n++) {
        const batch = await execution.next(2000); // many batches per 2048-row chunk
        if (!batch) break;
        if (n % 4 === 0) gc();
        rows.push(...(JSON.parse(`[${batchText(batch)}]`) as unknown[][]));
      }
      expect(rows).to.have.length(6000);
      rows.forEach((row, i) => expect(row).to.deep.equal([i, String.fromCharCode(65 + (i % 26)).repeat(40)]));
    } finally {
      await engine.close();
    }
  });
});

describe('duckdb engine: small results run materialized once learned', () => {
  it('gives the same rows on repeated runs of small and multi-chunk queries, and relearns after DML', async () => {
    const engine = await newEngine(1);
    try {
      const small = 'SELECT i, i * 2 AS d FROM UNNEST(sequence(0, 9)) AS t(i)';
      const large = "SELECT i, 'row ' || CAST(i AS varchar) AS s FROM UNNEST(sequence(0, 4999)) AS t(i)";
      const first = [(await runSql(engine, small)).json, (await runSql(engine, large)).json];
      for (let run = 0; run < 3; run++) {
        expect((await runSql(engine, small)).json).to.equal(first[0]);
        expect((await runSql(engine, large)).json).to.equal(first[1]);
      }
      await runSql(engine, 'CREATE TABLE grows AS SELECT 1 AS x');
      expect((await runSql(engine, 'SELECT count(*) FROM grows')).rows).to.deep.equal([[1]]);
      expect((await runSql(engine, 'SELECT x FROM grows')).rows).to.deep.equal([[1]]);
      expect((await runSql(engine, 'SELECT x FROM grows')).rows).to.deep.equal([[1]]); // now known small
      await runSql(engine, 'INSERT INTO grows SELECT CAST(i AS integer) FROM UNNEST(sequence(0, 4999)) AS t(i)');
      expect((await runSql(engine, 'SELECT x FROM grows')).rows).to.have.length(5001);
    } finally {
      await engine.close();
    }
  });
});

describe('duckdb engine: reading a chunk\'s rendered rows', () => {
  it('reads the string entries straight from the bindings, never through node-api\'s vector (its type and validity calls)', async () => {
    const engine = await newEngine(1);
    const getColumnVector = sinon.spy(DuckDBDataChunk.prototype, 'getColumnVector');
    try {
      const sql = "SELECT i, 'row ' || CAST(i AS varchar) AS s FROM UNNEST(sequence(0, 2999)) AS t(i)";
      for (let run = 0; run < 3; run++) {
        expect((await runSql(engine, 'SELECT 1')).rows).to.deep.equal([[1]]);
        expect((await runSql(engine, sql)).rows).to.have.length(3000); // streamed, then materialized once small
      }
      expect(getColumnVector.callCount).to.equal(0);
    } finally {
      getColumnVector.restore();
      await engine.close();
    }
  });
});

describe('duckdb engine: copying rendered rows', () => {
  it('pages rows that mix inline (<= 12 bytes) and heap strings across chunks without losing or reordering bytes', async () => {
    const engine = await newEngine(1);
    try {
      // Short rows ([7]) are stored inline in DuckDB's string entries, long ones in the string heap.
      const sql = "SELECT CASE WHEN i % 3 = 0 THEN 7 ELSE i END AS n, CASE WHEN i % 5 = 0 THEN NULL ELSE lpad('', CAST(i % 40 AS integer), 'x') END AS s " +
        'FROM UNNEST(sequence(0, 6999)) AS t(i)';
      const expected = Array.from({ length: 7000 }, (_, i) => [i % 3 === 0 ? 7 : i, i % 5 === 0 ? null : 'x'.repeat(i % 40)]);
      for (const target of [1, 100, 4096, 1 << 20]) {
        const plan = await engine.plan(sql, testSession());
        const execution = plan.execute();
        const rows: unknown[][] = [];
        for (;;) {
          const batch = await execution.next(target);
          if (!batch) break;
          const parsed = JSON.parse(`[${batchText(batch)}]`) as unknown[][];
          expect(parsed).to.have.length(batch.rows);
          expect(Buffer.byteLength(batchText(batch))).to.equal(batch.bytes);
          rows.push(...parsed);
        }
        expect(rows).to.deep.equal(expected);
      }
    } finally {
      await engine.close();
    }
  });
});
