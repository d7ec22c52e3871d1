// HTTPS beside HTTP: the same app on both listeners, links in responses in the scheme the request came
// over, TLS 1.2 at least, hostile bytes on the TLS port, a clear startup error for every bad PEM file,
// and close() closing both listeners.
import { expect } from 'chai';
import { connect as tlsConnect } from 'node:tls';
import { connect as netConnect } from 'node:net';
import { expectValid } from '../support/schema-validator.js';
import { validateStatement } from '../support/http.js';
import { VivaceError } from '../../lib/protocol/vivace-error.js';
import type { CoordinatorConfig } from '../../lib/config.js';
import { createCoordinator } from '../../lib/actors/coordinator.js';
import { startServer } from '../../lib/http/server.js';
import { createTestEngine } from '../support/duckdb.js';
import { makeCertificate, secureFixture, send, startSecureServer, type Certificate } from '../security/auth-fixtures.js';

describe('http: HTTPS', function () {
  this.timeout(30_000);
  const tls = secureFixture((dir, certificate) => startSecureServer({ httpsEnabled: true, httpsKeystorePath: dir.file('keystore.pem', `${certificate.cert}${certificate.key}`) }));

  it('serves the same routes on both ports and reports both addresses', async () => {
    expect(tls.server.server.httpsUrl).to.match(/^https:\/\/127\.0\.0\.1:\d+$/u);
    expect(tls.server.server.httpsPort).to.equal(Number(new URL(tls.server.httpsUrl).port));
    expect(tls.server.server.httpsPort).to.not.equal(tls.server.server.port);
    for (const base of [tls.server.url, tls.server.httpsUrl]) {
      const info = await send('GET', `${base}/v1/info`, { ca: tls.certificate.cert });
      expect(info.status).to.equal(200);
      expectValid('server-info', info.body);
    }
  });

  it('links a statement’s pages in the scheme the request came over, and pages to the end over TLS', async () => {
    for (const base of [tls.server.url, tls.server.httpsUrl]) {
      const scheme = new URL(base).protocol;
      let res = await send('POST', `${base}/v1/statement`, { headers: { 'X-Trino-User': 'alice' }, body: 'SELECT 1 AS one', ca: tls.certificate.cert });
      expect(res.status, res.text).to.equal(200);
      validateStatement(res.body, true);
      for (const link of [res.body.nextUri, res.body.infoUri, res.body.partialCancelUri]) expect(new URL(link).protocol, link).to.equal(scheme);
      const rows: unknown[] = [];
      while (res.body.nextUri) {
        expect(new URL(res.body.nextUri).protocol).to.equal(scheme);
        res = await send('GET', res.body.nextUri, { ca: tls.certificate.cert });
        validateStatement(res.body, false);
        rows.push(...(res.body.data ?? []));
      }
      expect(rows).to.deep.equal([[1]]);
    }
  });

  it('refuses TLS below 1.2', async () => {
    const port = tls.server.server.httpsPort!;
    const outcome = await new Promise<string>((resolve) => {
      const socket = tlsConnect({ host: '127.0.0.1', port, ca: tls.certificate.cert, minVersion: 'TLSv1', maxVersion: 'TLSv1.1' });
      socket.once('secureConnect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.once('error', (err) => resolve((err as { code?: string }).code ?? err.message));
    });
    expect(outcome).to.not.equal('connected');
  });

  it('stays up after garbage and plain HTTP on the TLS port', async () => {
    const port = tls.server.server.httpsPort!;
    for (const bytes of [Buffer.from('GET /v1/info HTTP/1.1\r\nHost: x\r\n\r\n'), Buffer.alloc(64 * 1024, 0x16), Buffer.from([0x16, 0x03, 0x01, 0xff, 0xff])]) {
      await new Promise<void>((resolve) => {
        const socket = netConnect({ host: '127.0.0.1', port }, () => socket.end(bytes));
        socket.on('data', () => {});
        socket.on('error', () => resolve());
        socket.on('close', () => resolve());
      });
    }
    expect((await send('GET', `${tls.server.httpsUrl}/v1/info`, { ca: tls.certificate.cert })).status).to.equal(200);
  });

  it('closes both listeners on close()', async () => {
    const other = await startSecureServer({ httpsEnabled: true, httpsKeystorePath: tls.dir.file('k2.pem', `${tls.certificate.cert}${tls.certificate.key}`) });
    const urls = [other.url, other.httpsUrl];
    await other.stop();
    expect(other.server.server.listening).to.equal(false);
    expect(other.server.httpsServer?.listening).to.equal(false);
    for (const url of urls) {
      const failure = await send('GET', `${url}/v1/info`, { ca: tls.certificate.cert }).then(
        () => 'answered',
        (err: { code?: string }) => err.code,
      );
      expect(failure, url).to.equal('ECONNREFUSED');
    }
  });

  describe('startup errors name the file, never its contents', () => {
    let other: Certificate;
    before(async () => {
      other = await makeCertificate();
    });

    async function startupError(config: Partial<CoordinatorConfig>): Promise<VivaceError> {
      let failure: unknown;
      try {
        await (await startSecureServer({ httpsEnabled: true, ...config })).stop();
      } catch (err) {
        failure = err;
      }
      expect(failure).to.be.instanceOf(VivaceError);
      const err = failure as VivaceError;
      expect(err.message).to.not.include('BEGIN').and.not.include(tls.certificate.key.split('\n')[1]);
      return err;
    }

    it('without a keystore path, or with one that cannot be read', async () => {
      expect((await startupError({})).message).to.equal('http-server.https.enabled=true needs http-server.https.keystore.path (a PEM file with the certificate)');
      const missing = `${tls.dir.path}/missing.pem`;
      const err = await startupError({ httpsKeystorePath: missing });
      expect(err.errorName).to.equal('CONFIGURATION_UNAVAILABLE');
      expect(err.message).to.equal(`http-server.https.keystore.path: cannot read ${missing} (ENOENT)`);
      expect((await startupError({ httpsKeystorePath: tls.dir.path })).message).to.include('(EISDIR)');
    });

    it('without a certificate, without a key, or with a key of another certificate', async () => {
      const keyOnly = tls.dir.file('key-only.pem', tls.certificate.key);
      expect((await startupError({ httpsKeystorePath: keyOnly })).message).to.equal(`http-server.https.keystore.path ${keyOnly}: no PEM CERTIFICATE in the file`);
      const certOnly = tls.dir.file('cert-only.pem', tls.certificate.cert);
      expect((await startupError({ httpsKeystorePath: certOnly })).message).to.equal(
        `http-server.https.keystore.path ${certOnly}: no PEM private key in the file (or name a key file with http-server.https.key-path)`,
      );
      const otherKey = tls.dir.file('other-key.pem', other.key);
      expect((await startupError({ httpsKeystorePath: certOnly, httpsKeyPath: otherKey })).message).to.equal(
        `http-server.https.key-path ${otherKey}: the private key does not belong to the certificate in ${certOnly}`,
      );
      const twoKeys = tls.dir.file('two-keys.pem', `${tls.certificate.key}${other.key}`);
      expect((await startupError({ httpsKeystorePath: certOnly, httpsKeyPath: twoKeys })).message).to.include('more than one private key');
    });

    it('with an encrypted key, a damaged key or a damaged certificate', async () => {
      const certOnly = tls.dir.file('cert-only2.pem', tls.certificate.cert);
      const encrypted = tls.dir.file('enc.pem', '-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIB\n-----END ENCRYPTED PRIVATE KEY-----\n');
      expect((await startupError({ httpsKeystorePath: certOnly, httpsKeyPath: encrypted })).message).to.include('the private key is encrypted');
      const damagedKey = tls.dir.file('bad-key.pem', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n');
      expect((await startupError({ httpsKeystorePath: certOnly, httpsKeyPath: damagedKey })).message).to.equal(
        `http-server.https.key-path ${damagedKey}: the private key cannot be read`,
      );
      const damagedCert = tls.dir.file('bad-cert.pem', `-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n${tls.certificate.key}`);
      expect((await startupError({ httpsKeystorePath: damagedCert })).message).to.equal(
        `http-server.https.keystore.path ${damagedCert}: the certificate cannot be read`,
      );
    });

    it('when the HTTPS port is the HTTP port', async () => {
      const keystore = tls.dir.file('k4.pem', `${tls.certificate.cert}${tls.certificate.key}`);
      const coordinator = createCoordinator({ engine: await createTestEngine(1), config: { trackerIntervalMs: 60_000, httpsEnabled: true, httpsKeystorePath: keystore } });
      try {
        await startServer(coordinator, { host: '127.0.0.1', port: 18_543, httpsPort: 18_543 }).then(
          () => expect.fail('started'),
          (err: unknown) => expect((err as Error).message).to.equal('http-server.https.port and http-server.http.port are both 18543'),
        );
      } finally {
        await coordinator.stop();
      }
    });

    it('when the HTTPS port is taken: the HTTP listener is closed again', async () => {
      const taken = await startSecureServer({});
      // A closed listener leaves the list on the next turn of the loop.
      const listeners = async () => {
        await new Promise((resolve) => setImmediate(resolve));
        return process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length;
      };
      const coordinator = createCoordinator({ engine: await createTestEngine(1), config: { trackerIntervalMs: 60_000, httpsEnabled: true, httpsKeystorePath: tls.dir.file('k3.pem', `${tls.certificate.cert}${tls.certificate.key}`) } });
      const before = await listeners();
      let failure: unknown;
      let after = -1;
      try {
        await (await startServer(coordinator, { host: '127.0.0.1', port: 0, httpsPort: taken.server.port })).close();
      } catch (err) {
        failure = err;
        after = await listeners();
      } finally {
        await coordinator.stop();
        await taken.stop();
      }
      expect((failure as { code?: string })?.code).to.equal('EADDRINUSE');
      expect(after, 'no listener left open').to.equal(before);
    });
  });
});
