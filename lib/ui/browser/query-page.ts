// /ui/query.html?{queryId} (a statement's infoUri): one query's session, timings, data sizes, stage tree,
// error marked in its SQL, a cancel button and the raw JSON of /v1/query/{id} (read as /ui/api/query/{id}); refreshed until it ends.
import { ApiError, cancelQuery, every, getJson } from './api.js';
import { byId, definitionRows, el, replaceChildren, setText, stateBadge } from './dom.js';
import { formatCount, formatPercent, progressOf, queryIdFrom } from './format.js';
import { markSql } from './sql-marker.js';
import type { QueryInfo, StageInfo, TaskInfo } from './types.js';

const queryId = queryIdFrom(location.search);
const cancelButton = byId<HTMLButtonElement>('cancel');
let lastSql: string | undefined;
let lastLocation = '';

function showMessage(text: string): void {
  const banner = byId('error-banner');
  setText(banner, text);
  banner.hidden = text === '';
}

function stageNode(stage: StageInfo): HTMLLIElement {
  const fraction = stage.done && stage.state === 'FINISHED' ? 1 : progressOf(stage.completedSplits, stage.totalSplits);
  const summary = el('div', { className: 'stage' }, [
    el('span', { className: 'stage-id', text: `Stage ${stage.stageId ?? '?'}` }),
    stateBadge(stage.state),
    el('progress', { attrs: { max: '1', value: fraction.toFixed(3) } }),
    el('span', {
      className: 'splits',
      text: `splits ${stage.completedSplits ?? 0}/${stage.totalSplits ?? 0} (queued ${stage.queuedSplits ?? 0}, running ${stage.runningSplits ?? 0})`,
    }),
    el('span', {
      className: 'stage-stats',
      text: `nodes ${stage.nodes ?? 0} · rows ${formatCount(stage.processedRows ?? 0)} · CPU ${stage.cpuTimeMillis ?? 0}ms · wall ${stage.wallTimeMillis ?? 0}ms`
        + (stage.outputPositions !== undefined ? ` · out ${formatCount(stage.outputPositions)} rows, ${stage.outputDataSize ?? '0B'}` : '')
        + (stage.peakUserMemoryReservation !== undefined ? ` · peak ${stage.peakUserMemoryReservation}` : ''),
    }),
  ]);
  const item = el('li', {}, [summary]);
  const tasks = Array.isArray(stage.tasks) ? stage.tasks : [];
  if (tasks.length > 0) item.appendChild(taskTable(tasks));
  const subs = Array.isArray(stage.subStages) ? stage.subStages : [];
  if (subs.length > 0) item.appendChild(el('ul', {}, subs.map(stageNode)));
  return item;
}

/** A stage's tasks, a row each: where it ran, its state, the rows and bytes in and out, CPU, wall and peak memory. */
function taskTable(tasks: readonly TaskInfo[]): HTMLTableElement {
  const head = el('tr', {}, ['Task', 'Node', 'State', 'Rows in', 'Bytes in', 'Rows out', 'Bytes out', 'CPU', 'Elapsed', 'Peak memory'].map((h) => el('th', { text: h })));
  const rows = tasks.map((t) => {
    const s = t.stats ?? {};
    const cells = [
      el('td', { text: t.taskStatus?.taskId ?? '' }),
      el('td', { text: t.taskStatus?.nodeId ?? '' }),
      el('td', {}, [stateBadge(t.taskStatus?.state)]),
      el('td', { text: formatCount(s.rawInputPositions) }),
      el('td', { text: s.rawInputDataSize ?? '' }),
      el('td', { text: formatCount(s.outputPositions) }),
      el('td', { text: s.outputDataSize ?? '' }),
      el('td', { text: s.totalCpuTime ?? '' }),
      el('td', { text: s.elapsedTime ?? '' }),
      el('td', { text: s.peakUserMemoryReservation ?? '' }),
    ];
    return el('tr', { attrs: { 'data-task-id': t.taskStatus?.taskId ?? '' } }, cells);
  });
  return el('table', { className: 'task-table' }, [el('thead', {}, [head]), el('tbody', {}, rows)]);
}

function showSql(info: QueryInfo): void {
  const location = info.failureInfo?.errorLocation;
  const key = location ? `${location.lineNumber}:${location.columnNumber}` : '';
  // The SQL never changes; it is redrawn only when the error's location first appears.
  if (info.query === lastSql && key === lastLocation) return;
  lastSql = info.query;
  lastLocation = key;
  const lines = markSql(typeof info.query === 'string' ? info.query : '', location).map((line) =>
    el('span', { className: line.error ? 'sql-line error-line' : 'sql-line' }, [
      el('span', { className: 'line-number', text: String(line.number) }),
      document.createTextNode(line.before),
      ...(line.error ? [el('mark', { text: line.marked }), document.createTextNode(line.after)] : []),
    ]),
  );
  replaceChildren(byId('sql'), lines);
}

