// Functions that build large values fail with Presto's message before DuckDB builds anything, planning
// included (presto-functions.ts), and nested calls to Presto's functions bind in linear time (issue 7, point 4).
import { expect } from 'chai';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { Engine } from '../../lib/engine/engine.types.js';
import { CONNECTION_SETUP_SQL } from '../../lib/engine/presto-macros.js';
import { INVALID_ARGUMENT_TAG, invalidArgumentMessage, VALUE_LIMITS } from '../../lib/engine/presto-functions.js';
import { createTestEngine } from '../support/duckdb.js';
import { runSql, testSession } from './engine-helpers.js';

const SEQUENCE_TOO_LONG = 'result of sequence function must not have more than 10000 entries';
const WRONG_DIRECTION =
  'sequence stop value should be greater than or equal to start value if step is greater than zero otherwise stop should be less than or equal to start';

describe('value guards: functions that build large values', function () {
  this.timeout(60_000);
  let engine: Engine;
  // Presto's repeat (an array) is a macro the SQL gate does not admit yet (lib/sql/function-catalog.ts
  // still lists DuckDB's string repeat as unsupported): its specs run on a bare connection with the macros.
  let instance: DuckDBInstance;
  let bare: DuckDBConnection;
  before(async () => {
    engine = await createTestEngine(2);
    instance = await DuckDBInstance.create(':memory:', { memory_limit: '1GB', threads: '2' });
    bare = await instance.connect();
    for (const sql of CONNECTION_SETUP_SQL) await bare.run(sql);
  });
  after(async () => {
    bare.closeSync();
    instance.closeSync();
    await engine.close();
  });

  const onBare = (sql: string) => /\brepeat\(/.test(sql);

  /** The error of `sql`, and how long it took to fail. */
  async function failure(sql: string): Promise<{ error: Error & { errorName?: string }; ms: number }> {
    const start = performance.now();
    const run = onBare(sql) ? bare.runAndReadAll(sql) : runSql(engine, sql, testSession());
    const error = await (run as Promise<unknown>).then(
      () => expect.fail(`${sql} succeeded`),
      (e: unknown) => e as Error & { errorName?: string },
    );
    return { error, ms: performance.now() - start };
  }

  /** The single row of `SELECT <expression>` as JSON text (DuckDB's JSON on the bare connection). */
  async function value(expression: string): Promise<string> {
    if (onBare(expression)) return JSON.stringify((await bare.runAndReadAll(`SELECT ${expression}`)).getRowsJson()[0]).slice(1, -1);
    return (await runSql(engine, `SELECT ${expression}`, testSession())).json.slice(2, -2);
  }

  it('SELECT count(*) FROM UNNEST(sequence(1, 100000000)) fails at once, without building the array', async () => {
    await value('1'); // a warm connection
    const rss = process.memoryUsage.rss();
    const { error, ms } = await failure('SELECT count(*) FROM UNNEST(sequence(1, 100000000))');
    expect(error).to.include({ errorName: 'INVALID_FUNCTION_ARGUMENT', message: SEQUENCE_TOO_LONG });
    // Before: ~35 s and 9 GB while DuckDB's planner folded the constant. Bounds are generous.
    expect(ms).to.be.below(2000);
    expect(process.memoryUsage.rss() - rss).to.be.below(200 * 1024 * 1024);
  });

  const refusals: [string, string][] = [
    ['sequence(1, 10001)', SEQUENCE_TOO_LONG],
    ['sequence(-5000, 5000)', SEQUENCE_TOO_LONG],
    ['sequence(0, 1000000, 10)', SEQUENCE_TOO_LONG],
    ['sequence(-9223372036854775807, 9223372036854775807)', SEQUENCE_TOO_LONG],
    ['sequence(1, 5, 0)', 'step must not be zero'],
    ['sequence(5, 1, 1)', WRONG_DIRECTION],
    ['sequence(1, 5, -1)', WRONG_DIRECTION],
    ["sequence(DATE '2000-01-01', DATE '2027-05-19')", SEQUENCE_TOO_LONG],
    ["sequence(DATE '2000-01-01', DATE '3000-01-01', INTERVAL '1' MONTH)", SEQUENCE_TOO_LONG],
    ["sequence(DATE '2000-01-01', DATE '2000-02-01', INTERVAL '12' HOUR)", 'sequence step must be a day interval if start and end values are dates'],
    ["sequence(DATE '2000-01-01', DATE '2000-02-01', INTERVAL '0' DAY)", 'step must not be zero'],
    ["sequence(DATE '2000-02-01', DATE '2000-01-01', INTERVAL '1' DAY)", WRONG_DIRECTION],
    ["sequence(TIMESTAMP '2000-01-01 00:00:00', TIMESTAMP '3000-01-01 00:00:00', INTERVAL '1' SECOND)", SEQUENCE_TOO_LONG],
    ["sequence(TIMESTAMP '2000-01-01 00:00:00', TIMESTAMP '2000-01-07 22:40:00', INTERVAL '1' MINUTE)", SEQUENCE_TOO_LONG],
    ["sequence(TIMESTAMP '2000-01-01 00:00:00', TIMESTAMP '1999-01-01 00:00:00', INTERVAL '1' MONTH)", WRONG_DIRECTION],
    ['repeat(1, 10001)', 'count argument of repeat function must be less than or equal to 10000'],
    ['repeat(1, 100000000)', 'count argument of repeat function must be less than or equal to 10000'],
    ['repeat(1, -1)', 'count argument of repeat function must be greater than or equal to 0'],
    ["repeat(lpad('', 97, 'x'), 10000)", 'result of repeat function must not take more than 1000000 bytes'],
    ["lpad('a', 2000000000, 'x')", `Target length must be in the range [0..${VALUE_LIMITS.padLength}]`],
    ["rpad('a', -1, 'x')", `Target length must be in the range [0..${VALUE_LIMITS.padLength}]`],
    ["lpad('abc', 2, '')", 'Padding string must not be empty'],
    ["levenshtein_distance(lpad('', 1001, 'x'), lpad('', 1001, 'y'))", 'The combined inputs for Levenshtein distance are too large'],
    ["levenshtein_distance('hello', lpad('', 500000, 'x'))", 'The combined inputs for Levenshtein distance are too large'],
    ["split('a.b.c', '')", 'The delimiter may not be the empty string'],
    ["split('a.b.c', '', 1)", 'The delimiter may not be the empty string'],
    ["split('a.b.c', '.', 0)", 'Limit must be positive'],
    ["split('a.b.c', '.', 2147483648)", 'Limit is too large'],
  ];
  for (const [expression, message] of refusals) {
    it(`${expression}: ${message}`, async () => {
      const { error, ms } = await failure(`SELECT ${expression}`);
      expect(error.message).to.include(message);
      // Through the engine, Presto's name and message exactly (the bare connection shows DuckDB's raw error).
      if (!onBare(expression)) expect(error).to.include({ errorName: 'INVALID_FUNCTION_ARGUMENT', message });
      expect(ms).to.be.below(2000);
    });
  }

  it('values at the limits are built', async () => {
    expect(await value('cardinality(sequence(1, 10000)), cardinality(sequence(-4999, 5000))')).to.equal('10000,10000');
    expect(await value('len(repeat(1, 10000))')).to.equal('"10000"');
    expect(await value("cardinality(sequence(DATE '2000-01-01', DATE '2027-05-18')), cardinality(sequence(DATE '2000-01-01', DATE '2833-04-01', INTERVAL '1' MONTH))"))
      .to.equal('10000,10000');
    expect(await value("cardinality(sequence(TIMESTAMP '2000-01-01 00:00:00', TIMESTAMP '2000-01-07 22:39:00', INTERVAL '1' MINUTE))")).to.equal('10000');
    expect(await value("length(lpad('a', 1000000, 'x')), levenshtein_distance(lpad('', 1000, 'x'), lpad('', 1000, 'y'))")).to.equal('1000000,1000');
    expect(await value("len(repeat(lpad('', 95, 'x'), 10000))")).to.equal('"10000"');
  });

  it('TRY turns a refusal into NULL, as Presto does', async () => {
    expect(await value("try(sequence(1, 100000)), try(lpad('a', 2000000000, 'x'))")).to.equal('null,null');
    expect(await value('try(repeat(1, 100000))')).to.equal('null');
  });

  it("repeat builds Presto's array; lpad, rpad and split keep their results", async () => {
    expect(await value("repeat('ab', 3), repeat(1, 0), repeat(NULL, 2), repeat([1, 2], 2), typeof(repeat(1, 3))"))
      .to.equal('["ab","ab","ab"],[],[null,null],[[1,2],[1,2]],"array(integer)"');
    expect(await value("lpad('abc', 5, 'xy'), rpad('abc', 5, 'xy'), lpad('abc', 2, 'x'), split('a.b.c', '.', 2), split('a.b.c', '.', 1)"))
      .to.equal('"xyabc","abcxy","ab",["a","b.c"],["a.b.c"]');
  });

  it('the refusal is tagged for duckdb-errors.ts to report as INVALID_FUNCTION_ARGUMENT with the bare message', () => {
    const line = `Conversion Error: Could not convert string '${INVALID_ARGUMENT_TAG}${SEQUENCE_TOO_LONG}' to INT64`;
    expect(invalidArgumentMessage(line)).to.equal(SEQUENCE_TOO_LONG);
    expect(invalidArgumentMessage("Conversion Error: Could not convert string 'x' to INT64")).to.equal(undefined);
    expect(invalidArgumentMessage('Invalid Input Error: x')).to.equal(undefined);
  });

  describe('nested calls bind in linear time', () => {
    // Each wrapped 32 times around itself. Before: a macro pasted a parameter used k times k times per
    // level and typed macros bound their arguments twice (slice 8 deep: 44 s and 1.1 GB, array_distinct
    // 14 deep: 33 s, a 16-deep divisor: 8 s).
    const nestings: [string, string, (inner: string) => string][] = [
      ['slice', 'ARRAY[3, 1, 2]', (e) => `slice(${e}, 1, 5)`],
      ['array_distinct', 'ARRAY[3, 1, 2]', (e) => `array_distinct(${e})`],
      ['regexp_extract', "'abc'", (e) => `regexp_extract(${e}, 'a.*')`],
      ['division', '3', (e) => `7 / ${e}`],
      ['date_add', "DATE '2020-01-01'", (e) => `date_add('day', 1, ${e})`],
      ['lpad', "'abc'", (e) => `lpad(${e}, 3, 'x')`],
      ['sequence', '3', (e) => `cardinality(sequence(1, ${e}))`],
    ];
    for (const [name, leaf, level] of nestings) {
      it(`${name} nested 32 deep`, async () => {
        let expression = leaf;
        for (let i = 0; i < 32; i++) expression = level(expression);
        const start = performance.now();
        await value(expression);
        expect(performance.now() - start).to.be.below(5000);
      });
    }
  });
});
