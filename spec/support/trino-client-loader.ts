// trino-client reads $USER once, when it is first loaded (directly or through @malloydata/db-trino), and
// sends it as X-Trino-User. Every spec loads it through here, so the user it sends is the same whichever
// spec happens to run first (a subset of the specs ran them in another order and saw `anonymous`).
export const TRINO_SPEC_USER = 'trino-spec-user';

export function importTrinoClient(): Promise<typeof import('trino-client')> {
  process.env.USER = TRINO_SPEC_USER;
  return import('trino-client');
}

export function importMalloyTrino(): Promise<typeof import('@malloydata/db-trino')> {
  process.env.USER = TRINO_SPEC_USER;
  return import('@malloydata/db-trino');
}
