import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SegmentSpool } from '../../../lib/worker/spool/segment-spool.js';
import { TaskSpooling } from '../../../lib/worker/spool/task-spooling.js';
import { sealSegmentId } from '../../../lib/spooling/segment-id.js';
import { decodeSegment } from '../../support/spooling.js';
import { loopTurnsDuring } from '../../support/loop-turns.js';

const KEY = randomBytes(32);
const rowsText = (n: number, from = 0) => Array.from({ length: n }, (_, i) => JSON.stringify([from + i, `row ${from + i} ${'y'.repeat(30)}`])).join(',');

describe('a worker spool', () => {
  let dir: string;
  let now: number;
  const spoolOf = (options: Partial<ConstructorParameters<typeof SegmentSpool>[0]> = {}) =>
    new SegmentSpool({ directory: join(dir, 'spool'), key: KEY, nodeId: 'w1', maxBytes: 1 << 20, ttlMs: 60_000, compressionThreshold: 8192, memoryBytes: 0, now: () => now, ...options });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'vivace-spool-'));
    now = Date.UTC(2026, 10, 29);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('compresses a large segment off the main thread: the event loop turns while it is written', async () => {
    const spool = spoolOf({ maxBytes: 64 << 20, memoryBytes: 64 << 20 });
    const text = rowsText(80_000);
    for (const encoding of ['json+zstd', 'json+lz4'] as const) {
      const { turns, value } = await loopTurnsDuring(() => spool.write('q1', encoding, [Buffer.from(text)], 80_000));
      const segment = value!;
      expect(turns, encoding).to.be.greaterThan(0);
      expect(segment.uncompressedSize).to.equal(text.length + 2);
      const file = (await spool.open(segment.id))!;
      expect(decodeSegment(file.memory ? Buffer.concat(file.memory) : readFileSync(file.path), encoding, segment)).to.equal(`[${text}]`);
    }
  });

  it('starts empty, clearing files an earlier process left', () => {
    spoolOf();
    writeFileSync(join(dir, 'spool', 'stale'), 'x');
    spoolOf();
    expect(readdirSync(join(dir, 'spool'))).to.deep.equal([]);
  });

  for (const encoding of ['json', 'json+zstd', 'json+lz4'] as const) {
    it(`${encoding}: writes a segment that decodes to the rows, with Trino's metadata`, async () => {
      const spool = spoolOf();
      const text = rowsText(500);
      const segment = (await spool.write('q1', encoding, [Buffer.from(text)], 500))!;
      expect(segment.expiresAt).to.equal('2026-11-29T00:01:00.000');
      const file = (await spool.open(segment.id))!;
      const bytes = readFileSync(file.path);
      expect(decodeSegment(bytes, encoding, segment)).to.equal(`[${text}]`);
      expect(segment.uncompressedSize === undefined).to.equal(encoding === 'json');
    });
  }

  it('acknowledged, expired, cancelled or foreign ids open to nothing, and their files go', async () => {
    const spool = spoolOf();
    const [a, b, c] = await Promise.all([1, 2, 3].map((i) => spool.write(i === 3 ? 'q2' : 'q1', 'json', rowsText(10, i * 10), 10)));
    expect(spool.acknowledge(a!.id)).to.equal(true);
    expect(await spool.open(a!.id)).to.equal(undefined);
    // Acknowledged again (a client's retry): still fine, and still gone.
    expect(spool.acknowledge(a!.id)).to.equal(true);
    expect(await spool.open(a!.id)).to.equal(undefined);
    // Another worker's id with the same key, and an id naming this segment's file for another query.
    const foreign = sealSegmentId(KEY, { queryId: 'q1', nodeId: 'w2', expiresAt: now + 1000 });
    expect(await spool.open(foreign.id)).to.equal(undefined);
    const name = readdirSync(join(dir, 'spool'))[0]!;
    const otherQuery = sealSegmentId(KEY, { queryId: 'q9', nodeId: 'w1', expiresAt: now + 1000 }, name);
    expect(await spool.open(otherQuery.id)).to.equal(undefined);
    expect(spool.dropQuery('q2')).to.equal(1);
    expect(await spool.open(c!.id)).to.equal(undefined);
    now += 60_000;
    expect(await spool.open(b!.id)).to.equal(undefined);
    expect(spool.acknowledge(b!.id)).to.equal(false);
    expect(spool.acknowledge(foreign.id)).to.equal(false);
    expect(spool.size).to.equal(0);
    expect(spool.bytes).to.equal(0);
    // Removal settles after the writes.
    await spool.settled();
    expect(readdirSync(join(dir, 'spool'))).to.deep.equal([]);
  });

  it('sweeps segments past their TTL', async () => {
    const spool = spoolOf({ ttlMs: 1000 });
    const s = (await spool.write('q1', 'json', rowsText(10), 10))!;
    now += 999;
    expect(spool.sweep()).to.equal(0);
    now += 1;
    expect(spool.sweep()).to.equal(1);
    expect(await spool.open(s.id)).to.equal(undefined);
  });

  it('refuses a segment past its cap (the page then goes inline) and takes one again once room is made', async () => {
    const spool = spoolOf({ maxBytes: 5000 });
    const first = await spool.write('q1', 'json', rowsText(60), 60);
    expect(first).to.not.equal(undefined);
    expect(await spool.write('q1', 'json', rowsText(60), 60)).to.equal(undefined);
    spool.acknowledge(first!.id);
    expect(await spool.write('q1', 'json', rowsText(60), 60)).to.not.equal(undefined);
  });

  it('holds segments in memory as the rendered buffers themselves until acknowledged, writing the oldest out past memoryBytes', async () => {
    const spool = spoolOf({ memoryBytes: 9000 });
    const page = Buffer.from(rowsText(60));
    const first = (await spool.write('q1', 'json', [page], 60))!;
    const opened = (await spool.open(first.id))!;
    // Not joined into a copy: the page's own buffer between the brackets; no file written.
    expect(opened.memory!.length).to.equal(3);
    expect(opened.memory![1]).to.equal(page);
    expect(Buffer.concat(opened.memory!).toString()).to.equal(`[${page}]`);
    expect(existsSync(opened.path)).to.equal(false);
    expect(spool.memory).to.equal(page.length + 2);
    // Acknowledged: gone from memory, and no file to remove.
    spool.acknowledge(first.id);
    expect(spool.memory).to.equal(0);
    // Compressed segments are held as their one compressed buffer; past the budget the oldest is written out.
    const b = (await spool.write('q1', 'json', [Buffer.from(rowsText(100))], 100))!;
    const a = (await spool.write('q1', 'json+zstd', [Buffer.from(rowsText(200))], 200))!;
    const c = (await spool.write('q1', 'json', [Buffer.from(rowsText(100))], 100))!;
    await spool.settled();
    const spilled = (await spool.open(b.id))!;
    expect(spilled.memory).to.equal(undefined);
    expect(readFileSync(spilled.path).toString()).to.equal(`[${rowsText(100)}]`);
    expect((await spool.open(a.id))!.memory).to.have.length(1);
    expect((await spool.open(c.id))!.memory).to.have.length(3);
    expect(spool.memory).to.equal(a.segmentSize + c.segmentSize);
    expect(spool.memory).to.be.at.most(9000);
    // Cancelled: memory and files go; a segment above the budget is written at once and never held.
    expect(spool.dropQuery('q1')).to.equal(3);
    expect(spool.memory).to.equal(0);
    await spool.settled();
    expect(readdirSync(join(dir, 'spool'))).to.deep.equal([]);
    const big = (await spool.write('q2', 'json', [Buffer.from(rowsText(300))], 300))!;
    const bigOpened = (await spool.open(big.id))!;
    expect(bigOpened.memory).to.equal(undefined);
    expect(readFileSync(bigOpened.path).toString()).to.equal(`[${rowsText(300)}]`);
  });

  it("a task's first rows go inline within the inlining limits, the rest to the spool, each page once", async () => {
    const spool = spoolOf();
    const spooling = new TaskSpooling(spool, { inliningEnabled: true, inliningMaxRows: 100, inliningMaxBytes: 1 << 20, segmentBytes: 8 << 20 });
    const task = { queryId: 'q1', queryDataEncoding: 'json' as const };
    const page = (rows: number) => ({ batch: { json: rowsText(rows), rows, bytes: Buffer.byteLength(rowsText(rows)) }, exhausted: false, progress: { processedRows: 0, processedBytes: 0, cpuTimeMillis: 0 } });
    expect(spooling.targetBytes(task, 1000)).to.equal(1000);
    expect(await spooling.segmentOf(task, page(60))).to.equal(undefined);
    const second = page(60);
    const segment = await spooling.segmentOf(task, second);
    expect(segment?.rowsCount).to.equal(60);
    expect(await spooling.segmentOf(task, second)).to.equal(segment);
    expect(spooling.targetBytes(task, 1000)).to.equal(8 << 20);
    // Once past the limits, small pages spool too; a task of a client that did not ask never spools.
    expect(await spooling.segmentOf(task, page(1))).to.not.equal(undefined);
    expect(await spooling.segmentOf({ queryId: 'q2' }, page(500))).to.equal(undefined);
    expect(existsSync(join(dir, 'spool'))).to.equal(true);
  });
});
