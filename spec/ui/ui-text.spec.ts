// The pages' pure text handling, without a browser: airlift durations, shortened SQL, query ids from the
// address, the error's mark in the SQL, the list's filters and order (fast-check for every parser).
import { expect } from 'chai';
import fc from 'fast-check';
import { polylinePoints } from '../../lib/ui/browser/chart.js';
import { formatCount, formatMillis, parseDuration, progressOf, queryIdFrom, shortText } from '../../lib/ui/browser/format.js';
import { compareQueries, DEFAULT_FILTERS, filtersFromHash, hashFromFilters, matchesFilters, selectQueries } from '../../lib/ui/browser/query-filter.js';
import { markSql } from '../../lib/ui/browser/sql-marker.js';
import { formatDuration } from '../../lib/protocol/duration.js';
import type { BasicQueryInfo } from '../../lib/ui/browser/types.js';

describe('ui text', () => {
  it('parses the durations the server writes, and nothing else', () => {
    expect(parseDuration('3.60s')).to.equal(3600);
    expect(parseDuration('2.00ms')).to.equal(2);
    expect(parseDuration('1.50m')).to.equal(90_000);
    expect(parseDuration('0.00s')).to.equal(0);
    for (const bad of ['', 's', '1.2x', '1e3s', '-1s', 'NaNs', '1..2s', undefined, '9'.repeat(100) + 's']) expect(parseDuration(bad), String(bad)).to.equal(undefined);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 10 }), (ms) => {
        const parsed = parseDuration(formatDuration(ms));
        expect(parsed).to.be.a('number');
        // airlift rounds to two decimals of its unit: within 1% (or 0.01 ms).
        expect(Math.abs(parsed! - ms)).to.be.at.most(Math.max(0.01, ms * 0.01));
      }),
    );
    fc.assert(fc.property(fc.string({ maxLength: 80 }), (text) => {
      const parsed = parseDuration(text);
      expect(parsed === undefined || (Number.isFinite(parsed) && parsed >= 0)).to.equal(true);
    }));
  });

  it('formats milliseconds and counts compactly', () => {
    expect(formatMillis(850)).to.equal('850ms');
    expect(formatMillis(12_340)).to.equal('12.3s');
    expect(formatMillis(270_000)).to.equal('4.5m');
    expect(formatMillis(undefined)).to.equal('');
    expect(formatCount(999)).to.equal('999');
    expect(formatCount(1234)).to.equal('1.2K');
    expect(formatCount(3_400_000)).to.equal('3.4M');
    expect(formatCount(0.5)).to.equal('0.50');
    expect(progressOf(3, 4)).to.equal(0.75);
    expect(progressOf(5, 0)).to.equal(0);
    expect(progressOf(9, 4)).to.equal(1);
  });

  it('shortens SQL to one line of at most the length asked (fast-check)', () => {
    expect(shortText('SELECT\n  a,\n\tb\nFROM t', 100)).to.equal('SELECT a, b FROM t');
    expect(shortText('abcdefghij', 5)).to.equal('abcd…');
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), fc.integer({ min: 2, max: 200 }), (text, max) => {
        const short = shortText(text, max);
        expect(short.length).to.be.at.most(max);
        expect(short).not.to.include('\n');
        expect(short.startsWith(' ')).to.equal(false);
      }),
    );
  });

  it('takes a query id from the address and refuses anything else', () => {
    expect(queryIdFrom('?20261124_033206_00000_wztwa')).to.equal('20261124_033206_00000_wztwa');
    expect(queryIdFrom('?20261124_033206_00000_wztwa&x=1')).to.equal('20261124_033206_00000_wztwa');
    for (const bad of ['', '?', '?%', '?../x', '?a%2Fb', '?<img src=x>', `?${'a'.repeat(101)}`]) expect(queryIdFrom(bad), bad).to.equal(undefined);
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (text) => {
        const id = queryIdFrom(text);
        if (id !== undefined) {
          expect(id.length).to.be.within(1, 100);
          for (const ch of id) expect('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_').to.include(ch);
        }
      }),
    );
  });

  it('marks the token at the error location in its line', () => {
    const lines = markSql('SELECT 1\nFROM nosuch x', { lineNumber: 2, columnNumber: 6 });
    expect(lines).to.have.length(2);
    expect(lines[0]).to.deep.include({ number: 1, before: 'SELECT 1', marked: '', error: false });
    expect(lines[1]).to.deep.include({ number: 2, before: 'FROM ', marked: 'nosuch', after: ' x', error: true });
    expect(markSql('SELECT (', { lineNumber: 1, columnNumber: 9 })[0]).to.deep.include({ before: 'SELECT (', marked: ' ', error: true });
    expect(markSql('SELECT 1', { lineNumber: 1, columnNumber: 8 })[0]).to.deep.include({ before: 'SELECT ', marked: '1', after: '' });
    expect(markSql('SELECT 1', { lineNumber: 5, columnNumber: 1 }).some((l) => l.error)).to.equal(false);
    expect(markSql('SELECT 1', undefined).some((l) => l.error)).to.equal(false);
  });

  it('keeps every character of the SQL when marking, whatever the location (fast-check)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), fc.integer({ min: -2, max: 12 }), fc.integer({ min: -2, max: 80 }), (sql, lineNumber, columnNumber) => {
        const lines = markSql(sql, { lineNumber, columnNumber });
        const rebuilt = lines.map((l) => (l.error && l.marked === ' ' && l.after === '' && columnNumber - 1 >= l.before.length ? l.before : l.before + l.marked + l.after)).join('\n');
        expect(rebuilt).to.equal(sql);
        expect(lines.filter((l) => l.error).length).to.be.at.most(1);
      }),
    );
  });

  it('filters by state, user and text, newest first, limited', () => {
    const q = (queryId: string, state: string, user: string, query: string, createTime: string, error?: string): BasicQueryInfo => ({
      queryId,
      state,
      query,
      session: { user, source: 'cli' },
      queryStats: { createTime },
      ...(error ? { errorCode: { name: error } } : {}),
    });
    const all = [
      q('a', 'FINISHED', 'alice', 'SELECT 1', '2026-01-01T00:00:01.000+00:00'),
      q('b', 'FAILED', 'bob', 'SELECT * FROM nope', '2026-01-01T00:00:02.000+00:00', 'TABLE_NOT_FOUND'),
      q('c', 'RUNNING', 'alice', 'SELECT count(*) FROM lineitem', '2026-01-01T00:00:03.000+00:00'),
    ];
    const ids = (filters: Partial<typeof DEFAULT_FILTERS>) => selectQueries(all, { ...DEFAULT_FILTERS, ...filters }).shown.map((x) => x.queryId);
    expect(ids({})).to.deep.equal(['c', 'b', 'a']);
    expect(ids({ state: 'FAILED' })).to.deep.equal(['b']);
    expect(ids({ state: 'ACTIVE' })).to.deep.equal(['c']);
    expect(ids({ user: 'ALI' })).to.deep.equal(['c', 'a']);
    expect(ids({ search: 'lineitem' })).to.deep.equal(['c']);
    expect(ids({ search: 'table_not' })).to.deep.equal(['b']);
    expect(ids({ limit: 2 })).to.deep.equal(['c', 'b']);
    expect(selectQueries(all, { ...DEFAULT_FILTERS, limit: 1 }).matched).to.equal(3);
    expect(compareQueries(all[0]!, all[0]!)).to.equal(0);
    expect(matchesFilters({ queryId: 'x' }, { ...DEFAULT_FILTERS, user: 'a' })).to.equal(false);
  });

  it('round-trips the filters through the address hash; odd hashes fall back to defaults (fast-check)', () => {
    const filters = { state: 'FAILED', user: 'a&b=c', search: 'x #y', limit: 500 };
    expect(filtersFromHash(hashFromFilters(filters))).to.deep.equal(filters);
    expect(hashFromFilters(DEFAULT_FILTERS)).to.equal('');
    expect(filtersFromHash('#limit=7')).to.deep.equal(DEFAULT_FILTERS);
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (hash) => {
        const parsed = filtersFromHash(hash);
        expect(parsed.user.length).to.be.at.most(256);
        expect([20, 100, 500, 1000]).to.include(parsed.limit);
      }),
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), fc.string({ maxLength: 50 }), (user, search) => {
        const f = { ...DEFAULT_FILTERS, user, search };
        expect(filtersFromHash(hashFromFilters(f))).to.deep.equal(f);
      }),
    );
  });

  it('scales chart points into the box, whatever the values', () => {
    expect(polylinePoints([], 0)).to.equal('');
    const points = polylinePoints([0, 5, 10], 10).split(' ').map((p) => p.split(',').map(Number));
    expect(points).to.have.length(3);
    expect(points[0]![1]).to.be.greaterThan(points[2]![1]!);
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 1e9 }), { maxLength: 300 }), (values) => {
        const max = values.reduce((a, b) => Math.max(a, b), 0);
        for (const point of polylinePoints(values, max).split(' ').filter(Boolean)) {
          const [x, y] = point.split(',').map(Number);
          expect(x).to.be.within(0, 600);
          expect(y).to.be.within(0, 120);
        }
      }),
    );
  });
});
