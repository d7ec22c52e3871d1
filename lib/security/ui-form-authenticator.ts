// Who may log into the web UI's form, as Trino's form authenticators decide it. Authentication off:
// Trino's InsecureFormAuthenticator, any user name and no password. Authentication on: over HTTPS the
// password is checked by the configured chain (PasswordManagerFormAuthenticator; the password file), over
// plain HTTP only with allow-insecure-over-http, and then, as the protocol's insecure mode, without one.
import type { CoordinatorConfig } from '../config.js';
import { hasControlCharacter } from './basic-credentials.js';
import type { Authenticator } from './authenticator.js';

export type FormLoginOutcome = { user: string } | { refused: true } | { overloaded: string };

/** A user name longer than this is refused unread (Trino's names are short; a cookie is at most 4 kB). */
const MAX_USER_LENGTH = 1024;
const MAX_PASSWORD_LENGTH = 4096;

export class UiFormAuthenticator {
  constructor(
    private readonly config: Pick<CoordinatorConfig, 'authenticationTypes' | 'allowInsecureOverHttp'>,
    /** the protocol's chain (undefined when authentication is off) */
    private readonly authenticator: Authenticator | undefined,
  ) {}

  /** Whether authentication is configured (the UI then needs a login or a credential). */
  get authenticationOn(): boolean {
    return this.authenticator !== undefined;
  }

  /**
   * Whether, with authentication on, the UI sends a request without a session to its login form: with a
   * password method, or over plain HTTP (the insecure form, or Trino's disabled page). JWT alone over
   * HTTPS is Trino's `jwt` web UI: the token in the Authorization header, the chain's Bearer challenge.
   */
  usesLoginForm(secure: boolean): boolean {
    return this.authenticationOn && (!secure || this.config.authenticationTypes.includes('PASSWORD'));
  }

  /** Whether the form may log anyone in on this connection (else Trino's disabled page). */
  isLoginEnabled(secure: boolean): boolean {
    return !this.authenticationOn || secure || this.config.allowInsecureOverHttp;
  }

  /** Whether the form asks for a password on this connection. */
  isPasswordAllowed(secure: boolean): boolean {
    return this.authenticationOn && secure && this.config.authenticationTypes.includes('PASSWORD');
  }

  async check(username: string | undefined, password: string | undefined, secure: boolean): Promise<FormLoginOutcome> {
    const refused = { refused: true } as const;
    // Trino's emptyToNull: an empty field is an absent one.
    if (!username || username.length > MAX_USER_LENGTH || hasControlCharacter(username)) return refused;
    if (password !== undefined && password !== '' && password.length > MAX_PASSWORD_LENGTH) return refused;
    const hasPassword = password !== undefined && password !== '';
    if (!this.isLoginEnabled(secure)) return refused;
    // Insecure form: the name is believed, and a password must not travel (or be asked for) in the clear.
    if (!this.isPasswordAllowed(secure)) return hasPassword || (this.authenticationOn && secure) ? refused : { user: username };
    // A Basic user name cannot hold ':' (and a password file's cannot either).
    if (!hasPassword || username.includes(':') || !this.authenticator) return refused;
    // The chain's own password check (password file, its cache and worker thread), given the form's
    // fields as the Basic credentials a client would send.
    const authorization = `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
    const outcome = await this.authenticator.authenticate({ authorization, secure });
    if ('principal' in outcome) return { user: outcome.principal };
    if (outcome.status === 503) return { overloaded: outcome.message };
    return refused;
  }
}
