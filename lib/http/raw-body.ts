// Reads a request body as UTF-8 text whatever its Content-Type: clients post raw SQL as text/plain,
// as application/x-www-form-urlencoded (trino-client) or with none at all, and it is never a form.
import type { Context } from 'koa';
import { VivaceError } from '../protocol/vivace-error.js';

export async function readTextBody(ctx: Context, limitBytes: number): Promise<string> {
  const declared = Number(ctx.get('content-length') || '0');
  if (declared > limitBytes) throw tooLarge(limitBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limitBytes) {
      ctx.req.resume(); // drain the rest so the connection can answer
      throw tooLarge(limitBytes);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

function tooLarge(limitBytes: number): VivaceError {
  return new VivaceError('QUERY_TEXT_TOO_LARGE', `Request body exceeds the limit of ${limitBytes} bytes`, { httpStatus: 413 });
}
