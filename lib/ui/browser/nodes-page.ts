// /ui/nodes.html: every worker node from /v1/node (read as /ui/api/node) with its decaying counters, failure ratio, age and last
// failure; the nodes /v1/node/failed names are marked failed and listed first.
import { ApiError, every, getJson } from './api.js';
import { byId, el, setText } from './dom.js';
import { formatPercent } from './format.js';
import type { NodeStats } from './types.js';

const body = byId<HTMLTableSectionElement>('node-rows');

function number(value: number | undefined): string {
  return typeof value === 'number' && Number.isFinite(value) ? value.toFixed(2) : '';
}

function failureText(node: NodeStats): string {
  const info = node.lastFailureInfo;
  if (!info) return '';
  return [info.type, info.message].filter((part) => typeof part === 'string' && part !== '').join(': ');
}

function byType(node: NodeStats): string {
  const types = node.recentFailuresByType;
  if (!types || typeof types !== 'object') return '';
  return Object.entries(types)
    .filter(([, count]) => typeof count === 'number' && count > 0)
    .map(([type, count]) => `${type} ${count.toFixed(2)}`)
    .join(', ');
}

function row(node: NodeStats, failed: boolean): HTMLTableRowElement {
  const tr = el('tr', { className: failed ? 'node-failed' : '' }, [
    el('td', {}, [el('span', { className: failed ? 'badge state-failed' : 'badge state-finished', text: failed ? 'FAILED' : 'ALIVE' })]),
    el('td', { className: 'uri', text: node.uri }),
    el('td', { className: 'number', text: number(node.recentRequests) }),
    el('td', { className: 'number', text: number(node.recentSuccesses) }),
    el('td', { className: 'number', text: number(node.recentFailures) }),
    el('td', { className: 'number', text: formatPercent(node.recentFailureRatio) }),
    el('td', { className: 'time', text: node.age ?? '' }),
    el('td', { className: 'time', text: node.lastRequestTime ?? '' }),
    el('td', { className: 'time', text: node.lastResponseTime ?? '' }),
    el('td', { className: 'failure', text: failureText(node) }),
    el('td', { className: 'failure', text: byType(node) }),
  ]);
  tr.dataset.uri = node.uri;
  return tr;
}

/** Rewrites a row's cells only where the text changed (a selection in an unchanged cell survives). */
function patch(existing: HTMLTableRowElement, fresh: HTMLTableRowElement): void {
  if (existing.className !== fresh.className) existing.className = fresh.className;
  const cells = fresh.children;
  for (let i = 0; i < cells.length; i++) {
    const old = existing.children[i];
    const cell = cells[i]!;
    if (!old) existing.appendChild(cell.cloneNode(true));
    else if (old.textContent !== cell.textContent) old.replaceWith(cell.cloneNode(true));
  }
}

async function refresh(): Promise<void> {
  const banner = byId('error-banner');
  try {
    const [nodes, failed] = await Promise.all([getJson<NodeStats[]>('/ui/api/node'), getJson<NodeStats[]>('/ui/api/node/failed')]);
    const failedUris = new Set(failed.map((n) => n.uri));
    const ordered = [...nodes].sort((a, b) => Number(failedUris.has(b.uri)) - Number(failedUris.has(a.uri)) || (a.uri < b.uri ? -1 : 1));
    const existing = new Map(Array.from(body.rows, (tr) => [tr.dataset.uri ?? '', tr]));
    let cursor = body.firstElementChild;
    for (const node of ordered) {
      const fresh = row(node, failedUris.has(node.uri));
      const old = existing.get(node.uri);
      existing.delete(node.uri);
      const tr = old ?? fresh;
      if (old) patch(old, fresh);
      if (cursor === tr) cursor = cursor.nextElementSibling;
      else body.insertBefore(tr, cursor);
    }
    for (const gone of existing.values()) gone.remove();
    setText(byId('node-count'), `${nodes.length} nodes, ${failedUris.size} failed`);
    setText(byId('node-empty'), nodes.length === 0 ? 'No worker node has announced itself.' : '');
    banner.hidden = true;
  } catch (err) {
    setText(banner, `Cannot read the nodes: ${err instanceof ApiError || err instanceof Error ? err.message : String(err)}`);
    banner.hidden = false;
  }
}

every(1000, refresh);
