// The overview's list of queries: one row per query id, kept across refreshes. A refresh writes only the
// cells whose text changed and moves only rows out of place, so scrolling, a text selection, focus and
// the selected row survive it, and a thousand rows cost a thousand comparisons, not a rebuilt table.
import { el, setAttr, setText, stateClass } from './dom.js';
import { formatMillis, parseDuration, progressOf, shortText } from './format.js';
import type { BasicQueryInfo } from './types.js';

interface Row {
  tr: HTMLTableRowElement;
  state: HTMLSpanElement;
  user: HTMLTableCellElement;
  source: HTMLTableCellElement;
  text: HTMLTableCellElement;
  elapsed: HTMLTableCellElement;
  progress: HTMLProgressElement;
  splits: HTMLSpanElement;
  error: HTMLTableCellElement;
}

export class QueryTable {
  private readonly rows = new Map<string, Row>();
  private selected: string | undefined;

  constructor(private readonly body: HTMLTableSectionElement) {
    // One listener for every row: clicking a row (not its link) selects it.
    body.addEventListener('click', (event) => {
      const tr = (event.target as Element | null)?.closest('tr');
      const id = tr?.dataset.queryId;
      if (id === undefined) return;
      this.select(this.selected === id ? undefined : id);
    });
  }

  private select(id: string | undefined): void {
    if (this.selected !== undefined) this.rows.get(this.selected)?.tr.classList.remove('selected');
    this.selected = id;
    if (id !== undefined) this.rows.get(id)?.tr.classList.add('selected');
  }

  private create(query: BasicQueryInfo): Row {
    const link = el('a', { text: query.queryId, attrs: { href: `query.html?${encodeURIComponent(query.queryId)}` } });
    const state = el('span', { className: 'badge' });
    const progress = el('progress', { attrs: { max: '1', value: '0' } });
    const splits = el('span', { className: 'splits' });
    const row: Row = {
      tr: el('tr'),
      state,
      user: el('td', { className: 'user' }),
      source: el('td', { className: 'source' }),
      text: el('td', { className: 'sql' }),
      elapsed: el('td', { className: 'number' }),
      progress,
      splits,
      error: el('td', { className: 'error-name' }),
    };
    row.tr.dataset.queryId = query.queryId;
    row.tr.append(el('td', { className: 'query-id' }, [link]), el('td', {}, [state]), row.user, row.source, row.text, row.elapsed, el('td', { className: 'progress' }, [progress, splits]), row.error);
    return row;
  }

  private update(row: Row, query: BasicQueryInfo): void {
    const state = query.state ?? 'UNKNOWN';
    setText(row.state, state);
    setAttr(row.state, 'class', `badge ${stateClass(state)}`);
    setText(row.user, query.session?.user ?? '');
    setText(row.source, query.session?.source ?? '');
    setText(row.text, shortText(query.query, 160));
    setAttr(row.text, 'title', shortText(query.query, 2000));
    setText(row.elapsed, formatMillis(parseDuration(query.queryStats?.elapsedTime)));
    const stats = query.queryStats;
    const fraction = state === 'FINISHED' ? 1 : progressOf(stats?.completedDrivers, stats?.totalDrivers);
    setAttr(row.progress, 'value', fraction.toFixed(3));
    setText(row.splits, stats?.totalDrivers ? `${stats.completedDrivers ?? 0}/${stats.totalDrivers}` : '');
    setText(row.error, query.errorCode?.name ?? '');
  }

  /** Shows exactly `queries`, in their order. */
  render(queries: BasicQueryInfo[]): void {
    const wanted = new Set(queries.map((q) => q.queryId));
    for (const [id, row] of this.rows) {
      if (wanted.has(id)) continue;
      row.tr.remove();
      this.rows.delete(id);
    }
    let cursor = this.body.firstElementChild;
    for (const query of queries) {
      let row = this.rows.get(query.queryId);
      if (!row) {
        row = this.create(query);
        if (query.queryId === this.selected) row.tr.classList.add('selected');
        this.rows.set(query.queryId, row);
      }
      this.update(row, query);
      if (cursor === row.tr) cursor = cursor.nextElementSibling;
      else this.body.insertBefore(row.tr, cursor);
    }
  }
}
