// Which queries a user sees in /v1/query, /v1/query/{id} and system.runtime.queries: the access
// control's rule (AccessControl.canSeeQueryOwnedBy), under the name the routes and the system tables use.
import type { AccessControl } from './access-control.js';

export function canSeeQuery(access: AccessControl, user: string, owner: string): boolean {
  return access.canSeeQueryOwnedBy(user, owner);
}
