// /ui/groups.html: every live resource group (/ui/api/resourceGroups, the state /v1/resourceGroupState
// shows) with its running and queued queries against its limits, sub groups indented under their parent,
// refreshed every second. Rows are rebuilt only where their text changed.
import { ApiError, every, getJson } from './api.js';
import { byId, el, replaceChildren, setText } from './dom.js';
import type { ResourceGroupInfo } from './types.js';

const body = byId<HTMLTableSectionElement>('group-rows');

function row(group: ResourceGroupInfo): HTMLTableRowElement {
  const id = Array.isArray(group.id) ? group.id : [];
  const depth = Math.max(0, id.length - 1);
  const name = el('td', { className: 'group-id', text: id.join('.') });
  name.style.paddingLeft = `${0.5 + depth * 1.5}em`;
  const full = group.state === 'FULL';
  const tr = el('tr', { className: full ? 'group-full' : '' }, [
    name,
    el('td', {}, [el('span', { className: `badge ${full ? 'state-failed' : group.state === 'CAN_QUEUE' ? 'state-queued' : 'state-finished'}`, text: group.state ?? '' })]),
    el('td', { text: group.schedulingPolicy ?? '' }),
    el('td', { className: 'number running', text: String(group.numRunningQueries ?? 0) }),
    el('td', { className: 'number queued', text: String(group.numQueuedQueries ?? 0) }),
    el('td', { className: 'number', text: String(group.hardConcurrencyLimit ?? '') }),
    el('td', { className: 'number', text: String(group.softConcurrencyLimit ?? '') }),
    el('td', { className: 'number', text: String(group.maxQueuedQueries ?? '') }),
    el('td', { className: 'number', text: group.memoryUsage ?? '' }),
    el('td', { className: 'number', text: group.softMemoryLimit === '9223372036854775807B' ? 'unlimited' : group.softMemoryLimit ?? '' }),
    el('td', { className: 'number', text: group.cpuUsage ?? '' }),
  ]);
  tr.dataset.groupId = id.join('.');
  return tr;
}

async function refresh(): Promise<void> {
  const banner = byId('error-banner');
  try {
    const groups = await getJson<ResourceGroupInfo[]>('/ui/api/resourceGroups');
    const rows = groups.map(row);
    const same = rows.length === body.rows.length && rows.every((tr, i) => body.rows[i]!.dataset.groupId === tr.dataset.groupId && body.rows[i]!.textContent === tr.textContent && body.rows[i]!.className === tr.className);
    if (!same) replaceChildren(body, rows);
    const running = groups.filter((g) => Array.isArray(g.id) && g.id.length === 1).reduce((n, g) => n + (g.numRunningQueries ?? 0), 0);
    const queued = groups.filter((g) => Array.isArray(g.id) && g.id.length === 1).reduce((n, g) => n + (g.numQueuedQueries ?? 0), 0);
    setText(byId('group-count'), `${groups.length} groups, ${running} running, ${queued} queued`);
    setText(byId('group-empty'), groups.length === 0 ? 'No group holds a query yet.' : '');
    banner.hidden = true;
  } catch (err) {
    setText(banner, `Cannot read the resource groups: ${err instanceof ApiError || err instanceof Error ? err.message : String(err)}`);
    banner.hidden = false;
  }
}

every(1000, refresh);
