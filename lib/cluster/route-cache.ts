// The routes of statements the coordinator placed before (statement-route.ts), by text and what the route
// reads of the session: a repeated statement (dashboards, benchmarks, retries) is not parsed again to
// choose its worker. A route depends on the text, the session's catalog and schema (names resolve against
// them), its prepared statements (EXECUTE reads what it runs) and the set of catalogs every worker reads
// alike; the set is the cache's own key (a dynamic cluster's set is new with each statement, and is never
// found again). Bounded: oldest out first; long texts are not kept.
import type { Session } from '../protocol/types.js';
import { routeOf, type StatementRoute } from './statement-route.js';

type RouteSession = Pick<Session, 'catalog' | 'schema'> & Partial<Pick<Session, 'preparedStatements'>>;

export class RouteCache {
  private readonly bySet = new WeakMap<ReadonlySet<string>, Map<string, StatementRoute>>();
  /** Routes computed (each a parse of the statement); a repeated statement adds none. */
  computed = 0;

  constructor(
    private readonly capacity = 1000,
    /** Longer texts are routed every time (the key holds the text). */
    private readonly maxTextLength = 10_000,
  ) {}

  routeOf(sql: string, session: RouteSession, shared: ReadonlySet<string>): StatementRoute {
    if (sql.length > this.maxTextLength) return this.compute(sql, session, shared);
    let routes = this.bySet.get(shared);
    if (!routes) {
      routes = new Map();
      this.bySet.set(shared, routes);
    }
    const prepared = session.preparedStatements;
    const key = `${session.catalog ?? '\u0001'}\u0000${session.schema ?? '\u0001'}\u0000${prepared && Object.keys(prepared).length > 0 ? JSON.stringify(prepared) : ''}\u0000${sql}`;
    const known = routes.get(key);
    if (known) return known;
    const route = this.compute(sql, session, shared);
    if (routes.size >= this.capacity) routes.delete(routes.keys().next().value!);
    routes.set(key, route);
    return route;
  }

  private compute(sql: string, session: RouteSession, shared: ReadonlySet<string>): StatementRoute {
    this.computed++;
    return Object.freeze(routeOf(sql, session, shared));
  }
}
