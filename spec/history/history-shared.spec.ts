// Two coordinators on one data directory share `history/` (lib/history/history-store.ts): each writes files
// of its own (named by its writer id, so two batches of the same second and sequence never overwrite each
// other), each reads the other's (listed again before a read), and the bounds apply to all files without
// one store removing the other's write in flight (a temporary file) or failing on a file the other removed.
// Two stores on one real temp directory.
import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueryView } from '../../lib/actors/query-view.js';
import { QueryHistoryStore } from '../../lib/history/history-store.js';
import { copiesOf, finishedViews } from './fixtures/finished-views.js';

describe('history: two coordinators on one data directory', () => {
  let root: string;
  let dir: string;
  let view: QueryView;
  let clock: number;
  const at = Date.UTC(2026, 10, 29, 7, 0, 0);
  const store = (writerId: string, overrides: Partial<ConstructorParameters<typeof QueryHistoryStore>[0]> = {}) =>
    new QueryHistoryStore({ directory: dir, maxAgeMs: 3_600_000, maxSizeBytes: 1 << 30, batchSize: 2, now: () => clock, writerId, ...overrides });
  const names = () => readdirSync(dir).sort();
  const pad = (n: number) => String(n).padStart(15, '0');

  before(async () => {
    [view] = await finishedViews(1);
  });
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'vivace-history-shared-'));
    dir = join(root, 'history');
    clock = at + 1000;
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('writes files of its own: batches of the same second and sequence do not overwrite each other', async () => {
    const a = store('a');
    const b = store('b');
    const [a1, a2, b1, b2] = copiesOf(view, 4, at, 0, (i) => (i < 2 ? 'alice' : 'bob'));
    a.append(a1!);
    b.append(b1!);
    a.append(a2!);
    b.append(b2!);
    await Promise.all([a.settled(), b.settled()]);
    // Same first and last creation, sequence 1 each: the writer keeps the names apart.
    expect(names()).to.deep.equal([`${pad(at)}-${pad(at)}-${pad(1)}-a.jsonl`, `${pad(at)}-${pad(at)}-${pad(1)}-b.jsonl`]);
    // Each reads everyone's files, under its own visibility rule.
    for (const reader of [a, b]) {
      expect((await reader.recentRows(10)).rows.map((r) => r.queryId).sort()).to.deep.equal([a1, a2, b1, b2].map((v) => v!.queryId).sort());
      expect((await reader.recentRows(10, (owner) => owner === 'bob')).rows.map((r) => r.user)).to.deep.equal(['bob', 'bob']);
      expect((await reader.find(b2!.queryId))?.user).to.equal('bob');
      expect((await reader.find(a1!.queryId))?.user).to.equal('alice');
    }
    // A file written after a store started is found too (the directory is listed again before a read).
    const [late1, late2] = copiesOf(view, 2, at + 2000, 10);
    b.append(late1!);
    b.append(late2!);
    await b.settled();
    expect((await a.find(late2!.queryId))?.queryId).to.equal(late2!.queryId);
    expect((await a.recentRows(1)).rows[0]!.queryId).to.be.oneOf([late1!.queryId, late2!.queryId]);
  });

  it("applies the bounds to every coordinator's files, never to a write in flight, and reads on when the other removed a file", async () => {
    const errors: string[] = [];
    const onError = (message: string) => errors.push(message);
    const a = store('a', { onError });
    const b = store('b', { onError });
    const copies = copiesOf(view, 8, at, 0).map((copy, i) => ({ ...copy, createTime: at + i * 10 }));
    for (const [i, copy] of copies.entries()) {
      (i % 4 < 2 ? a : b).append(copy);
      await Promise.all([a.settled(), b.settled()]);
    }
    expect(names().map((n) => n.split('-')[3])).to.deep.equal(['a.jsonl', 'b.jsonl', 'a.jsonl', 'b.jsonl']); // oldest first
    const fileBytes = statSync(join(dir, names()[0]!)).size;
    // b's write in flight (its temporary file) while a third coordinator starts bounded to about two files.
    const inFlight = `${pad(at)}-${pad(at)}-${pad(9)}-b.jsonl.tmp`;
    writeFileSync(join(dir, inFlight), '{"queryId":"half');
    const c = store('c', { maxSizeBytes: Math.floor(fileBytes * 2.5), onError });
    // The two oldest files went, one of each writer's (by age across writers); the write in flight stays.
    expect(names()).to.include(inFlight);
    expect(names().filter((n) => n.endsWith('.jsonl')).map((n) => n.split('-')[3])).to.deep.equal(['a.jsonl', 'b.jsonl']);
    // Two of the files b wrote or read before are gone: its reads answer from what is left.
    expect(await b.find(copies[0]!.queryId)).to.equal(undefined);
    expect(await b.find(copies[2]!.queryId)).to.equal(undefined);
    expect((await b.find(copies[7]!.queryId))?.queryId).to.equal(copies[7]!.queryId);
    expect((await b.recentRows(10)).rows.map((r) => r.queryId)).to.have.members(copies.slice(4).map((v) => v.queryId));
    // Writes go on beside each other; c's bound removes a's and b's oldest, never a file being written.
    const next = copiesOf(view, 4, at + 5000, 20);
    c.append(next[0]!);
    c.append(next[1]!);
    b.append(next[2]!);
    b.append(next[3]!);
    await Promise.all([b.settled(), c.settled()]);
    expect(errors).to.deep.equal([]);
    expect((await a.recentRows(100)).rows.map((r) => r.queryId)).to.include.members(next.map((v) => v.queryId));
    expect(names()).to.include(inFlight);
  });
});
