// The translation of Trino trees into DuckDB SQL (lib/sql/duckdb-printer.ts, duckdb-translation.ts): names,
// literals, calls, error locations, and its properties over generated and hostile statements.
import { expect } from 'chai';
import fc from 'fast-check';
import { parseStatement } from '../../lib/sql/parser.js';
import { translateStatement, type TranslationContext } from '../../lib/sql/duckdb-translation.js';
import { decimalLiteralType, intervalUnits } from '../../lib/sql/duckdb-printer.js';
import { isValidDate, isValidTimestamp } from '../../lib/sql/temporal-literals.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import { QUERY_CORPUS } from './sql-corpus.js';
import { statement } from './sql-generators.js';
import { classicAttacks, expectLinear, hostileText } from '../support/linear-time.js';

const context: TranslationContext = {
  catalog: 'tpch',
  schema: 'tiny',
  timeZone: 'America/New_York',
  databaseOf: (catalog) => (catalog === 'system' ? 'vivace_system' : catalog),
  virtualTable: (catalog, schema, table) => (schema === 'information_schema' && table === 'tables' ? `SELECT '${catalog}' AS table_catalog` : undefined),
};

const translate = (sql: string, ctx: TranslationContext = context) => translateStatement(parseStatement(sql), sql, ctx);
const duckdb = (sql: string, ctx?: TranslationContext) => translate(sql, ctx).sql;

