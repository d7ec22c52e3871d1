// GET /v1/resourceGroupState/{group path}: Trino's ResourceGroupStateInfoResource. The path is the group's
// names separated by '/', each URL-decoded (global/adhoc/alice); the body is its ResourceGroupInfo (limits,
// counts, the sub groups with work, the queries running in it or below). A group that does not exist (or no
// longer does: groups made from a template are dropped once empty) answers 404. Management information: the
// system information read right, as /v1/node. GET /ui/api/resourceGroups (ours) lists every live group for
// the web UI under the same right.
import type Router from '@koa/router';
import type { Coordinator } from '../actors/coordinator.js';
import type { AccessControl } from '../security/access-control.js';
import type { GroupInfo } from '../resource-groups/resource-group-tree.js';
import { formatDataSize } from '../protocol/data-size.js';
import { formatDuration } from '../protocol/duration.js';
import { sendJsonText } from './request-context.js';
import { VivaceError } from '../protocol/vivace-error.js';
import { requestUser } from './request-user.js';

const PREFIX = '/v1/resourceGroupState/';

/** Java's URLDecoder: '+' is a blank, %XX a byte of UTF-8; undefined for a malformed escape. */
function urlDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment.split('+').join(' '));
  } catch {
    return undefined;
  }
}

/** airlift's DataSize JSON; an unlimited group says Long.MAX_VALUE bytes, as Trino's. */
function dataSize(bytes: number): string {
  return bytes >= Number.MAX_SAFE_INTEGER ? '9223372036854775807B' : formatDataSize(bytes);
}

export function resourceGroupInfoJson(info: GroupInfo, queryState: (queryId: string) => Record<string, unknown> | undefined): Record<string, unknown> {
  return {
    id: info.id,
    state: info.state,
    schedulingPolicy: info.schedulingPolicy.toUpperCase(),
    schedulingWeight: info.schedulingWeight,
    softMemoryLimit: dataSize(info.softMemoryLimitBytes),
    softConcurrencyLimit: info.softConcurrencyLimit,
    hardConcurrencyLimit: info.hardConcurrencyLimit,
    maxQueuedQueries: info.maxQueuedQueries,
    memoryUsage: dataSize(info.memoryUsageBytes),
    cpuUsage: formatDuration(info.cpuUsageMillis),
    numQueuedQueries: info.numQueuedQueries,
    numRunningQueries: info.numRunningQueries,
    numEligibleSubGroups: info.numEligibleSubGroups,
    subGroups: info.subGroups.map((sub) => ({ ...resourceGroupInfoJson(sub, queryState), subGroups: null, runningQueries: null })),
    runningQueries: info.runningQueries.flatMap((queryId) => queryState(queryId) ?? []),
  };
}

export function resourceGroupRoutes(router: Router, coordinator: Coordinator, access: AccessControl): void {
  const groups = () => coordinator.tracker.getSnapshot().context.dispatcher.getSnapshot().context.groups;
  /** Trino's QueryStateInfo of a running query (its progress is not given here). */
  const queryState = (queryId: string): Record<string, unknown> | undefined => {
    const tracked = coordinator.lookup(queryId);
    if (!tracked) return undefined;
    const view = coordinator.view(tracked);
    const s = view.session;
    return {
      queryId: view.queryId,
      queryState: view.state,
      resourceGroupId: view.resourceGroupId ?? null,
      query: view.sql,
      createTime: new Date(view.createTime).toISOString(),
      user: s.user,
      source: s.source ?? null,
      clientInfo: s.clientInfo ?? null,
      catalog: s.catalog ?? null,
      schema: s.schema ?? null,
      pathToRoot: null,
      progress: null,
    };
  };
  // The web UI's resource-group view (/ui/groups.html): every live group, roots first then depth first, each
  // as its ResourceGroupInfo above without the sub groups and queries (the list holds the sub groups).
  router.get('/ui/api/resourceGroups', (ctx) => {
    access.checkCanReadSystemInformation(requestUser(ctx, access));
    ctx.set('Cache-Control', 'no-store');
    sendJsonText(ctx, 200, JSON.stringify(groups().groups().map((info) => ({ ...resourceGroupInfoJson(info, queryState), subGroups: null, runningQueries: null }))));
  });
  router.get(`${PREFIX}*path`, (ctx) => {
    access.checkCanReadSystemInformation(requestUser(ctx, access));
    const id = ctx.path.slice(PREFIX.length).split('/').map(urlDecode);
    const info = id.every((segment) => segment !== undefined && segment !== '') ? groups().info(id as string[]) : undefined;
    if (!info) throw new VivaceError('NOT_FOUND', `Resource group not found: ${ctx.path.slice(PREFIX.length)}`, { httpStatus: 404 });
    sendJsonText(ctx, 200, JSON.stringify(resourceGroupInfoJson(info, queryState)));
  });
}
