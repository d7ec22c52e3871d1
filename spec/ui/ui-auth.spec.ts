// The web UI with authentication on (HTTPS, password file, file-based rules): a page without a session goes
// to the login form, the UI's API answers 401 (Trino-Form-Login) and still takes the protocol's
// credentials; logged in through the form, a user's pages show only what the rules let that user see.
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { basic, bcryptLine, secureFixture, send, startSecureServer } from '../security/auth-fixtures.js';
import { validateResponse } from '../support/schema-validator.js';
import { launchChromium, screenshot, skipWithoutChromium } from './browser-support.js';

const RULES = {
  queries: [{ allow: ['execute'] }],
  system_information: [{ user: 'admin', allow: ['read'] }],
};

describe('ui with authentication', function () {
  this.timeout(60_000);
  const fixture = secureFixture((dir, certificate) =>
    startSecureServer({
      authenticationTypes: ['PASSWORD'],
      passwordFile: dir.file('password.db', `${bcryptLine('alice', 'alice-secret')}\n${bcryptLine('bob', 'bob-secret')}\n${bcryptLine('admin', 'admin-secret')}\n`),
      httpsEnabled: true,
      httpsKeystorePath: dir.file('keystore.pem', `${certificate.key}${certificate.cert}`),
      securityConfigFile: dir.file('rules.json', JSON.stringify(RULES)),
    }),
  );
  const alice = { Authorization: basic('alice', 'alice-secret') };
  const bob = { Authorization: basic('bob', 'bob-secret') };

  /** POSTs `sql` with `headers` and follows nextUri to the end; the final response. */
  async function run(sql: string, headers: Record<string, string>): Promise<any> {
    let res = await send('POST', `${fixture.server.httpsUrl}/v1/statement`, { body: sql, headers, ca: fixture.certificate.cert });
    expect(res.status, res.text).to.equal(200);
    while (res.body.nextUri) res = await send('GET', res.body.nextUri, { headers, ca: fixture.certificate.cert });
    return res.body;
  }

  it('sends a page without a session to the login form (303) and answers the API 401 with Trino-Form-Login, no Basic dialog', async () => {
    const page = await send('GET', `${fixture.server.httpsUrl}/ui/`, { headers: alice, ca: fixture.certificate.cert });
    expect(page.status).to.equal(200);
    const script = page.text.slice(page.text.indexOf('src="assets/') + 5, page.text.indexOf('.js"') + 3);
    // Code and style, no data (WebUiStaticResource's assets are @ResourceSecurity(PUBLIC)): the login page needs them.
    expect((await send('GET', `${fixture.server.httpsUrl}/ui/${script}`, { ca: fixture.certificate.cert })).status).to.equal(200);
    for (const [path, location] of [
      ['/ui/', '/ui/login.html'],
      ['/ui/query.html?20261128_000000_00000_abcde', '/ui/login.html?/ui/query.html?20261128_000000_00000_abcde'],
      ['/ui/nodes.html', '/ui/login.html?/ui/nodes.html'],
    ] as const) {
      const res = await send('GET', `${fixture.server.httpsUrl}${path}`, { ca: fixture.certificate.cert });
      expect(res.status, path).to.equal(303);
      expect(res.headers.get('location'), path).to.deep.equal([location]);
    }
    for (const path of ['/ui/', '/ui/query.html', '/ui/nodes.html', '/ui/api/history', '/ui/api/query', '/ui/api/node']) {
      if (path.startsWith('/ui/api/')) {
        const res = await send('GET', `${fixture.server.httpsUrl}${path}`, { ca: fixture.certificate.cert });
        expect(res.status, path).to.equal(401);
        expect(res.headers.get('www-authenticate'), path).to.deep.equal(['Trino-Form-Login']);
        validateResponse('error', res.body);
      }
      // The protocol's credentials still count (clients, and browsers that have them).
      const wrong = await send('GET', `${fixture.server.httpsUrl}${path}`, { headers: { Authorization: basic('alice', 'nope') }, ca: fixture.certificate.cert });
      expect(wrong.status, path).to.equal(401);
      validateResponse('error', wrong.body);
      const ok = await send('GET', `${fixture.server.httpsUrl}${path}`, { headers: path === '/ui/api/node' ? { Authorization: basic('admin', 'admin-secret') } : alice, ca: fixture.certificate.cert });
      expect(ok.status, path).to.equal(200);
    }
    const history = await send('GET', `${fixture.server.httpsUrl}/ui/api/history`, { headers: bob, ca: fixture.certificate.cert });
    validateResponse('ui-history', history.body);
  });

  describe('in a browser', () => {
    let browser: Browser;
    before(async function () {
      skipWithoutChromium(this);
      browser = await launchChromium();
    });
    after(() => browser?.close());

    it('logs in through the form as alice: her queries only, bob\'s query page denied, the nodes page refused, then out', async () => {
      const mine = await run('SELECT 1 AS mine', alice);
      const theirs = await run('SELECT 2 AS theirs', bob);
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      const page = await context.newPage();
      // A page without a session goes to the form and, logged in, comes back to it.
      await page.goto(`${fixture.server.httpsUrl}/ui/query.html?${mine.id}`);
      expect(new URL(page.url()).pathname).to.equal('/ui/login.html');
      await page.locator('#username').fill('alice');
      await page.locator('#password').fill('wrong');
      await page.locator('button[type=submit]').click();
      // Refused: the form again, still knowing the page to go back to, and saying the login failed.
      await page.locator('#error-banner:not([hidden])').waitFor();
      expect(await page.locator('#error-banner').textContent()).to.include('Login failed');
      expect(new URL(page.url()).search).to.equal(`?/ui/query.html?${mine.id}`);
      expect(await context.cookies()).to.deep.equal([]);
      await page.locator('#username').fill('alice');
      await page.locator('#password').fill('alice-secret');
      await page.locator('button[type=submit]').click();
      await page.waitForURL((url) => url.pathname === '/ui/query.html');
      expect(new URL(page.url()).search).to.equal(`?${mine.id}`);
      await page.goto(`${fixture.server.httpsUrl}/ui/`);
      await page.locator(`tr[data-query-id="${mine.id}"]`).waitFor();
      expect(await page.locator(`tr[data-query-id="${theirs.id}"]`).count()).to.equal(0);
      // /v1/node needs system_information read, which alice lacks: node counts are unknown, not zero.
      expect(await page.locator('#stat-nodes-alive').textContent()).to.equal('–');
      await screenshot(page, 'overview-signed-in');
      await page.goto(`${fixture.server.httpsUrl}/ui/query.html?${theirs.id}`);
      await page.locator('#error-banner:not([hidden])').waitFor();
      expect(await page.locator('#error-banner').textContent()).to.include('Access Denied');
      expect(await page.locator('#raw-json').textContent()).to.equal('');
      expect(await page.locator('#cancel').isDisabled()).to.equal(true);
      await page.goto(`${fixture.server.httpsUrl}/ui/nodes.html`);
      await page.locator('#error-banner:not([hidden])').waitFor();
      expect(await page.locator('#error-banner').textContent()).to.include('Cannot read system information');
      // Logged out, the cookie is gone: the next page is the form again.
      // Logged in, the login page sends the user on.
      await page.goto(`${fixture.server.httpsUrl}/ui/login.html?/ui/nodes.html`);
      expect(new URL(page.url()).pathname).to.equal('/ui/nodes.html');
      await page.locator('a[href="logout"]').click();
      await page.waitForURL((url) => url.pathname === '/ui/login.html');
      expect(await context.cookies()).to.deep.equal([]);
      expect(await page.locator('#error-banner').isHidden(), 'no failure after a logout').to.equal(true);
      await page.goto(`${fixture.server.httpsUrl}/ui/`);
      expect(new URL(page.url()).pathname).to.equal('/ui/login.html');
      await context.close();
    });
  });
});
