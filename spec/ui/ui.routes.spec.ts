// The web UI's serving, without a browser: pages and assets with their types, caching and security
// headers, no inline script or style, exact paths only (hostile paths are 4xx JSON, never a file), and
// GET /ui/api/history counting real queries on DuckDB.
import { expect } from 'chai';
import fc from 'fast-check';
import { request as httpRequest } from 'node:http';
import { createTestEngine } from '../support/duckdb.js';
import { request, runStatement, startTestServer, type TestServer } from '../support/http.js';
import { validateResponse } from '../support/schema-validator.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One GET with the target exactly as written (fetch would normalize dot segments away). */
function rawGet(port: number, target: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'GET', path: target, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The asset paths a page names in its src and href attributes. */
function assetPaths(html: string): string[] {
  const paths: string[] = [];
  for (const attr of ['src="assets/', 'href="assets/']) {
    let at = html.indexOf(attr);
    while (at >= 0) {
      const start = at + attr.length - 'assets/'.length;
      paths.push(`/ui/${html.slice(start, html.indexOf('"', start))}`);
      at = html.indexOf(attr, start);
    }
  }
  return paths;
}

const PAGES = ['/ui/', '/ui/index.html', '/ui/query.html', '/ui/nodes.html'];

describe('ui routes', function () {
  this.timeout(60_000);
  let server: TestServer;
  let port: number;
  before(async () => {
    server = await startTestServer({ engine: await createTestEngine(2, { tpch: false }) });
    port = Number(new URL(server.url).port);
  });
  after(() => server.stop());

  it('redirects /ui to /ui/', async () => {
    const res = await fetch(`${server.url}/ui`, { redirect: 'manual' });
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal('/ui/');
  });

  it('serves each page as HTML with no-cache, an ETag, a strict CSP and nosniff; a matching ETag is a 304', async () => {
    for (const path of PAGES) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
      expect(res.headers.get('cache-control')).to.equal('no-cache');
      expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).to.include("default-src 'self'").and.include("script-src 'self'").and.include("style-src 'self'");
      expect(csp).not.to.include('unsafe-inline');
      const etag = res.headers.get('etag');
      expect(etag).to.be.a('string');
      await res.text();
      // node:http, not fetch: fetch marks a request with If-None-Match no-cache.
      const again = await rawGet(port, path, { 'If-None-Match': etag! });
      expect(again.status).to.equal(304);
      expect(again.text).to.equal('');
    }
  });

  it('pages carry no inline script, style or event handler, and name only assets served with long-lived caching', async () => {
    for (const path of PAGES) {
      const html = await (await fetch(`${server.url}${path}`)).text();
      const scripts = html.split('<script').slice(1);
      expect(scripts.length, path).to.equal(1);
      for (const tag of scripts) expect(tag.slice(0, tag.indexOf('>'))).to.include(' src="assets/');
      expect(html).not.to.include('<style');
      expect(html).not.to.include(' style=');
      expect(html.toLowerCase()).not.to.include(' onclick=').and.not.to.include(' onload=').and.not.to.include('javascript:');
      expect(html).not.to.include('http://').and.not.to.include('https://');
      const assets = assetPaths(html);
      expect(assets).to.have.length(2);
      for (const asset of assets) {
        const res = await fetch(`${server.url}${asset}`);
        expect(res.status, asset).to.equal(200);
        const type = asset.endsWith('.js') ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8';
        expect(res.headers.get('content-type')).to.equal(type);
        expect(res.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
        expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
        const body = await res.text();
        expect(body.length).to.be.greaterThan(100);
        // Text from the server goes in as text: the scripts never write markup.
        if (asset.endsWith('.js')) expect(body).not.to.include('innerHTML').and.not.to.include('insertAdjacentHTML').and.not.to.include('document.write');
      }
    }
  });

  it('answers HEAD like GET without a body', async () => {
    const res = await fetch(`${server.url}/ui/query.html`, { method: 'HEAD' });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8');
    expect(await res.text()).to.equal('');
  });

  it('answers unknown /ui paths 404 with the JSON error body', async () => {
    for (const path of ['/ui/nope', '/ui/index.htm', '/ui/assets/ui.css', '/ui/assets/overview-page.js', '/ui/a/b/c', '/ui/api', '/ui/layout.html', '/ui/overview.main.html']) {
      const res = await request('GET', `${server.url}${path}`);
      expect(res.status, path).to.equal(404);
      validateResponse('error', res.body);
      expect(res.body.errorName).to.equal('NOT_FOUND');
    }
  });

  it('refuses path traversal with a 4xx JSON error and never serves a file from disk', async () => {
    const attempts = [
      '/ui/../package.json',
      '/ui/assets/../../package.json',
      '/ui/%2e%2e/package.json',
      '/ui/%2E%2E%2Fpackage.json',
      '/ui/assets/..%2f..%2fpackage.json',
      '/ui/..\\package.json',
      '/ui/assets/..\\..\\package.json',
      '/ui/%5c..%5cpackage.json',
      '/ui/index.html%00',
      '/ui/%00../package.json',
      '/ui//etc/passwd',
      '/ui/assets//etc/passwd',
      '/ui/browser/overview-page.ts',
      '/ui/pages/ui.css',
      '/ui/%252e%252e/package.json',
    ];
    for (const target of attempts) {
      const res = await rawGet(port, target);
      // Dot segments and NUL are refused before routing (400, lib/http/request-target.ts); the rest is no known path (404).
      expect([400, 404], target).to.include(res.status);
      validateResponse('error', JSON.parse(res.text));
      expect(res.text).not.to.include('"devDependencies"').and.not.to.include('root:');
    }
  });

  it('answers any path below /ui/ with a known page, a 4xx JSON error, never a 5xx (fast-check)', async () => {
    const known = new Set(['/ui/', '/ui/index.html', '/ui/query.html', '/ui/nodes.html']);
    const segment = fc.oneof(
      fc.constantFrom('..', '.', '%2e%2e', '%2E', '\\', '%5c', '%00', '%2f', 'assets', 'index.html', 'api', '', '%ff', '%'),
      fc.string({ maxLength: 12 }).map((s) => encodeURIComponent(s)),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { maxLength: 5 }), async (segments) => {
        const target = `/ui/${segments.join('/')}`;
        const res = await rawGet(port, target);
        if (res.status === 200) {
          expect(known.has(new URL(target, 'http://x').pathname) || target.startsWith('/ui/api/'), target).to.equal(true);
          return;
        }
        expect(res.status, target).to.be.within(300, 499);
        if (res.status >= 400) validateResponse('error', JSON.parse(res.text));
      }),
      { numRuns: 150 },
    );
  });

  it('GET /ui/api/history: per-second samples of the last five minutes counting real queries, valid against its schema', async () => {
    const before = await request('GET', `${server.url}/ui/api/history`);
    expect(before.status).to.equal(200);
    expect(before.headers.get('content-type')).to.equal('application/json');
    validateResponse('ui-history', before.body);
    const total = (body: any, key: string) => body.samples.reduce((sum: number, s: any) => sum + s[key], 0);
    await runStatement(server.url, 'SELECT * FROM (VALUES 1, 2, 3) t(x)');
    await runStatement(server.url, 'SELECT 1');
    await runStatement(server.url, 'SELECT * FROM no_such_catalog.s.t');
    const after = await request('GET', `${server.url}/ui/api/history`);
    validateResponse('ui-history', after.body);
    expect(after.body.intervalSeconds).to.equal(1);
    expect(after.body.samples).to.have.length(300);
    const times = after.body.samples.map((s: any) => s.time);
    for (let i = 1; i < times.length; i++) expect(times[i] - times[i - 1]).to.equal(1000);
    // The window may have moved between the two reads: compare what both cover, the sums of the whole.
    expect(total(after.body, 'finished') - total(before.body, 'finished')).to.be.at.least(2);
    expect(total(after.body, 'failed') - total(before.body, 'failed')).to.be.at.least(1);
    expect(total(after.body, 'started') - total(before.body, 'started')).to.be.at.least(3);
    expect(total(after.body, 'outputRows') - total(before.body, 'outputRows')).to.be.at.least(4);
  });
});
