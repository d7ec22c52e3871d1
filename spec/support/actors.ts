// Helpers for driving actors directly: a session, limits, and a way to let promises settle.
import type { Session } from '../../lib/protocol/types.js';
import type { QueryLimits } from '../../lib/actors/query.machine.js';

export function testSession(overrides: Partial<Session> = {}): Session {
  return {
    prefix: 'X-Service-',
    user: 'test',
    clientTags: [],
    properties: {},
    preparedStatements: {},
    remoteUserAddress: '127.0.0.1',
    startTime: 0,
    ...overrides,
  };
}

export const TEST_LIMITS: QueryLimits = { maxRunTimeMs: 60_000, targetResultBytes: 1024, prefetchPages: 2 };

/** Let pending promise callbacks (fake engine calls) run; no timer is involved. */
export async function settle(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
