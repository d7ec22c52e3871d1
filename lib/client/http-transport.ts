// One HTTP(S) request of the statement client, on node:http/https so that a private CA (--truststore-path)
// can be trusted and repeated request headers go out as separate lines.
import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpResponse {
  status: number;
  /** Lower-case names, every value of a repeated header. */
  headers: Record<string, string[] | undefined>;
  text: string;
  /** The body's bytes (a spooled segment is binary). */
  bytes: Buffer;
}

export interface HttpOptions {
  headers?: OutgoingHttpHeaders;
  body?: string;
  /** PEM certificates to trust for HTTPS, besides the system's. */
  ca?: string;
  signal?: AbortSignal;
}

/** Larger responses are refused: the server pages results at about 1 MB. */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

export function httpCall(method: string, url: string, options: HttpOptions = {}): Promise<HttpResponse> {
  const target = new URL(url);
  const requester = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers: OutgoingHttpHeaders = { 'user-agent': 'vivace-cli', ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'text/plain; charset=utf-8';
  return new Promise((resolve, reject) => {
    const req = requester(
      target,
      { method, headers, ...(options.ca === undefined ? {} : { ca: options.ca }), ...(options.signal ? { signal: options.signal } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) req.destroy(new Error(`Response from ${target.host} is larger than ${MAX_RESPONSE_BYTES} bytes`));
          else chunks.push(chunk);
        });
        res.on('error', reject);
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headersDistinct, text: bytes.toString('utf8'), bytes });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
