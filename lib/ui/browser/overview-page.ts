// /ui/: the cluster at a glance (queries by state, workers, recent rates and their chart) and the list of
// recent queries, refreshed every second without disturbing the user's filters, scroll or selection.
import { ApiError, every, getJson } from './api.js';
import { drawChart } from './chart.js';
import { byId, setText } from './dom.js';
import { formatCount } from './format.js';
import { filtersFromHash, hashFromFilters, selectQueries, type QueryFilters } from './query-filter.js';
import { QueryTable } from './query-table.js';
import type { BasicQueryInfo, ClusterStats, History, NodeStats } from './types.js';

const table = new QueryTable(byId<HTMLTableSectionElement>('query-rows'));
const storedTable = new QueryTable(byId<HTMLTableSectionElement>('stored-rows'));
const stateInput = byId<HTMLSelectElement>('state-filter');
const userInput = byId<HTMLInputElement>('user-filter');
const searchInput = byId<HTMLInputElement>('search');
const limitInput = byId<HTMLSelectElement>('limit');
const userList = byId<HTMLDataListElement>('user-list');
const chart = document.getElementById('chart') as SVGSVGElement | null;
let queries: BasicQueryInfo[] = [];
const knownUsers = new Set<string>();

function readFilters(): QueryFilters {
  return { state: stateInput.value, user: userInput.value, search: searchInput.value, limit: Number(limitInput.value) || 100 };
}

function writeFilters(filters: QueryFilters): void {
  stateInput.value = filters.state;
  if (stateInput.value !== filters.state) stateInput.value = '';
  userInput.value = filters.user;
  searchInput.value = filters.search;
  limitInput.value = String(filters.limit);
}

function showList(): void {
  const { shown, matched } = selectQueries(queries, readFilters());
  table.render(shown);
  const more = matched > shown.length ? ` (first ${shown.length} shown)` : '';
  setText(byId('list-count'), `${matched} of ${queries.length} queries${more}`);
  setText(byId('list-empty'), matched === 0 ? 'No queries match.' : '');
}

let storedAsked = '';
let stored: BasicQueryInfo[] = [];

/** The stored history searched with the filters (/ui/api/queryHistory), once per change of filters; the queries the live list holds are left out. */
async function refreshStored(force = false): Promise<void> {
  const filters = readFilters();
  const params = new URLSearchParams({ state: filters.state, user: filters.user, search: filters.search, limit: String(filters.limit) }).toString();
  if (params === storedAsked && !force) return;
  storedAsked = params;
  try {
    const rows = await getJson<BasicQueryInfo[]>(`/ui/api/queryHistory?${params}`);
    if (params !== storedAsked) return; // the filters changed meanwhile: a newer answer is on its way
    stored = Array.isArray(rows) ? rows : [];
  } catch (err) {
    stored = [];
    setText(byId('stored-empty'), `Cannot read the stored history: ${err instanceof ApiError || err instanceof Error ? err.message : String(err)}`);
    return;
  }
  showStored();
}

function showStored(): void {
  const live = new Set(queries.map((q) => q.queryId));
  const shown = stored.filter((q) => typeof q?.queryId === 'string' && !live.has(q.queryId));
  storedTable.render(shown);
  setText(byId('stored-count'), `${shown.length} stored ${shown.length === 1 ? 'query' : 'queries'} beyond the list`);
  setText(byId('stored-empty'), shown.length === 0 ? 'No stored query beyond the list matches.' : '');
}

function onFilterChange(): void {
  // The filters live in the address, so a reload or a shared link keeps them; no history entry per key.
  history.replaceState(null, '', `${location.pathname}${location.search}${hashFromFilters(readFilters())}`);
  showList();
  void refreshStored();
}

function rememberUsers(): void {
  let added = false;
  for (const q of queries) {
    const user = q.session?.user;
    if (typeof user === 'string' && !knownUsers.has(user) && knownUsers.size < 1000) {
      knownUsers.add(user);
      added = true;
    }
  }
  // Options are only added, never rebuilt: an open suggestion list stays put.
  if (added) {
    const present = new Set(Array.from(userList.options, (o) => o.value));
    for (const user of [...knownUsers].sort()) if (!present.has(user)) userList.appendChild(new Option(user, user));
  }
}

function showSummary(stats: ClusterStats | undefined, nodes: NodeStats[] | undefined, failed: NodeStats[] | undefined): void {
  const count = (state: string) => queries.filter((q) => q.state === state).length;
  setText(byId('stat-running'), stats ? String(stats.runningQueries ?? 0) : '–');
  setText(byId('stat-queued'), stats ? String(stats.queuedQueries ?? 0) : '–');
  setText(byId('stat-blocked'), stats ? String(stats.blockedQueries ?? 0) : '–');
  setText(byId('stat-finished'), String(count('FINISHED')));
  setText(byId('stat-failed'), String(count('FAILED')));
  // /v1/node needs the system-information right: without it the node counts are unknown, not zero.
  const failedCount = failed?.length;
  setText(byId('stat-nodes-alive'), nodes && failedCount !== undefined ? String(nodes.length - failedCount) : '–');
  setText(byId('stat-nodes-failed'), failedCount !== undefined ? String(failedCount) : '–');
  byId('tile-nodes-failed').classList.toggle('alert', (failedCount ?? 0) > 0);
}

function showError(message: string): void {
  const banner = byId('error-banner');
  setText(banner, message);
  banner.hidden = message === '';
}

async function refresh(): Promise<void> {
  const [list, stats, history, nodes, failed] = await Promise.allSettled([
    getJson<BasicQueryInfo[]>('/ui/api/query'),
    getJson<ClusterStats>('/ui/api/stats'),
    getJson<History>('/ui/api/history'),
    getJson<NodeStats[]>('/ui/api/node'),
    getJson<NodeStats[]>('/ui/api/node/failed'),
  ]);
  if (list.status === 'fulfilled' && Array.isArray(list.value)) {
    queries = list.value;
    rememberUsers();
    showList();
    showStored();
    showError('');
  } else if (list.status === 'rejected') {
    const reason = list.reason as unknown;
    showError(`Cannot read the query list: ${reason instanceof ApiError || reason instanceof Error ? reason.message : String(reason)}`);
  }
  const value = <T>(r: PromiseSettledResult<T>) => (r.status === 'fulfilled' ? r.value : undefined);
  showSummary(value(stats), value(nodes), value(failed));
  const h = value(history);
  if (chart && h && Array.isArray(h.samples)) {
    const rates = drawChart(chart, h.samples, h.intervalSeconds);
    setText(byId('stat-qps'), formatCount(rates.queriesPerSecond));
    setText(byId('stat-rps'), formatCount(rates.rowsPerSecond));
  }
}

writeFilters(filtersFromHash(location.hash));
// A link or the back button may change the hash alone: its filters apply without a reload.
window.addEventListener('hashchange', () => {
  writeFilters(filtersFromHash(location.hash));
  showList();
  void refreshStored();
});
for (const input of [stateInput, userInput, searchInput, limitInput]) input.addEventListener('input', onFilterChange);
every(1000, refresh);
// The stored history grows as queries end: asked again every 10 seconds, and at once when the filters change.
every(10_000, () => refreshStored(true));
