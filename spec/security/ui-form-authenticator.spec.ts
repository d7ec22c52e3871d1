// Who the web UI's form logs in, for each configuration and connection, as Trino's form authenticators
// decide: insecure (a name, no password) when authentication is off or allowed over HTTP; the password
// chain over HTTPS; nobody over HTTP otherwise. The chain is a stand-in that records what it was asked.
import { expect } from 'chai';
import type { AuthenticationRequest, Authenticator } from '../../lib/security/authenticator.js';
import { UiFormAuthenticator } from '../../lib/security/ui-form-authenticator.js';

function chain(): Authenticator & { asked: AuthenticationRequest[] } {
  const asked: AuthenticationRequest[] = [];
  return {
    asked,
    authenticate(request) {
      asked.push(request);
      // alice:alice-secret only, as a password file would.
      const ok = request.authorization === `Basic ${Buffer.from('alice:alice-secret').toString('base64')}`;
      return Promise.resolve(ok ? { principal: 'alice' } : { status: 401, message: 'Access Denied: Invalid credentials', challenges: [] });
    },
  };
}

describe('ui form authenticator', () => {
  it('authentication off: any user name without a password, over HTTP or HTTPS (InsecureFormAuthenticator)', async () => {
    const form = new UiFormAuthenticator({ authenticationTypes: [], allowInsecureOverHttp: false }, undefined);
    for (const secure of [false, true]) {
      expect(form.isLoginEnabled(secure)).to.equal(true);
      expect(form.isPasswordAllowed(secure)).to.equal(false);
      expect(await form.check('anyone', undefined, secure)).to.deep.equal({ user: 'anyone' });
      expect(await form.check('anyone', '', secure)).to.deep.equal({ user: 'anyone' });
      expect(await form.check('anyone', 'pw', secure)).to.deep.equal({ refused: true });
      for (const bad of [undefined, '', 'a\u0000b', 'a\rb', 'x'.repeat(1025)]) expect(await form.check(bad, undefined, secure), JSON.stringify(bad)).to.deep.equal({ refused: true });
    }
  });

  it('password authentication over HTTPS: the chain checks the password; no password, no login', async () => {
    const authenticator = chain();
    const form = new UiFormAuthenticator({ authenticationTypes: ['PASSWORD'], allowInsecureOverHttp: false }, authenticator);
    expect(form.isPasswordAllowed(true)).to.equal(true);
    expect(await form.check('alice', 'alice-secret', true)).to.deep.equal({ user: 'alice' });
    expect(authenticator.asked.at(-1)?.secure).to.equal(true);
    expect(await form.check('alice', 'wrong', true)).to.deep.equal({ refused: true });
    expect(await form.check('alice', undefined, true)).to.deep.equal({ refused: true });
    expect(await form.check('alice', '', true)).to.deep.equal({ refused: true });
    const asked = authenticator.asked.length;
    expect(await form.check('alice:alice', 'secret', true), 'a name Basic cannot carry is never sent').to.deep.equal({ refused: true });
    expect(authenticator.asked.length).to.equal(asked);
  });

  it('password authentication over HTTP: nobody, unless allow-insecure-over-http (then a name, no password)', async () => {
    const closed = new UiFormAuthenticator({ authenticationTypes: ['PASSWORD'], allowInsecureOverHttp: false }, chain());
    expect(closed.isLoginEnabled(false)).to.equal(false);
    expect(await closed.check('alice', 'alice-secret', false)).to.deep.equal({ refused: true });
    expect(await closed.check('alice', undefined, false)).to.deep.equal({ refused: true });
    const authenticator = chain();
    const open = new UiFormAuthenticator({ authenticationTypes: ['PASSWORD'], allowInsecureOverHttp: true }, authenticator);
    expect(open.isLoginEnabled(false)).to.equal(true);
    expect(open.isPasswordAllowed(false)).to.equal(false);
    expect(await open.check('alice', undefined, false)).to.deep.equal({ user: 'alice' });
    expect(await open.check('alice', 'alice-secret', false), 'a password in the clear').to.deep.equal({ refused: true });
    expect(authenticator.asked).to.deep.equal([]);
  });

  it('JWT only: the form takes no password and logs nobody in over HTTPS (tokens go in the Authorization header)', async () => {
    const form = new UiFormAuthenticator({ authenticationTypes: ['JWT'], allowInsecureOverHttp: false }, chain());
    expect(form.isPasswordAllowed(true)).to.equal(false);
    expect(await form.check('alice', undefined, true)).to.deep.equal({ refused: true });
    expect(await form.check('alice', 'alice-secret', true)).to.deep.equal({ refused: true });
    // So a page without a session gets the chain's Bearer challenge over HTTPS, not a form that cannot log in.
    expect(form.usesLoginForm(true)).to.equal(false);
    expect(form.usesLoginForm(false)).to.equal(true);
  });

  it('sends requests without a session to the form only when authentication is on', () => {
    expect(new UiFormAuthenticator({ authenticationTypes: [], allowInsecureOverHttp: false }, undefined).usesLoginForm(true)).to.equal(false);
    const password = new UiFormAuthenticator({ authenticationTypes: ['PASSWORD', 'JWT'], allowInsecureOverHttp: false }, chain());
    expect(password.usesLoginForm(true)).to.equal(true);
    expect(password.usesLoginForm(false)).to.equal(true);
  });

  it('passes the chain being overloaded on as such (a 503 the browser may retry)', async () => {
    const busy: Authenticator = { authenticate: () => Promise.resolve({ status: 503, message: 'Too many password checks', challenges: [] }) };
    const form = new UiFormAuthenticator({ authenticationTypes: ['PASSWORD'], allowInsecureOverHttp: false }, busy);
    expect(await form.check('alice', 'alice-secret', true)).to.deep.equal({ overloaded: 'Too many password checks' });
  });
});