function showError(info: QueryInfo): void {
  const section = byId('error-section');
  section.hidden = info.state !== 'FAILED';
  if (section.hidden) return;
  const location = info.failureInfo?.errorLocation;
  replaceChildren(byId('error-table'), [
    definitionRows([
      ['Error', info.errorCode?.name],
      ['Type', info.errorType ?? info.errorCode?.type],
      ['Code', info.errorCode?.code === undefined ? undefined : String(info.errorCode.code)],
      ['Message', info.failureInfo?.message],
      ['Location', location ? `line ${location.lineNumber}, column ${location.columnNumber}` : undefined],
      ['Exception', info.failureInfo?.type],
    ]),
  ]);
}

function render(info: QueryInfo): void {
  const s = info.session ?? {};
  const t = info.queryStats ?? {};
  replaceChildren(byId('query-state'), [stateBadge(info.state)]);
  setText(byId('query-user'), s.user ?? '');
  replaceChildren(byId('session-table'), [
    definitionRows([
      ['User', s.user],
      ['Principal', s.principal],
      ['Source', s.source],
      ['Catalog', s.catalog],
      ['Schema', s.schema],
      ['Time zone', s.timeZone],
      ['Client address', s.remoteUserAddress],
      ['User agent', s.userAgent],
      ['Client info', s.clientInfo],
      ['Client tags', Array.isArray(s.clientTags) ? s.clientTags.join(', ') : undefined],
      ['Session properties', s.systemProperties ? Object.entries(s.systemProperties).map(([k, v]) => `${k}=${v}`).join(', ') : undefined],
    ]),
  ]);
  replaceChildren(byId('timing-table'), [
    definitionRows([
      ['Created', t.createTime],
      ['Execution started', t.executionStartTime],
      ['Ended', t.endTime],
      ['Elapsed', t.elapsedTime],
      ['Queued', t.queuedTime],
      ['Analysis', t.analysisTime],
      ['Planning', t.planningTime],
      ['Execution', t.executionTime],
      ['CPU', t.totalCpuTime],
      ['Scheduled', t.totalScheduledTime],
      ['Blocked', t.totalBlockedTime],
    ]),
  ]);
  const splits = progressOf(t.completedDrivers, t.totalDrivers);
  replaceChildren(byId('data-table'), [
    definitionRows([
      ['Raw input', `${t.rawInputDataSize ?? ''} (${formatCount(t.rawInputPositions ?? 0)} rows)`],
      ['Processed input', `${t.processedInputDataSize ?? ''} (${formatCount(t.processedInputPositions ?? 0)} rows)`],
      ['Output', `${t.outputDataSize ?? ''} (${formatCount(t.outputPositions ?? 0)} rows)`],
      ['Peak user memory', t.peakUserMemoryReservation],
      ['Memory reserved', t.totalMemoryReservation],
      ['Splits', `${t.completedDrivers ?? 0}/${t.totalDrivers ?? 0} completed (${formatPercent(splits)}), ${t.runningDrivers ?? 0} running, ${t.queuedDrivers ?? 0} queued`],
    ]),
  ]);
  replaceChildren(byId('stages'), info.outputStage ? [stageNode(info.outputStage)] : [el('li', { text: 'No stages yet.' })]);
  showSql(info);
  showError(info);
  setText(byId('raw-json'), JSON.stringify(info, null, 2));
  cancelButton.disabled = info.state === 'FINISHED' || info.state === 'FAILED';
}

async function load(): Promise<boolean> {
  if (queryId === undefined) return false;
  try {
    const info = await getJson<QueryInfo>(`/ui/api/query/${encodeURIComponent(queryId)}`);
    render(info);
    showMessage('');
    return info.state !== 'FINISHED' && info.state !== 'FAILED';
  } catch (err) {
    const gone = err instanceof ApiError && err.status === 410;
    showMessage(gone ? `Query ${queryId} is not known (it may have expired from the history).` : `Cannot read query ${queryId}: ${(err as Error).message}`);
    cancelButton.disabled = true;
    return !gone && !(err instanceof ApiError && err.status === 403);
  }
}

if (queryId === undefined) {
  showMessage('No query id: open this page as query.html?<queryId>.');
  cancelButton.disabled = true;
} else {
  setText(byId('query-id'), queryId);
  document.title = `Query ${queryId} · Vivace`;
  const stop = every(1000, load);
  cancelButton.addEventListener('click', () => {
    cancelButton.disabled = true;
    cancelQuery(queryId)
      .then(() => {
        stop();
        every(1000, load);
      })
      .catch((err: unknown) => {
        showMessage(`Cannot cancel: ${(err as Error).message}`);
        cancelButton.disabled = false;
      });
  });
}
