// Which queries the overview lists, in what order: pure functions over /v1/query's entries, for specs.
import type { BasicQueryInfo } from './types.js';

/** `state`: '' for all, 'ACTIVE' for every state before the end, or one state name. */
export interface QueryFilters {
  state: string;
  user: string;
  search: string;
  limit: number;
}

export const DEFAULT_FILTERS: QueryFilters = { state: '', user: '', search: '', limit: 100 };
export const LIMITS = [20, 100, 500, 1000] as const;

const DONE_STATES = new Set(['FINISHED', 'FAILED']);

function contains(haystack: string | undefined, needle: string): boolean {
  return typeof haystack === 'string' && haystack.toLowerCase().includes(needle);
}

export function matchesFilters(query: BasicQueryInfo, filters: QueryFilters): boolean {
  const state = query.state ?? '';
  if (filters.state === 'ACTIVE' ? DONE_STATES.has(state) : filters.state !== '' && state !== filters.state) return false;
  const user = filters.user.trim().toLowerCase();
  if (user !== '' && !contains(query.session?.user, user)) return false;
  const search = filters.search.trim().toLowerCase();
  if (search === '') return true;
  return (
    contains(query.query, search) ||
    contains(query.queryId, search) ||
    contains(query.session?.user, search) ||
    contains(query.session?.source, search) ||
    contains(query.errorCode?.name, search)
  );
}

/** Newest first (by creation time, then id, which the server makes in order). */
export function compareQueries(a: BasicQueryInfo, b: BasicQueryInfo): number {
  const ta = a.queryStats?.createTime ?? '';
  const tb = b.queryStats?.createTime ?? '';
  if (ta !== tb) return ta < tb ? 1 : -1;
  return a.queryId < b.queryId ? 1 : a.queryId > b.queryId ? -1 : 0;
}

/** The entries to show, and how many matched before the limit. */
export function selectQueries(queries: BasicQueryInfo[], filters: QueryFilters): { shown: BasicQueryInfo[]; matched: number } {
  const matching = queries.filter((q) => typeof q?.queryId === 'string' && matchesFilters(q, filters)).sort(compareQueries);
  return { shown: matching.slice(0, Math.max(1, filters.limit)), matched: matching.length };
}

/** Filters from a location hash (`#state=FAILED&user=alice`); unknown or odd values fall back to defaults. */
export function filtersFromHash(hash: string): QueryFilters {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const limit = Number(params.get('limit'));
  return {
    state: (params.get('state') ?? '').slice(0, 32),
    user: (params.get('user') ?? '').slice(0, 256),
    search: (params.get('search') ?? '').slice(0, 1024),
    limit: (LIMITS as readonly number[]).includes(limit) ? limit : DEFAULT_FILTERS.limit,
  };
}

export function hashFromFilters(filters: QueryFilters): string {
  const params = new URLSearchParams();
  if (filters.state) params.set('state', filters.state);
  if (filters.user) params.set('user', filters.user);
  if (filters.search) params.set('search', filters.search);
  if (filters.limit !== DEFAULT_FILTERS.limit) params.set('limit', String(filters.limit));
  const text = params.toString();
  return text ? `#${text}` : '';
}
