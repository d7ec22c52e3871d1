// Which queries a user sees in /v1/query, /v1/query/{id} and system.runtime.queries: their own, those a
// `queries` view rule opens, and every query for a user who may read system information (issue 9:
// system_information read covers `/v1/query` of all users).
import type { AccessControl } from './access-control.js';

export function canSeeQuery(access: AccessControl, user: string, owner: string): boolean {
  return access.canViewQueryOwnedBy(user, owner) || access.canReadSystemInformation(user);
}