describe('DuckDB translation', () => {
  describe('names', () => {
    it('qualifies every table against the session, quoted and folded as Trino folds names', () => {
      expect(duckdb('SELECT * FROM nation')).to.equal('SELECT * FROM "tpch"."tiny"."nation"');
      expect(duckdb('SELECT * FROM SF1.Lineitem')).to.equal('SELECT * FROM "tpch"."sf1"."lineitem"');
      expect(duckdb('SELECT * FROM "MEMORY"."default".t')).to.equal('SELECT * FROM "memory"."default"."t"');
      expect(() => duckdb('SELECT 1 FROM t', { databaseOf: (c) => c })).to.throw(VivaceError, 'line 1:15: Catalog must be specified when session catalog is not set');
      expect(() => duckdb('SELECT 1 FROM t', { catalog: 'tpch', databaseOf: (c) => c })).to.throw(VivaceError, 'Schema must be specified when session schema is not set');
      expect(duckdb('SELECT current_user, current_catalog, current_schema', { user: "o'brien", catalog: 'tpch', databaseOf: (c) => c })).to.equal(
        "SELECT 'o''brien', 'tpch', CAST(NULL AS VARCHAR)",
      );
    });

    it('serves a catalog from its DuckDB database, in table names and in four-part column names only', () => {
      expect(duckdb('SELECT * FROM system.runtime.nodes')).to.equal('SELECT * FROM "vivace_system"."runtime"."nodes"');
      expect(duckdb('select "System".runtime.nodes.node_id from system.runtime.nodes')).to.equal(
        'SELECT "vivace_system"."runtime"."nodes"."node_id" FROM "vivace_system"."runtime"."nodes"',
      );
      // Two parts are schema.table in Trino: the session's catalog.
      expect(duckdb('SELECT * FROM system.nodes')).to.equal('SELECT * FROM "tpch"."system"."nodes"');
      expect(duckdb('SELECT a.system.b.c FROM t a')).to.equal('SELECT "a"."system"."b"."c" FROM "tpch"."tiny"."t" AS "a"');
    });

    it('leaves strings and comments alone: a name inside them is text', () => {
      expect(duckdb(`SELECT 'system.runtime.nodes' -- system.runtime.nodes\n /* system.runtime.x */ FROM t`)).to.equal(
        `SELECT 'system.runtime.nodes' FROM "tpch"."tiny"."t"`,
      );
    });

    it('keeps CTE names bare, and a quoted name one identifier whatever it holds', () => {
      expect(duckdb('WITH nation AS (SELECT 1 a) SELECT a FROM nation')).to.equal('WITH "nation" AS (SELECT 1 AS "a") SELECT "a" FROM "nation"');
      expect(duckdb('SELECT "a""; DROP TABLE x; --" FROM t')).to.equal('SELECT "a""; DROP TABLE x; --" FROM "tpch"."tiny"."t"');
    });

    it('collects the tables a statement names, resolved (not CTEs)', () => {
      const tables = (sql: string) => translate(sql).tables.map((t) => `${t.catalog}.${t.schema}.${t.table}`).sort();
      expect(tables('SELECT * FROM tpch.sf1.lineitem l JOIN TPCH . "sf10" . "orders" o ON true')).to.deep.equal(['tpch.sf1.lineitem', 'tpch.sf10.orders']);
      expect(tables('WITH w AS (SELECT 1) SELECT * FROM w, orders')).to.deep.equal(['tpch.tiny.orders']);
      expect(tables('INSERT INTO memory.default.t SELECT * FROM (SELECT * FROM region)')).to.deep.equal(['memory.default.t', 'tpch.tiny.region']);
    });

    it('puts the engine\'s own SQL where a statement names an information_schema table', () => {
      expect(duckdb('SELECT * FROM information_schema.tables')).to.equal(`SELECT * FROM (SELECT 'tpch' AS table_catalog) AS "tables"`);
      expect(duckdb('SELECT t.table_catalog FROM memory.information_schema.tables t')).to.equal(`SELECT "t"."table_catalog" FROM (SELECT 'memory' AS table_catalog) AS "t"`);
    });
  });

  describe('literals and types', () => {
    it('types decimal literals as Trino does: leading zeros do not count', () => {
      expect(decimalLiteralType('1.10')).to.deep.equal({ precision: 3, scale: 2 });
      expect(decimalLiteralType('0.05')).to.deep.equal({ precision: 2, scale: 2 });
      expect(decimalLiteralType('.5')).to.deep.equal({ precision: 1, scale: 1 });
      expect(decimalLiteralType('007.')).to.deep.equal({ precision: 1, scale: 0 });
      expect(decimalLiteralType('-0')).to.deep.equal({ precision: 1, scale: 0 });
      expect(decimalLiteralType('1e5')).to.equal(undefined);
      expect(duckdb("SELECT 1112.142857, DECIMAL ' 12.30 '")).to.equal("SELECT CAST('1112.142857' AS DECIMAL(10, 6)), CAST('12.30' AS DECIMAL(4, 2))");
    });

    it('refuses DATE and TIMESTAMP literals that are no calendar date or time of day, where they stand (Trino: INVALID_LITERAL)', () => {
      expect(() => duckdb("SELECT DATE '2020-13-01'")).to.throw(VivaceError, "line 1:8: '2020-13-01' is not a valid DATE literal");
      expect(() => duckdb("SELECT DATE '2021-02-29'")).to.throw(VivaceError, 'not a valid DATE literal');
      expect(() => duckdb("SELECT TIMESTAMP '2020-01-01 24:00:00'")).to.throw(VivaceError, 'not a valid TIMESTAMP literal');
      expect(() => duckdb("SELECT TIMESTAMP '2020-01-01 10:61'")).to.throw(VivaceError, 'not a valid TIMESTAMP literal');
      expect(duckdb("SELECT DATE '2020-02-29', DATE ' 2020-1-2 ', TIMESTAMP '2020-01-01', TIMESTAMP '2020-01-01 1:02', TIMESTAMP '2020-01-01 10:00:00.123456789 UTC'")).to.be.a('string');
      expectLinear('isValidTimestamp', (t) => isValidTimestamp(t), (size) => [`2020-01-01 ${'1'.repeat(size)}`, '9'.repeat(size), `2020-01-01 01:${'0'.repeat(size)}`]);
      fc.assert(fc.property(hostileText(5_000), (t) => {
        isValidDate(t);
        isValidTimestamp(t);
      }), { numRuns: 30 });
    });

    it('refuses a DECIMAL literal that is not a number, where it stands', () => {
      expect(() => duckdb("SELECT 1, DECIMAL 'abc'")).to.throw(VivaceError, "line 1:11: 'abc' is not a valid DECIMAL literal");
    });

    it('spells binary, typed and interval literals as DuckDB reads them', () => {
      expect(duckdb("SELECT X'DEAD', REAL '1.5', JSON '[1]', DATE '2020-01-01'")).to.equal(
        "SELECT CAST('\\xDE\\xAD' AS BLOB), CAST('1.5' AS FLOAT), CAST('[1]' AS JSON), DATE '2020-01-01'",
      );
      expect(duckdb("SELECT INTERVAL '3' MONTH, INTERVAL -'1-2' YEAR TO MONTH, INTERVAL '1 02:03:04.5' DAY TO SECOND")).to.equal(
        "SELECT (INTERVAL '3' MONTH), (-CAST('1 years 2 months' AS INTERVAL)), (CAST('1 days 02 hours 03 minutes 04.5 seconds' AS INTERVAL))",
      );
      expect(intervalUnits('-10:30', 'HOUR', 'MINUTE')).to.equal('-10 hours -30 minutes');
      expect(intervalUnits('1 2', 'YEAR', 'MONTH')).to.equal(undefined);
      expect(intervalUnits('1-2; DROP', 'YEAR', 'MONTH')).to.equal(undefined);
    });

    it('maps Trino types to DuckDB types', () => {
      expect(duckdb('SELECT CAST(a AS array(row(x bigint, y varchar(3)))), CAST(b AS map(varchar, double)), CAST(c AS decimal), CAST(d AS real)')).to.equal(
        'SELECT CAST("a" AS STRUCT("x" BIGINT, "y" VARCHAR)[]), CAST("b" AS MAP(VARCHAR, DOUBLE)), CAST("c" AS DECIMAL(38, 0)), CAST("d" AS FLOAT)',
      );
    });

    it('casts a row of anonymous fields to a JSON array, as Trino', () => {
      expect(duckdb("SELECT CAST(ROW(1, 'a') AS JSON)")).to.equal("SELECT json_array(1, 'a')");
    });

    it('parenthesizes every VALUES row, and reads TABLE t as a query', () => {
      expect(duckdb('VALUES 1, 2')).to.equal('VALUES (1), (2)');
      expect(duckdb("VALUES (1, 'a')")).to.equal("VALUES (1, 'a')");
      expect(duckdb('TABLE region')).to.equal('SELECT * FROM "tpch"."tiny"."region"');
    });
  });

  describe('calls and operators', () => {
    it('divides with the project\'s macros: over aggregates untyped, in TRY null on zero, literal decimals typed', () => {
      expect(duckdb('SELECT a / b, sum(a) / count(*), try(a / b), 1.10 / 3')).to.equal(
        'SELECT vivace_divide("a", "b"), vivace_divide_any(sum("a"), count(*)), try(vivace_try_divide("a", "b")), ' +
          "CAST(vivace_divide(CAST('1.10' AS DECIMAL(3, 2)), 3) AS DECIMAL(3, 2))",
      );
    });

    it('rewrites the lambda functions DuckDB spells otherwise, binding entry parameters to fields', () => {
      expect(duckdb('SELECT transform(a, x -> x + 1), map_filter(m, (k, v) -> v > 0 AND k <> \'x\')')).to.equal(
        'SELECT list_transform("a", (lambda "x": "x" + 1)), ' +
          'map_from_entries(list_filter(map_entries("m"), (lambda "vivace_e": "vivace_e"."value" > 0 AND "vivace_e"."key" <> \'x\')))',
      );
      // A parameter of an inner lambda shadows an outer entry binding of the same name.
      expect(duckdb('SELECT map_filter(m, (k, v) -> any_match(v, k -> k > 0))')).to.contain('(lambda "k": "k" > 0)');
    });

    it('fills in IF\'s third argument, reads the session zone, and numbers parameters', () => {
      expect(duckdb("SELECT if(a, 1), current_timezone(), date_format(d, '%Y'), ? + ?")).to.equal(
        "SELECT if(\"a\", 1, NULL), 'America/New_York', strftime(\"d\", '%Y'), $1 + $2",
      );
      expect(duckdb('SELECT current_timezone()', { ...context, timeZone: "x'); DROP" })).to.equal("SELECT 'UTC'");
    });

    it('moves IGNORE NULLS inside the call, and names only the function (never a qualification)', () => {
      expect(duckdb('SELECT first_value(x) IGNORE NULLS OVER (ORDER BY x), system.builtin.abs(x) FROM t')).to.equal(
        'SELECT first_value("x" IGNORE NULLS) OVER (ORDER BY "x"), abs("x") FROM "tpch"."tiny"."t"',
      );
    });
  });

  describe('statements', () => {
    it('writes DDL and DML against fully qualified names', () => {
      expect(duckdb('CREATE TABLE IF NOT EXISTS t (a bigint NOT NULL, b varchar)')).to.equal('CREATE TABLE IF NOT EXISTS "tpch"."tiny"."t" ("a" BIGINT NOT NULL, "b" VARCHAR)');
      expect(duckdb('ALTER TABLE memory.default.a RENAME TO memory.default.b')).to.equal('ALTER TABLE "memory"."default"."a" RENAME TO "b"');
      expect(duckdb('DROP SCHEMA IF EXISTS memory.s CASCADE')).to.equal('DROP SCHEMA IF EXISTS "memory"."s" CASCADE');
      expect(duckdb("COMMENT ON COLUMN memory.default.t.a IS 'x'")).to.equal(`COMMENT ON COLUMN "memory"."default"."t"."a" IS 'x'`);
      expect(duckdb('UPDATE t SET a = a / 2 WHERE b')).to.equal('UPDATE "tpch"."tiny"."t" SET "a" = vivace_divide("a", 2) WHERE "b"');
    });

    it('refuses what the memory connector does not have, as Trino names it', () => {
      expect(() => duckdb("CREATE TABLE t (a bigint) WITH (format = 'ORC')")).to.throw(VivaceError, "Catalog 'memory' table property 'format' does not exist");
      expect(() => duckdb('ALTER TABLE memory.a.t RENAME TO memory.b.t')).to.throw(VivaceError, 'across schemas');
      expect(() => duckdb('SHOW TABLES')).to.throw(VivaceError, 'ShowTables is not supported');
    });

    it('keeps a subquery where the grammar wants one, even when it equals a GROUP BY expression', () => {
      // Found by the property below: the grouping rewrite put a grouped value in ANY's subquery slot.
      for (const sql of [
        "SELECT a FROM memory.default.t GROUP BY (SELECT 1), a HAVING (a AT TIME ZONE 'UTC') = ANY (SELECT 1)",
        'SELECT a FROM memory.default.t GROUP BY (SELECT 1), a HAVING EXISTS (SELECT 1) AND a IN (SELECT 1)',
      ]) {
        const text = duckdb(sql);
        expect(text).to.include('(SELECT 1)');
        expect(text).not.to.include('ANY vivace_');
      }
    });
  });

  describe('zoned grouping', () => {
    it('leaves a typed literal whole where a group key shares its type name (GROUP BY date ... DATE \'2020-01-01\')', () => {
      // Found by the generated-statements property: the DATE keyword of the literal was read as the group column date.
      const sql = "SELECT a GROUP BY date HAVING a BETWEEN a AND DATE '2020-01-01' UNION SELECT a ORDER BY transform(a AT TIME ZONE 'UTC', x -> a) NULLS LAST";
      const text = duckdb(sql);
      expect(text).to.contain("vivace_instant_key(DATE '2020-01-01')");
      expect(text).to.contain('GROUP BY vivace_typed_vivace_instant_key("date")');
    });

    it('leaves a window name whole where a group key shares it (GROUP BY date, w ... OVER (w))', () => {
      const sql = "SELECT date, count(*) OVER (w) FROM t GROUP BY date, w HAVING date = DATE '2020-01-01' WINDOW w AS (PARTITION BY date) ORDER BY date AT TIME ZONE 'UTC'";
      const text = duckdb(sql);
      expect(text).to.contain('OVER ("w")');
      expect(text).to.contain('WINDOW "w" AS');
    });
  });

  describe('the time of the query', () => {
    // 2025-11-29 20:00:00.123 UTC: Trino's tasks all read the session's start; so does every task's translation.
    const start = Date.UTC(2025, 10, 29, 20, 0, 0, 123);
    const pinned = { ...context, queryStart: start };

    it('prints the query\'s start as a literal for current_timestamp, now(), current_date, current_time, localtime and localtimestamp', () => {
      const sql = 'SELECT current_timestamp, now(), current_timestamp(6), current_date, current_time, localtime(0), localtimestamp FROM nation';
      const text = duckdb(sql, pinned);
      expect(text).to.not.contain('get_current_timestamp');
      expect(text).to.not.match(/\bCURRENT_DATE\b|\bLOCALTIME/);
      expect(text.split("TIMESTAMP '2025-11-29 20:00:00.123'").length - 1).to.equal(7);
      expect(text).to.contain("CAST(vivace_local_us(TIMESTAMP '2025-11-29 20:00:00.123', 'America/New_York') AS DATE)");
      expect(translate(sql, pinned).readsQueryStart).to.equal(true);
      // Another start, another text; the same start, the same text (a worker's plan cache keys on it).
      expect(duckdb(sql, { ...context, queryStart: start + 1 })).to.contain("TIMESTAMP '2025-11-29 20:00:00.124'");
      expect(duckdb(sql, pinned)).to.equal(text);
    });

    it('reads DuckDB\'s transaction start without one, and says a statement not reading the time holds none', () => {
      expect(duckdb('SELECT now(), current_date FROM nation')).to.contain("timezone('UTC', get_current_timestamp())");
      expect(translate('SELECT now() FROM nation').readsQueryStart).to.equal(false);
      expect(translate("SELECT name, TIMESTAMP '2020-01-01 00:00:00 UTC' FROM nation", pinned).readsQueryStart).to.equal(false);
    });
  });

  describe('error locations', () => {
    it('leads an offset in the translation back to the node as written, operators to their operator', () => {
      const sql = 'SELECT\n  id   +   ARRAY[1] FROM things';
      const t = translate(sql);
      expect(t.sql).to.equal('SELECT "id" + ARRAY[1] FROM "tpch"."tiny"."things"');
      expect(t.toOriginal(t.sql.indexOf('+'))).to.equal(sql.indexOf('+') - 2);
      expect(t.toOriginal(t.sql.indexOf('ARRAY') + 2)).to.equal(sql.indexOf('ARRAY'));
      expect(t.toOriginal(t.sql.indexOf('"things"'))).to.equal(sql.indexOf('things'));
    });
  });

  describe('properties', () => {
    it('translates every statement of the corpus, or refuses it with a VivaceError', () => {
      let translated = 0;
      for (const sql of QUERY_CORPUS) {
        try {
          expect(duckdb(sql)).to.be.a('string').and.not.equal('');
          translated++;
        } catch (err) {
          if (!(err instanceof VivaceError)) throw err;
        }
      }
      expect(translated).to.be.greaterThan(QUERY_CORPUS.length / 2);
    });

    it('translates generated statements into text holding no Trino-only syntax DuckDB would read otherwise', () => {
      fc.assert(
        fc.property(statement, (sql) => {
          const tree = parseStatement(sql);
          if (tree.type === 'Explain') return;
          let text: string;
          try {
            text = translateStatement(tree, sql, context).sql;
          } catch (err) {
            expect(err).to.be.instanceOf(VivaceError);
            return;
          }
          expect(text).not.to.match(/\bX'/);
          expect(text).not.to.contain('?');
        }),
        { numRuns: 300 },
      );
    });

    it('parses and translates hostile text in linear time', () => {
      const parseAndTranslate = (text: string) => translateStatement(parseStatement(text), text, context);
      expectLinear('translate', parseAndTranslate, (size) => classicAttacks(size));
      fc.assert(
        fc.property(hostileText(20_000), (text) => {
          try {
            parseAndTranslate(`SELECT ${text}`);
          } catch (err) {
            if (!(err instanceof VivaceError)) throw err;
          }
        }),
        { numRuns: 30 },
      );
    });
  });
});
