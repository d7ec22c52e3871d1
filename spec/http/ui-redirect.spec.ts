// The login form's redirect guard by attack: whatever redirectPath says, the browser is sent to a page
// of this server's web UI, never to another site (open redirect), nor back into the login resources.
import { expect } from 'chai';
import fc from 'fast-check';
import { loginRedirect } from '../../lib/http/ui-redirect.js';

describe('ui login redirect', () => {
  it('keeps a path (and query) under /ui/', () => {
    expect(loginRedirect('/ui/query.html?20261128_000000_00000_abcde')).to.equal('/ui/query.html?20261128_000000_00000_abcde');
    expect(loginRedirect('/ui/api/query/q1')).to.equal('/ui/api/query/q1');
    expect(loginRedirect('nodes.html')).to.equal('/ui/nodes.html');
    expect(loginRedirect(undefined)).to.equal('/ui/');
    expect(loginRedirect('')).to.equal('/ui/');
  });

  it("keeps only the path of a whole URL (Trino's older clients send this server's URL)", () => {
    expect(loginRedirect('http://127.0.0.1:8080/ui/api/query/q1')).to.equal('/ui/api/query/q1');
    expect(loginRedirect('https://evil.example/ui/query.html?x')).to.equal('/ui/query.html?x');
  });

  it('never leaves this server nor /ui/', () => {
    for (const attack of [
      'https://evil.example/',
      '//evil.example/',
      '//evil.example/ui/',
      '///evil.example/ui/',
      '/\\evil.example/ui/',
      '\\\\evil.example\\ui\\',
      '/ui/../v1/query',
      '/ui/%2e%2e/v1/query',
      '/ui/..%2fv1/query',
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      '/ui\t/\n/evil.example',
      'http://x//evil.example',
      'http:evil.example',
      '/v1/query',
      '/ui',
      '/uix/',
      '/ui/login.html',
      '/ui/logout',
      '/ui/auth/logout',
      'a'.repeat(10_000),
    ]) {
      const location = loginRedirect(attack);
      expect(location.startsWith('/ui/') && !location.startsWith('//'), attack).to.equal(true);
      expect(new URL(location, 'http://our.server').host, attack).to.equal('our.server');
      expect(location, attack).to.not.match(/^\/ui\/(?:login|logout|auth\/)/);
      if (attack.includes('..') || attack.includes('%2e')) expect(location, attack).to.not.include('/v1/');
    }
  });

  it('answers a header-safe path under /ui/ for any input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.webUrl(), fc.webPath().map((p) => `/ui${p}`)), (input) => {
        const location = loginRedirect(input);
        expect(location.startsWith('/ui/')).to.equal(true);
        expect(location.startsWith('//')).to.equal(false);
        for (let i = 0; i < location.length; i++) expect(location.charCodeAt(i)).to.be.within(0x21, 0x7e);
      }),
      { numRuns: 3000 },
    );
  });
});
