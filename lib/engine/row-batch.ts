// Helpers over RowBatch (engine.types.ts), whose rows are JSON text or its UTF-8 bytes in pieces.
import type { Execution, RowBatch } from './engine.types.js';

const COMMA = Buffer.from(',');

/**
 * Pages up to this size are text, larger ones bytes: for a few rows one string body costs less than a
 * corked write of pieces (SELECT 1's main-thread CPU went up 5-7% with every page as bytes), and the
 * decode a large page would cost is what bytes save.
 */
export const TEXT_PAGE_MAX_BYTES = 64 * 1024;

/** The batch's rows as text (decoded when they are bytes). */
export function batchText(batch: RowBatch): string {
  const { json } = batch;
  if (typeof json === 'string') return json;
  return json.length === 1 ? json[0]!.toString('utf8') : Buffer.concat(json).toString('utf8');
}

/** Batches as one, rows in order; bytes stay pieces (a page of forwarded batches is never copied or decoded). */
export function joinBatches(batches: readonly RowBatch[]): RowBatch | undefined {
  if (batches.length === 0) return undefined;
  if (batches.length === 1) return batches[0];
  let rows = 0;
  let bytes = batches.length - 1;
  for (const b of batches) {
    rows += b.rows;
    bytes += b.bytes;
  }
  // Spooled batches stay parts of their own: each is a segment of the page.
  if (batches.some((b) => b.spooled !== undefined || b.parts !== undefined)) return { json: '', rows, bytes, parts: batches.flatMap((b) => b.parts ?? [b]) };
  if (batches.every((b) => typeof b.json === 'string')) return { json: batches.map((b) => b.json).join(','), rows, bytes };
  const pieces: Buffer[] = [];
  for (const [i, b] of batches.entries()) {
    if (i > 0) pieces.push(COMMA);
    if (typeof b.json === 'string') pieces.push(Buffer.from(b.json, 'utf8'));
    else pieces.push(...b.json);
  }
  return { json: pieces, rows, bytes };
}

/** Every row an execution gives, as the protocol's JSON values (for the project's own small queries and specs). */
export async function executionRows(execution: Execution, targetBytes = 1 << 20): Promise<unknown[][]> {
  const parts: string[] = [];
  for (let batch = await execution.next(targetBytes); batch; batch = await execution.next(targetBytes)) if (batch.rows > 0) parts.push(batchText(batch));
  return JSON.parse(`[${parts.join(',')}]`) as unknown[][];
}
