// One scheme per request (request-context.ts's requestScheme) serves both the URIs we send and whether
// credentials may be taken. The corner that used to differ: with http-server.process-forwarded, a TLS
// socket whose proxy says `X-Forwarded-Proto: http` is plain HTTP for both, as in Trino (the forwarded
// scheme becomes the request's).
import { expect } from 'chai';
import fc from 'fast-check';
import Koa from 'koa';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { isSecureRequest } from '../../lib/http/authentication.js';
import { baseUri, requestScheme } from '../../lib/http/request-context.js';
import { validateStatement } from '../support/http.js';
import { expectValid } from '../support/schema-validator.js';
import { basic, bcryptLine, secureFixture, send, startSecureServer } from './auth-fixtures.js';

describe('security: the scheme of a request', function () {
  this.timeout(60_000);

  describe('a real server behind a trusted proxy (PASSWORD over HTTPS, process-forwarded)', () => {
    const proxied = secureFixture((dir, certificate) =>
      startSecureServer({
        authenticationTypes: ['PASSWORD'],
        passwordFile: dir.file('password.db', `${bcryptLine('alice', 'alice-secret')}\n`),
        httpsEnabled: true,
        httpsKeystorePath: dir.file('keystore.pem', `${certificate.key}${certificate.cert}`),
        processForwarded: true,
      }),
    );

    const post = (base: string, proto: string | undefined) =>
      send('POST', `${base}/v1/statement`, {
        ca: proxied.certificate.cert,
        body: 'SELECT 1',
        headers: { Authorization: basic('alice', 'alice-secret'), ...(proto === undefined ? {} : { 'X-Forwarded-Proto': proto }) },
      });

    it('TLS socket, X-Forwarded-Proto http: plain HTTP, so no password is taken (403), as its URIs would say', async () => {
      const res = await post(proxied.server.httpsUrl, 'http');
      expect(res.status, res.text).to.equal(403);
      expectValid('error', res.body);
      expect(res.body).to.include({ errorName: 'PERMISSION_DENIED', message: 'Authentication over HTTP is not enabled' });
    });

    it('TLS socket with X-Forwarded-Proto https, none or one that is no scheme: https, and URIs to match', async () => {
      for (const proto of ['https', 'HTTPS, http', undefined, 'gopher']) {
        const res = await post(proxied.server.httpsUrl, proto);
        expect(res.status, `${proto}: ${res.text}`).to.equal(200);
        validateStatement(res.body, true);
        expect(res.body.nextUri as string, String(proto)).to.match(/^https:\/\//u);
      }
    });

    it('plain socket with X-Forwarded-Proto https: https (the proxy took TLS), URIs to match', async () => {
      const res = await post(proxied.server.url, 'https');
      expect(res.status, res.text).to.equal(200);
      validateStatement(res.body, true);
      expect(res.body.nextUri as string).to.match(/^https:\/\//u);
    });
  });

  describe('any X-Forwarded-Proto, on TLS and plain sockets, trusted or not', () => {
    const keys = secureFixture();
    /** Apps answering what they make of a request (the scheme of its URIs, whether it is secure), by socket and trust. */
    const servers: Server[] = [];
    const urls: Record<string, string> = {};
    before(async () => {
      for (const processForwarded of [false, true]) {
        const app = new Koa({ proxy: processForwarded });
        app.use((ctx) => {
          ctx.body = { uri: baseUri(ctx), scheme: requestScheme(ctx), secure: isSecureRequest(ctx, processForwarded) };
        });
        for (const tls of [false, true]) {
          const server = tls ? createHttpsServer({ key: keys.certificate.key, cert: keys.certificate.cert }, app.callback()) : createHttpServer(app.callback());
          servers.push(server);
          await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
          urls[`${tls}/${processForwarded}`] = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
        }
      }
    });
    after(async () => {
      for (const server of servers) await new Promise<void>((done) => server.close(() => done()));
    });

    it('the URIs and the authentication always agree; only a trusted proxy changes the socket\'s word (fast-check)', async () => {
      const token = fc.constantFrom('http', 'https', 'HTTP', 'Https', ' https ', 'ftp', '', 'https:', 'http s');
      const header = fc.oneof(fc.array(token, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(',')), fc.string({ unit: fc.constantFrom('h', 't', 'p', 's', ',', ' ', 'x'), maxLength: 12 }));
      await fc.assert(
        fc.asyncProperty(fc.boolean(), fc.boolean(), fc.option(header, { nil: undefined }), async (tls, processForwarded, proto) => {
          const res = await send('GET', `${urls[`${tls}/${processForwarded}`]}/`, { ca: keys.certificate.cert, headers: proto === undefined ? {} : { 'X-Forwarded-Proto': proto } });
          const { uri, scheme, secure } = res.body as { uri: string; scheme: string; secure: boolean };
          expect(uri.startsWith(`${scheme}://`), uri).to.equal(true);
          expect(secure).to.equal(scheme === 'https');
          const first = (proto ?? '').split(',')[0]!.trim().toLowerCase();
          const forwarded = processForwarded && (first === 'http' || first === 'https') ? first : undefined;
          expect(scheme).to.equal(forwarded ?? (tls ? 'https' : 'http'));
        }),
        { numRuns: 120 },
      );
    });
  });
});
