// The configured authentication chain (http-server.authentication.type), as Trino's AuthenticationFilter
// runs it: each method in order, the first success wins; otherwise a 401 with every method's message
// (" | ") and one WWW-Authenticate challenge per method. Over plain HTTP the secure methods are never
// tried: 403, or Trino's insecure authenticator when allow-insecure-over-http is true.
import type { CoordinatorConfig } from '../config.js';
import type { Logger } from '../log/logger.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { authorizationScheme, MalformedCredentialsError, parseBasicCredentials } from './basic-credentials.js';
import { TooManyPasswordChecks } from './password-check-worker.js';
import { JwtAuthenticator, JwtRejected } from './jwt-authenticator.js';
import { PasswordFile } from './password-file.js';

export const BASIC_CHALLENGE = 'Basic realm="Trino"';
export const BEARER_CHALLENGE = 'Bearer realm="Trino", token_type="JWT"';

export interface AuthenticationRequest {
  /** the Authorization header, if any */
  authorization?: string;
  /** the user the request names (X-Trino-Original-User, X-Trino-User, ...): only the insecure authenticator reads it */
  userHeader?: string;
  /** came over TLS (or, with http-server.process-forwarded, through a proxy that says it did) */
  secure: boolean;
}

export type AuthenticationOutcome =
  | { principal: string }
  | { status: 401 | 403 | 503; message: string; challenges: string[] };

export interface Authenticator {
  authenticate(request: AuthenticationRequest): Promise<AuthenticationOutcome>;
}

/** One method's refusal: a message (none when it saw no credential of its kind) and its challenge. */
class AuthenticationFailure extends Error {
  constructor(
    message: string | undefined,
    readonly challenge?: string,
  ) {
    super(message ?? '');
  }
}

type Method = (authorization: string | undefined) => Promise<string>;

function passwordMethod(file: PasswordFile): Method {
  return async (authorization) => {
    let credentials;
    try {
      credentials = authorization === undefined ? undefined : parseBasicCredentials(authorization);
    } catch (err) {
      // A malformed Basic header carries no challenge, as in Trino.
      if (err instanceof MalformedCredentialsError) throw new AuthenticationFailure(err.message);
      throw err;
    }
    if (!credentials) throw new AuthenticationFailure(undefined, BASIC_CHALLENGE);
    if (credentials.password === undefined) throw new AuthenticationFailure('Malformed credentials: password is empty');
    if (!(await file.verify(credentials.user, credentials.password))) throw new AuthenticationFailure('Access Denied: Invalid credentials', BASIC_CHALLENGE);
    return credentials.user;
  };
}

function jwtMethod(jwt: JwtAuthenticator): Method {
  return async (authorization) => {
    const parts = authorization === undefined ? undefined : authorizationScheme(authorization);
    if (parts?.scheme !== 'bearer' || parts.rest === '') throw new AuthenticationFailure(undefined, BEARER_CHALLENGE);
    try {
      return await jwt.principal(parts.rest);
    } catch (err) {
      if (err instanceof JwtRejected) throw new AuthenticationFailure(err.message, BEARER_CHALLENGE);
      throw err;
    }
  };
}

/** Trino's InsecureAuthenticator: the named user is believed, but a password must not travel in the clear. */
function insecure(request: AuthenticationRequest): AuthenticationOutcome {
  const refuse = (message: string, challenges: string[] = [BASIC_CHALLENGE]): AuthenticationOutcome => ({ status: 401, message, challenges });
  let credentials;
  try {
    credentials = request.authorization === undefined ? undefined : parseBasicCredentials(request.authorization);
  } catch (err) {
    if (err instanceof MalformedCredentialsError) return refuse(err.message, []);
    throw err;
  }
  if (credentials?.password !== undefined) return refuse('Password not allowed for insecure authentication');
  const user = credentials?.user ?? request.userHeader;
  if (!user) return refuse('Basic authentication or X-Trino-Original-User or X-Trino-User must be sent');
  return { principal: user };
}

export interface AuthenticatorDependencies {
  /** epoch ms: the password file's refresh schedule and cache, the JWT's exp/nbf */
  now?: () => number;
  /** where the password file's problems are logged (default: the process's logger) */
  logger?: Logger;
}

/**
 * The chain for this configuration, or undefined when authentication is off. Reads the password and key
 * files now: a missing or broken file is a startup error.
 */
export function createAuthenticator(config: CoordinatorConfig, deps: AuthenticatorDependencies = {}): Authenticator | undefined {
  if (config.authenticationTypes.length === 0) return undefined;
  const methods: Method[] = config.authenticationTypes.map((type) => {
    if (type === 'PASSWORD') {
      if (!config.passwordFile) throw new VivaceError('CONFIGURATION_INVALID', 'http-server.authentication.type=PASSWORD needs file.password-file');
      return passwordMethod(
        new PasswordFile({
          path: config.passwordFile,
          refreshPeriodMs: config.passwordFileRefreshPeriodMs,
          cacheMaxSize: config.passwordCacheMaxSize,
          ...deps,
        }),
      );
    }
    if (!config.jwtKeyFile) throw new VivaceError('CONFIGURATION_INVALID', 'http-server.authentication.type=JWT needs http-server.authentication.jwt.key-file');
    return jwtMethod(
      new JwtAuthenticator({
        keyFile: config.jwtKeyFile,
        principalField: config.jwtPrincipalField,
        ...(config.jwtRequiredIssuer === undefined ? {} : { requiredIssuer: config.jwtRequiredIssuer }),
        ...(config.jwtRequiredAudience === undefined ? {} : { requiredAudience: config.jwtRequiredAudience }),
        ...(deps.now === undefined ? {} : { now: deps.now }),
      }),
    );
  });

  return {
    async authenticate(request) {
      if (!request.secure) {
        if (!config.allowInsecureOverHttp) return { status: 403, message: 'Authentication over HTTP is not enabled', challenges: [] };
        return insecure(request);
      }
      const messages = new Set<string>();
      const challenges = new Set<string>();
      for (const method of methods) {
        try {
          return { principal: await method(request.authorization) };
        } catch (err) {
          // Overloaded, not refused: 503, which clients retry.
          if (err instanceof TooManyPasswordChecks) return { status: 503, message: err.message, challenges: [] };
          if (!(err instanceof AuthenticationFailure)) throw err;
          if (err.message) messages.add(err.message);
          if (err.challenge) challenges.add(err.challenge);
        }
      }
      return { status: 401, message: messages.size ? [...messages].join(' | ') : 'Unauthorized', challenges: [...challenges] };
    },
  };
}
