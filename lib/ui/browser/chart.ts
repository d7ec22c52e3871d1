// The overview's chart: queries per second and rows per second over the coordinator's history, as an SVG
// built by DOM calls. Each series is scaled to its own maximum; the axis labels say the maxima.
import { svg } from './dom.js';
import { formatCount } from './format.js';
import type { HistorySample } from './types.js';

const WIDTH = 600;
const HEIGHT = 120;
const PAD = 4;

/** `points` of a polyline over `values`, scaled to the chart's box (pure, for specs). */
export function polylinePoints(values: number[], max: number): string {
  if (values.length === 0) return '';
  const step = values.length > 1 ? (WIDTH - 2 * PAD) / (values.length - 1) : 0;
  const scale = max > 0 ? (HEIGHT - 2 * PAD) / max : 0;
  return values.map((v, i) => `${(PAD + i * step).toFixed(1)},${(HEIGHT - PAD - Math.max(0, v) * scale).toFixed(1)}`).join(' ');
}

function series(samples: HistorySample[], pick: (s: HistorySample) => number): { values: number[]; max: number } {
  const values = samples.map((s) => {
    const v = pick(s);
    return Number.isFinite(v) && v > 0 ? v : 0;
  });
  return { values, max: values.reduce((a, b) => Math.max(a, b), 0) };
}

/** Builds (or rebuilds) the chart inside `host`, an <svg> element of the page. */
export function drawChart(host: SVGSVGElement, samples: HistorySample[], intervalSeconds: number): { queriesPerSecond: number; rowsPerSecond: number } {
  const perSecond = intervalSeconds > 0 ? 1 / intervalSeconds : 1;
  const queries = series(samples, (s) => (s.finished + s.failed) * perSecond);
  const rows = series(samples, (s) => s.processedRows * perSecond);
  host.setAttribute('viewBox', `0 0 ${WIDTH} ${HEIGHT}`);
  host.setAttribute('preserveAspectRatio', 'none');
  const grid = svg('g', { class: 'grid' });
  for (const y of [PAD, HEIGHT / 2, HEIGHT - PAD]) grid.appendChild(svg('line', { x1: 0, x2: WIDTH, y1: y, y2: y }));
  const queryLine = svg('polyline', { class: 'series-queries', points: polylinePoints(queries.values, queries.max) });
  const rowLine = svg('polyline', { class: 'series-rows', points: polylinePoints(rows.values, rows.max) });
  const title = svg('title');
  title.textContent = `Queries ended per second (max ${formatCount(queries.max)}) and rows processed per second (max ${formatCount(rows.max)})`;
  host.replaceChildren(title, grid, rowLine, queryLine);
  // The recent rate: the last ten seconds, so a single quiet second does not read as zero.
  const recent = samples.slice(-10);
  const seconds = Math.max(1, recent.length * (intervalSeconds || 1));
  return {
    queriesPerSecond: recent.reduce((a, s) => a + s.finished + s.failed, 0) / seconds,
    rowsPerSecond: recent.reduce((a, s) => a + s.processedRows, 0) / seconds,
  };
}

export function chartMaxima(samples: HistorySample[]): { queries: number; rows: number } {
  return { queries: series(samples, (s) => s.finished + s.failed).max, rows: series(samples, (s) => s.processedRows).max };
}
