import { expect } from 'chai';
import fc from 'fast-check';
import { batchText, executionRows, joinBatches } from '../../lib/engine/row-batch.js';
import type { RowBatch } from '../../lib/engine/engine.types.js';

const batchOf = (rows: string[], asBytes: boolean): RowBatch => {
  const text = rows.join(',');
  // Bytes in pieces as a socket cuts them: anywhere, even inside a character.
  const bytes = Buffer.from(text, 'utf8');
  const cut = Math.floor(bytes.length / 2);
  return { json: asBytes ? [bytes.subarray(0, cut), bytes.subarray(cut)] : text, rows: rows.length, bytes: bytes.length };
};

describe('row batches', () => {
  it('joins text and bytes alike: the same rows, rows and bytes counted', () => {
    const row = fc.string({ unit: 'grapheme', maxLength: 8 }).map((s) => JSON.stringify([s]));
    const batch = fc.tuple(fc.array(row, { minLength: 1, maxLength: 4 }), fc.boolean()).map(([rows, asBytes]) => batchOf(rows, asBytes));
    fc.assert(
      fc.property(fc.array(batch, { minLength: 1, maxLength: 5 }), (batches) => {
        const joined = joinBatches(batches)!;
        const text = batches.map(batchText).join(',');
        expect(batchText(joined)).to.equal(text);
        expect(joined.rows).to.equal(batches.reduce((n, b) => n + b.rows, 0));
        expect(joined.bytes).to.equal(Buffer.byteLength(text));
        // Bytes stay bytes: a page with any forwarded batch is never decoded.
        expect(typeof joined.json === 'string').to.equal(batches.every((b) => typeof b.json === 'string'));
      }),
    );
  });

  it('joins nothing to nothing, and one batch to itself', () => {
    expect(joinBatches([])).to.equal(undefined);
    const one = batchOf(['[1]'], true);
    expect(joinBatches([one])).to.equal(one);
  });

  it('reads an execution to its end, text and pieces alike, skipping empty batches', async () => {
    const batches = [batchOf(['[1,"é"]', '[2,"€"]'], true), { json: '', rows: 0, bytes: 0 }, batchOf(['[3,"😀"]'], false)];
    const execution = { next: async () => batches.shift() ?? null, cancel: () => {}, progress: () => ({ processedRows: 0, processedBytes: 0, cpuTimeMillis: 0 }) };
    expect(await executionRows(execution)).to.deep.equal([[1, 'é'], [2, '€'], [3, '😀']]);
  });
});
